/**
 * A `harmflow serve` of the built bin for the CLI's tests: on a free loopback port, with a known
 * token, its stdout kept. The test owns the process: it kills it (or stops it) when done.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { GIT_IDENTITY } from '../execution/fixture.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
/** The token every served process takes (HARMFLOW_TOKEN). */
export const SERVED_TOKEN = 'test-token-0123456789';

export interface Served {
  readonly process: ChildProcess;
  /** The service's URL, once it printed it; rejects if it exits first. */
  readonly url: Promise<string>;
  /** What it printed so far. */
  printed(): string;
}

/** Starts `harmflow serve --port 0 --home home …args`. */
export function serve(home: string, args: readonly string[] = []): Served {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--home', home, ...args], {
    env: { PATH: process.env.PATH, HARMFLOW_TOKEN: SERVED_TOKEN, ...GIT_IDENTITY },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let printed = '';
  // Read with 'data' (not for-await, which destroys the pipe when it returns): the service prints
  // again when it stops.
  const url = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      printed += String(chunk);
      const found = /HarmFlow service on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', () => reject(new Error(`serve printed no URL: ${printed}`)));
  });
  return { process: child, url, printed: () => printed };
}
