/**
 * Event delivery latency: the time from a record's append to `events.jsonl` to its receipt by SSE
 * clients over loopback, p50 and p99, with 1 and with 100 subscribers, for a steady 200 records/s and
 * for bursts of 50 records every 250 ms. Targets (issue 4) at 100 subscribers: steady p50 ≤ 2 ms,
 * p99 ≤ 10 ms; bursts p99 ≤ 30 ms.
 *
 * Three processes, as in use: the daemon (the hono app with `eventsRoute`, served by
 * @hono/node-server), the clients (the subscribers, each on its own connection, as browsers would be;
 * see `subscribe`), and this one, which drives them. Each scenario has a writer:
 *  - `daemon`: the daemon appends with `openEventLog`, as its engine does for the executions it runs;
 *    its feeds learn of each append in-process.
 *  - `other-process`: this process appends, as `harmflow run` in another terminal or a gate does; the
 *    daemon learns of it through `fs.watch`.
 * In the same run, a baseline: a tail that polls the file every 250 ms and writes one SSE event per
 * record (hono `streamSSE`), fed by the other-process writer.
 *
 * One clock: each record is a `warning` whose message is its append time, read just before the append
 * as performance.timeOrigin + performance.now() (ms) in the writer's process; a client takes the same
 * clock when the chunk completing the record arrives. On one machine that clock is the wall clock at
 * process start plus the monotonic clock since, so it agrees across processes; the offsets between the
 * processes are measured at the start (IPC ping, smallest round trip) and reported with the results.
 *
 *   node bench/event-latency.mjs [--seconds S] [--only sse/daemon/100] [--cpu-prof-dir DIR]
 *
 * (after `npm run build`). `--only` keeps the scenarios whose tail/writer/subscribers/pattern starts
 * so; `--cpu-prof-dir` writes a V8 CPU profile of each child process under DIR/<role>/.
 */

import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { connect } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { harmflowHome } from '../dist/core/home.js';
import { newExecutionId } from '../dist/core/ids.js';
import { RecordDecoder } from '../dist/events/decode.js';
import { openEventLog } from '../dist/events/log.js';
import { eventsRoute } from '../dist/server/routes/events.js';

const BASELINE_POLL_MS = 250;
/**
 * 500 ms from the last subscriber's `connected` to the first append: 100 connections at once, their
 * replays and the previous scenario's 100 closing streams keep the daemon busy for ~300 ms (measured:
 * event-loop gaps of 10–35 ms in that window), which is connection setup, not delivery.
 */
const CONNECT_SETTLE_MS = 500;
/** How long the last deliveries may take after the last append before a scenario is called failed. */
const SETTLE_MS = BASELINE_POLL_MS * 4 + 5000;
const option = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const scenarioSeconds = Number(option('--seconds')) || 4;
const only = option('--only') ?? '';
const profileDir = option('--cpu-prof-dir');
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const role = option('--role');

if (role === 'daemon') daemon(option('--home'));
else if (role === 'clients') clients();
else await main();

/**
 * Answers `clock` requests with this process's clock, and the others with `handle`'s result; exits
 * when the driver lets go (so a CPU profile, if asked for, is written).
 */
function serveParent(handle) {
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (message) => {
    if (message.type === 'clock') return process.send({ type: 'clock', at: now() });
    process.send({ type: 'reply', seq: message.seq, value: await handle(message) });
  });
}

/** The daemon: the events route, the polling baseline at /baseline/:id, and a writer of its own. */
function daemon(root) {
  const home = harmflowHome(root);
  const store = { getExecution: async (id) => ({ id, state: 'running' }) };
  const app = new Hono().route('/', eventsRoute({ home, store }));
  app.get('/baseline/:id', (c) =>
    streamSSE(c, async (stream) => {
      const controller = new AbortController();
      stream.onAbort(() => controller.abort());
      const file = await open(home.eventsFile(c.req.param('id')), 'r');
      const decoder = new RecordDecoder(0);
      const chunk = Buffer.allocUnsafe(64 * 1024);
      let position = 0;
      let sequence = 0;
      await stream.writeSSE({ event: 'connected', data: '{}' });
      try {
        while (!controller.signal.aborted) {
          const { bytesRead } = await file.read(chunk, 0, chunk.length, position);
          position += bytesRead;
          for (const record of decoder.push(chunk.subarray(0, bytesRead))) {
            sequence += 1;
            await stream.writeSSE({ id: String(sequence), data: JSON.stringify(record) });
          }
          if (bytesRead === 0) await sleep(BASELINE_POLL_MS);
        }
      } finally {
        await file.close();
      }
    }),
  );
  const logs = new Map();
  serveParent(async (message) => {
    if (message.type === 'open')
      logs.set(message.id, openEventLog(home.eventsFile(message.id), { execution: message.id }));
    if (message.type === 'write') return write(logs.get(message.id), message.pattern, message.seconds);
    if (message.type === 'close') logs.get(message.id)?.close();
  });
  serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
    process.send({ type: 'port', port: info.port }),
  );
}

