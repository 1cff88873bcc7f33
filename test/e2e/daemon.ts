/**
 * `harmflow serve` as a child process, for tests that kill and restart it: started on a free port
 * with a known token over a given state directory, driven over HTTP on 127.0.0.1.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
export const DAEMON_TOKEN = 'crash-test-token-0123456789';

export interface Daemon {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the daemon printed so far. */
  output(): string;
  /** Sends an API request with the token; returns the status and the JSON body. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** 60 s: a start (recovery included) takes a few seconds even on a loaded 2-core host; past this it is stuck. */
const START_MS = 60_000;
/** 30 s: every request these tests send is answered in well under a second. */
const REQUEST_MS = 30_000;
/** 30 s: a stop with nothing running, or with turns given a budget of seconds, ends sooner. */
const STOP_MS = 30_000;

/** Starts the daemon and resolves once it listens. */
export async function startDaemon(home: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Daemon> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--home', home, ...args], {
    env: { ...env, HARMFLOW_TOKEN: DAEMON_TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const late = setTimeout(
      () => reject(new Error(`serve did not listen within ${START_MS / 1000} s: ${output}`)),
      START_MS,
    );
    const look = () => {
      const match = /HarmFlow service on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(late);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(late);
      reject(new Error(`serve exited (${code}) before listening: ${output}`));
    });
  });
  const exited = once(child, 'exit');
  return {
    url,
    child,
    output: () => output,
    async api(method, path, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${DAEMON_TOKEN}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_MS),
      });
      return { status: response.status, body: await response.json() };
    },
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const late = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
      await exited;
      clearTimeout(late);
      if (signal !== 'SIGKILL' && child.signalCode === 'SIGKILL') {
        throw new Error(`serve did not stop within ${STOP_MS / 1000} s of ${signal}: ${output.slice(-2000)}`);
      }
    },
  };
}
