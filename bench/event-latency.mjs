/**
 * Event delivery latency: the time from a record's append to `events.jsonl` to its receipt by SSE
 * clients over loopback, p50 and p99, with 1 and with 100 subscribers, for a steady 200 records/s and
 * for bursts of 50 records every 250 ms. In the same run, a baseline: a tail that polls the file every
 * 250 ms and writes one SSE event per record. Targets (issue 4) at 100 subscribers: steady p50 ≤ 2 ms,
 * p99 ≤ 10 ms; bursts p99 ≤ 30 ms.
 *
 * The daemon side (the hono app with `eventsRoute`, and the baseline) runs in a child process, as the
 * daemon would; the writer and the clients run here, so append and receipt are read from one clock.
 * Each record is a `warning` whose message is its append time (performance.timeOrigin + now, ms).
 *
 *   node bench/event-latency.mjs [--seconds S]     (after `npm run build`)
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
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
const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 4;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

if (process.argv.includes('--serve')) await daemon(process.argv[process.argv.indexOf('--serve') + 1]);
else await main();

/** The daemon side: the events route, and the polling baseline at /baseline/:id. */
async function daemon(root) {
  const home = harmflowHome(root);
  const store = {
    getExecution: async (id) => ({ id, state: 'running' }),
  };
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
  serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
    process.stdout.write(`${info.port}\n`);
  });
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'harmflow-bench-events-'));
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise((resolve, reject) => {
      child.stdout.once('data', (data) => resolve(Number(String(data).trim())));
      child.once('exit', (code) => reject(new Error(`daemon exited with ${code}`)));
    });
    const home = harmflowHome(dir);
    const results = [];
    for (const tail of ['sse', 'poll-250ms']) {
      for (const subscribers of [1, 100]) {
        for (const pattern of ['steady', 'bursts']) {
          const latencies = await scenario({ port, home, tail, subscribers, pattern });
          results.push({ tail, subscribers, pattern, ...summarize(latencies) });
          process.stderr.write(`${JSON.stringify(results.at(-1))}\n`);
        }
      }
    }
    const figures = {
      benchmark: 'event-latency',
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
      secondsPerScenario: seconds,
      steady: '200 records/s',
      bursts: '50 records every 250 ms',
      baselinePollMs: BASELINE_POLL_MS,
      targets: { subscribers: 100, steadyP50Ms: 2, steadyP99Ms: 10, burstsP99Ms: 30 },
      results,
    };
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Connects the subscribers, appends for `seconds`, and returns every (record, subscriber) latency. */
async function scenario({ port, home, tail, subscribers, pattern }) {
  const id = newExecutionId();
  const log = openEventLog(home.eventsFile(id), { execution: id });
  const url =
    tail === 'sse' ? `http://127.0.0.1:${port}/api/executions/${id}/events` : `http://127.0.0.1:${port}/baseline/${id}`;
  const latencies = [];
  const controller = new AbortController();
  let expected = 0;
  let received = 0;
  let allReceived;
  const done = new Promise((resolve) => {
    allReceived = resolve;
  });
  const clients = [];
  const connected = [];
  for (let i = 0; i < subscribers; i++) {
    let onConnected;
    connected.push(
      new Promise((resolve) => {
        onConnected = resolve;
      }),
    );
    clients.push(
      subscribe(url, controller.signal, onConnected, (stamp) => {
        latencies.push(now() - stamp);
        if (++received === expected) allReceived();
      }),
    );
  }
  await Promise.all(connected);
  const started = now();
  const total = pattern === 'steady' ? 200 * seconds : 50 * 4 * seconds;
  expected = total * subscribers;
  if (pattern === 'steady') {
    for (let n = 0; n < total; n++) {
      const due = started + n * 5;
      if (due > now()) await sleep(due - now());
      log.append({ source: 'executor', type: 'warning', data: { message: String(now()) } });
    }
  } else {
    for (let burst = 0; burst < total / 50; burst++) {
      const due = started + burst * 250;
      if (due > now()) await sleep(due - now());
      for (let n = 0; n < 50; n++)
        log.append({ source: 'executor', type: 'warning', data: { message: String(now()) } });
    }
  }
  await Promise.race([done, sleep(BASELINE_POLL_MS * 4 + 5000)]);
  controller.abort();
  log.close();
  await Promise.allSettled(clients);
  if (received !== expected) throw new Error(`${tail}: received ${received} of ${expected} deliveries`);
  return latencies;
}

/** Reads one SSE stream, reporting the append time inside each record. */
async function subscribe(url, signal, onConnected, onRecord) {
  const response = await fetch(url, { signal });
  const decoder = new TextDecoder();
  let text = '';
  try {
    for await (const chunk of response.body) {
      text += decoder.decode(chunk, { stream: true });
      let end = text.indexOf('\n\n');
      while (end !== -1) {
        const frame = text.slice(0, end);
        text = text.slice(end + 2);
        if (frame.startsWith('event: connected')) onConnected();
        const stamp = /"message":"([\d.]+)"/.exec(frame);
        if (stamp) onRecord(Number(stamp[1]));
        end = text.indexOf('\n\n');
      }
    }
  } catch (error) {
    if (error.name !== 'AbortError') throw error;
  }
}

function summarize(latencies) {
  const sorted = Float64Array.from(latencies).sort();
  const at = (q) => Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(2));
  return { samples: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
}