/** The subscribers: `connect` opens them, `collect` returns every latency once all arrived. */
function clients() {
  let current;
  serveParent(async (message) => {
    if (message.type === 'connect') {
      current = subscribe(message.url, message.subscribers);
      await current.connected;
    }
    if (message.type === 'collect') return current.collect(message.expected);
  });
}

/**
 * Opens `count` SSE streams, each on its own connection, and takes each record's latency when the
 * chunk completing it arrives. The clients speak HTTP/1.1 over bare sockets and only look for the
 * markers they need (`event: connected`, each record's `"message":"<append time>"`; the chunked
 * framing between them is never inside one). That costs the clients' process about a quarter less CPU
 * than node:http's parser and streams (1.1–1.4 s against 1.7–1.8 s for the same 100-subscriber runs),
 * CPU it shares with the daemon on a 2-core machine; the latencies measured were the same within
 * run-to-run noise.
 */
function subscribe(url, count) {
  const { hostname, port, pathname } = new URL(url);
  const latencies = [];
  const sockets = [];
  let connected = 0;
  let onConnected;
  let onAll;
  let expected = Number.POSITIVE_INFINITY;
  const all = new Promise((resolve) => {
    onAll = resolve;
  });
  const ready = new Promise((resolve) => {
    onConnected = resolve;
  });
  for (let i = 0; i < count; i++) {
    const socket = connect(Number(port), hostname);
    socket.setNoDelay(true);
    socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`);
    let text = '';
    let isConnected = false;
    socket.on('data', (chunk) => {
      const receivedAt = now();
      text += chunk.toString('latin1');
      if (!isConnected) {
        if (!text.startsWith('HTTP/1.1 200')) throw new Error(`${url}: ${text.split('\r\n')[0]}`);
        if (!text.includes('event: connected')) return;
        isConnected = true;
        if (++connected === count) onConnected();
      }
      let from = 0;
      for (;;) {
        const stamp = text.indexOf('"message":"', from);
        if (stamp === -1) {
          text = text.slice(Math.max(from, text.length - 16)); // may hold the start of a marker
          break;
        }
        const close = text.indexOf('"', stamp + 11);
        if (close === -1) {
          text = text.slice(stamp);
          break;
        }
        latencies.push(receivedAt - Number(text.slice(stamp + 11, close)));
        if (latencies.length >= expected) onAll();
        from = close + 1;
      }
    });
    socket.on('error', () => {}); // destroyed at the end of the scenario
    sockets.push(socket);
  }
  return {
    connected: ready,
    async collect(total) {
      expected = total;
      if (latencies.length >= expected) onAll();
      await Promise.race([all, sleep(SETTLE_MS)]);
      for (const socket of sockets) socket.destroy();
      return latencies;
    },
  };
}

/** Appends the pattern's records to `log`, each stamped with the clock just before its append. */
async function write(log, pattern, seconds) {
  const started = now();
  const total = pattern === 'steady' ? 200 * seconds : 50 * 4 * seconds;
  const stamp = () => ({ source: 'executor', type: 'warning', data: { message: String(now()) } });
  if (pattern === 'steady') {
    for (let n = 0; n < total; n++) {
      const due = started + n * 5;
      if (due > now()) await sleep(due - now());
      log.append(stamp());
    }
  } else {
    for (let burst = 0; burst < total / 50; burst++) {
      const due = started + burst * 250;
      if (due > now()) await sleep(due - now());
      for (let n = 0; n < 50; n++) log.append(stamp());
    }
  }
  return total;
}

/** A child process with request/reply over IPC. */
function child(args) {
  const role_ = args[args.indexOf('--role') + 1];
  const execArgv = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, role_)}`];
  const process_ = fork(fileURLToPath(import.meta.url), args, {
    execArgv,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  let seq = 0;
  const waiting = new Map();
  const listeners = new Set();
  process_.on('message', (message) => {
    if (message.type === 'reply') {
      waiting.get(message.seq)?.resolve(message.value);
      waiting.delete(message.seq);
    } else for (const listener of listeners) listener(message);
  });
  const exited = new Promise((resolve) => process_.once('exit', resolve));
  void exited.then((code) => {
    for (const { reject } of waiting.values()) reject(new Error(`the ${role_} process exited (${code})`));
  });
  return {
    process: process_,
    exited,
    request(message) {
      seq += 1;
      process_.send({ ...message, seq });
      return new Promise((resolve, reject) => waiting.set(seq, { resolve, reject }));
    },
    next(type) {
      return new Promise((resolve) => {
        const listener = (message) => {
          if (message.type !== type) return;
          listeners.delete(listener);
          resolve(message);
        };
        listeners.add(listener);
      });
    },
  };
}

/** This process's clock minus the child's, from the ping with the smallest round trip (± half of it). */
async function clockOffset(target) {
  let best;
  for (let i = 0; i < 50; i++) {
    const sent = now();
    const reply = target.next('clock');
    target.process.send({ type: 'clock' });
    const { at } = await reply;
    const back = now();
    if (best === undefined || back - sent < best.roundTrip)
      best = { offset: (sent + back) / 2 - at, roundTrip: back - sent };
  }
  return { offsetMs: Number(best.offset.toFixed(3)), uncertaintyMs: Number((best.roundTrip / 2).toFixed(3)) };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'harmflow-bench-events-'));
  const daemonProcess = child(['--role', 'daemon', '--home', dir]);
  const clientsProcess = child(['--role', 'clients']);
  try {
    const { port } = await daemonProcess.next('port');
    const home = harmflowHome(dir);
    const loadBefore = Number(loadavg()[0].toFixed(2));
    const clocks = { daemon: await clockOffset(daemonProcess), clients: await clockOffset(clientsProcess) };
    // Not measured: JIT-compiles the daemon's and the clients' paths, as in a daemon that has run a while.
    const warmUp = [];
    for (const pattern of ['steady', 'bursts']) {
      const args = {
        port,
        home,
        tail: 'sse',
        writer: 'daemon',
        subscribers: 100,
        pattern,
        daemonProcess,
        clientsProcess,
      };
      warmUp.push({ pattern, ...summarize(await scenario({ ...args, seconds: 1 })) });
    }
    const results = [];
    for (const [tail, writer] of [
      ['sse', 'daemon'],
      ['sse', 'other-process'],
      ['poll-250ms', 'other-process'],
    ]) {
      for (const subscribers of [1, 100]) {
        for (const pattern of ['steady', 'bursts']) {
          if (!`${tail}/${writer}/${subscribers}/${pattern}`.startsWith(only)) continue;
          const args = {
            port,
            home,
            tail,
            writer,
            subscribers,
            pattern,
            daemonProcess,
            clientsProcess,
            seconds: scenarioSeconds,
          };
          const latencies = await scenario(args);
          results.push({ tail, writer, subscribers, pattern, ...summarize(latencies) });
          process.stderr.write(`${JSON.stringify(results.at(-1))}\n`);
        }
      }
    }
    const figures = {
      benchmark: 'event-latency',
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
      secondsPerScenario: scenarioSeconds,
      steady: '200 records/s',
      bursts: '50 records every 250 ms',
      baselinePollMs: BASELINE_POLL_MS,
      clockOffsetsFromDriver: clocks,
      oneMinuteLoadAverage: { before: loadBefore, after: Number(loadavg()[0].toFixed(2)) },
      warmUp,
      targets: { subscribers: 100, steadyP50Ms: 2, steadyP99Ms: 10, burstsP99Ms: 30 },
      results,
    };
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  } finally {
    daemonProcess.process.disconnect();
    clientsProcess.process.disconnect();
    await Promise.all([daemonProcess.exited, clientsProcess.exited]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Connects the subscribers, appends for `seconds`, and returns every (record, subscriber) latency. */
async function scenario({ port, home, tail, writer, subscribers, pattern, daemonProcess, clientsProcess, seconds }) {
  const id = newExecutionId();
  // The log exists before anyone follows it, as the engine creates it when an execution starts.
  const log = writer === 'daemon' ? undefined : openEventLog(home.eventsFile(id), { execution: id });
  if (writer === 'daemon') await daemonProcess.request({ type: 'open', id });
  const path = tail === 'sse' ? `/api/executions/${id}/events` : `/baseline/${id}`;
  await clientsProcess.request({ type: 'connect', url: `http://127.0.0.1:${port}${path}`, subscribers });
  await sleep(CONNECT_SETTLE_MS);
  const total =
    writer === 'daemon'
      ? await daemonProcess.request({ type: 'write', id, pattern, seconds })
      : await write(log, pattern, seconds);
  const latencies = await clientsProcess.request({ type: 'collect', expected: total * subscribers });
  if (writer === 'daemon') await daemonProcess.request({ type: 'close', id });
  else log.close();
  if (latencies.length !== total * subscribers) {
    throw new Error(`${tail}/${writer}: received ${latencies.length} of ${total * subscribers} deliveries`);
  }
  return latencies;
}

function summarize(latencies) {
  const sorted = Float64Array.from(latencies).sort();
  const at = (q) => Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(2));
  return { samples: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
}
