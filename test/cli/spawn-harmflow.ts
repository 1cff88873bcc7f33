/**
 * Runs the built `harmflow` bin as a child process, asynchronously (a fake service or API node the
 * test runs answers from the test's own event loop, so it must not block), with exactly `env` (its
 * undefined entries left out) and `stdin` written and closed. Needs dist/ built.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));

/** How a run ended and what it printed. */
export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function spawnHarmflow(
  args: readonly string[],
  options: {
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly cwd?: string;
    readonly stdin?: string;
  },
): Promise<Ran> {
  const env = Object.fromEntries(Object.entries(options.env).filter(([, value]) => value !== undefined));
  const child = spawn(process.execPath, [BIN, ...args], {
    env,
    ...(options.cwd !== undefined && { cwd: options.cwd }),
  });
  child.stdin.end(options.stdin ?? '');
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}
