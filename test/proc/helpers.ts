/** Fixtures shared by the proc tests: child scripts and liveness checks. */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A minimal complete environment for children. */
export const ENV: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** argv for `node -e <code>`. */
export function node(code: string): { command: string; args: string[] } {
  return { command: process.execPath, args: ['-e', code] };
}

/** Tells whether a process exists and is not a zombie (Linux /proc). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Creates temporary directories and removes them all on `cleanup()` (call it in afterEach). */
export function tempDirs(): { make(): Promise<string>; cleanup(): Promise<void> } {
  const made: string[] = [];
  return {
    async make() {
      const path = await mkdtemp(join(tmpdir(), 'harmflow-proc-'));
      made.push(path);
      return path;
    },
    async cleanup() {
      await Promise.all(made.splice(0).map((path) => rm(path, { recursive: true, force: true })));
    },
  };
}
