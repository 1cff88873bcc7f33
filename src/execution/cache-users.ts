/**
 * Who uses the shared caches now, so that `harmflow gc` never removes a tool's cache under a
 * running `npm ci`. Two kinds of files under the cache root, each naming a process
 * (proc/process-identity.ts):
 *
 * - `.users/<execution>.<pid>.<n>`: one per harness turn that runs with the shared caches, written
 *   before the harness starts and removed when it has exited (`useSharedCaches`);
 * - `.gc`: the one cache collection running (`holdForCollection`), claimed atomically as an owner
 *   file is (owner-file.ts), and taken over only from a process that is gone.
 *
 * The order makes it safe without a lock the two sides wait on together: a turn writes its user file
 * first and only then looks for `.gc`, waiting while a live collector holds it; a collector claims
 * `.gc` first and only then lists the users, giving up when any is alive. Whichever writes second
 * sees the other's file. A user file of a process that is gone (HarmFlow was killed) counts as gone
 * and is removed by the next collection. Inside the sandbox the root is out of reach (only the tools'
 * folders are bound writable), so an agent cannot touch these files.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_FILE_MODE } from '../core/home.js';
import { stillRunning, thisProcess } from '../proc/process-identity.js';
import { claimOwnership, ownedByLiveProcess, releaseOwnership } from './owner-file.js';

/** 200 ms: how often a turn waiting for a collection looks again; a collection takes seconds. */
const WAIT_STEP_MS = 200;

const USERS = '.users';
const GC = '.gc';
/** The suffix of a user file being written: not a user yet (it has not looked for `.gc`). */
const PARTIAL = '.partial';

let turns = 0;

/**
 * Registers a harness turn of `execution` as a user of the shared caches under `root`, then waits
 * for any collection running there to finish, or for `stop()` to say the turn will not start
 * (canceled, out of time). Returns the release, to call once the harness has exited — or at once,
 * when it will not start; calling it again does nothing.
 */
export async function useSharedCaches(
  root: string,
  execution: string,
  stop: () => boolean = () => false,
): Promise<() => void> {
  const dir = join(root, USERS);
  mkdirSync(dir, { recursive: true });
  turns += 1;
  const file = join(dir, `${execution}.${process.pid}.${turns}`);
  // Whole or not at all: a collector reading a half-written file would take its writer for gone.
  writeFileSync(`${file}${PARTIAL}`, `${thisProcess()}\n`, { mode: PRIVATE_FILE_MODE });
  renameSync(`${file}${PARTIAL}`, file);
  while (ownedByLiveProcess(join(root, GC)) && !stop()) {
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    try {
      unlinkSync(file);
    } catch {
      // Already gone: nothing holds the caches in this turn's name.
    }
  };
}

/** The right to remove cache folders, while no turn uses them. */
export interface CollectionHold {
  release(): void;
}

/**
 * Takes the collection's place under `root`, or says why not: `inUse`, how many harness turns use
 * the caches now; `busy`, another collection runs.
 */
export function holdForCollection(root: string): CollectionHold | { readonly inUse: number } | { readonly busy: true } {
  mkdirSync(root, { recursive: true });
  const gc = join(root, GC);
  if (!claimOwnership(gc)) return { busy: true };
  const inUse = liveUsers(root);
  if (inUse > 0) {
    releaseOwnership(gc);
    return { inUse };
  }
  return { release: () => releaseOwnership(gc) };
}

/**
 * How many harness turns use the caches under `root` now. With `tidy`, removes the user files of
 * processes that are gone (a dry run leaves them).
 */
export function liveUsers(root: string, tidy = true): number {
  const dir = join(root, USERS);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let live = 0;
  for (const name of names) {
    if (name.endsWith(PARTIAL)) continue;
    const file = join(dir, name);
    let line: string;
    try {
      line = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    if (stillRunning(line)) live += 1;
    else if (tidy) {
      try {
        unlinkSync(file);
      } catch {
        // Removed meanwhile.
      }
    }
  }
  return live;
}
