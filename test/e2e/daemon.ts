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
    const look = () => {
      const match = /HarmFlow service on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout?.on('data', look);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${output}`)));
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
      });
      return { status: response.status, body: await response.json() };
    },
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
