/**
 * `harmflow serve` as a child process for the benchmarks that run against it (memory, output-rss,
 * ui-first-frame): started on a free port over a given state directory with a known token, driven over
 * HTTP on 127.0.0.1, and stopped however the run ends — `POST /api/stop`, a kill if it has not exited
 * within `stopMs`, then SIGKILL to every harness process group its executions started (their ids
 * from each attempt's `pgid` file). The caller owns the state directory and removes it.
 */

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { signalGroup } from '../dist/proc/group.js';

const BIN = fileURLToPath(new URL('../bin/harmflow.js', import.meta.url));

/** 15 s: how long the daemon may take to listen; it listens within about 1.5 s on a loaded 2-core host. */
const LISTEN_MS = 15_000;

/**
 * Starts the daemon and resolves once it listens.
 * - `home`: the HomePaths of its state directory; `token`: its HARMFLOW_TOKEN
 * - `args`: `serve` options after `--port 0 --home <home>`; `nodeArgs`: options for node itself
 * - `env`: its environment (the token is added); `label`: how stderr notes name the benchmark
 * - `requestMs`: the bound of one API call; `stopMs`: how long a stop may take before the kill
 */
export async function startBenchDaemon({ home, token, args, nodeArgs = [], env, label, requestMs, stopMs }) {
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'serve', '--port', '0', '--home', home.root, ...args], {
    env: { ...env, HARMFLOW_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk) => {
    output += chunk.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let url;
  const alive = () => child.exitCode === null && child.signalCode === null;
  const daemon = {
    child,
    /** The URL it listens on. */
    get url() {
      return url;
    },
    output: () => output,
    /** Sends an API request with the token; returns the status and the JSON body. */
    async api(method, path, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        signal: AbortSignal.timeout(requestMs),
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: await response.json() };
    },
    /** Stops the daemon (idempotent), then kills what is left of the harnesses it started. */
    async stop() {
      if (alive()) {
        let stopped = false;
        try {
          await daemon.api('POST', '/api/stop');
          stopped = await Promise.race([exited.then(() => true), sleep(stopMs).then(() => false)]);
        } catch (error) {
          process.stderr.write(`${label}: stop failed: ${error}\n`);
        }
        if (!stopped) {
          process.stderr.write(`${label}: the daemon was killed; its output:\n${output}\n`);
          child.kill('SIGKILL');
          await exited;
        }
      }
      // Every execution the daemon created, the ones whose submit answer was lost included.
      const runs = join(home.root, 'runs');
      for (const id of existsSync(runs) ? readdirSync(runs) : []) {
        const file = join(home.attemptDir(id, 1), 'pgid');
        if (existsSync(file)) signalGroup(Number(readFileSync(file, 'utf8')), 'SIGKILL');
      }
    },
  };
  for (const deadline = Date.now() + LISTEN_MS; Date.now() < deadline; await sleep(50)) {
    const match = /HarmFlow service on (http:\/\/\S+)/.exec(output);
    if (match?.[1]) {
      url = match[1];
      return daemon;
    }
    if (!alive()) break;
  }
  await daemon.stop();
  throw new Error(`serve did not listen within ${LISTEN_MS / 1000} s: ${output}`);
}

/** A `kB` field of a /proc file (`/proc/<pid>/status`, `smaps_rollup`), in KiB. */
export function procKiB(text, field) {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text);
  if (!match?.[1]) throw new Error(`no ${field} in /proc`);
  return Number(match[1]);
}
