/**
 * `withLockFile` runs some work while holding a lock file, so that calls on one machine — in one
 * process or in several — take turns. The file holds its holder's `<pid> <start time> <token>` and
 * appears whole (a hard link of a complete temporary file, which fails when the lock exists); it is
 * removed when the work settles, whether it succeeded or not.
 *
 * A lock whose holder is gone (crashed, killed) is taken over at once: the holder is gone when no
 * process has its pid, or the process that has it started at another time (a recycled pid). It is
 * moved aside before it is removed, and put back when what was moved is not the lock seen dead, so
 * two waiters that both find a dead holder do not remove each other's new lock — except in the
 * instant between the move and the put-back, where both may then run the work at once.
 *
 * The file names a process of this machine: a lock file on a folder that several machines share
 * (NFS) would see every other machine's holder as gone.
 */
import { randomUUID } from 'node:crypto';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { RepositoryError } from '../core/errors.js';
import { stillRunning, thisProcess } from '../proc/process-identity.js';

/**
 * 50 ms between two looks at a held lock: the work it guards (a fetch into a mirror) takes 30 ms
 * when there is nothing new over a local transport and hundreds of milliseconds over a network, so
 * a waiter starts within a fraction of the holder's time after it ends, and looks at most 20 times
 * a second.
 */
const POLL_MS = 50;

/**
 * Runs `work` holding the lock file at `path` (its folder must exist). Waits while a live holder
 * has it; after `waitMs` of waiting throws RepositoryError `<path> is held by process <pid>`.
 */
export async function withLockFile<T>(path: string, waitMs: number, work: () => Promise<T>): Promise<T> {
  const mine = `${thisProcess()} ${randomUUID()}\n`;
  const deadline = Date.now() + waitMs;
  while (!(await create(path, mine))) {
    const holder = await readFile(path, 'utf8').catch(unlessGone);
    // Released between the two looks: try again.
    if (holder === undefined) continue;
    if (!stillRunning(holder)) {
      await removeIfStill(path, holder);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new RepositoryError(`${path} is held by process ${holder.split(' ')[0]} (waited ${waitMs} ms)`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  try {
    return await work();
  } finally {
    await removeIfStill(path, mine);
  }
}

/** Creates the lock file holding `content`; false when it exists. */
async function create(path: string, content: string): Promise<boolean> {
  const temp = `${path}.${randomUUID()}.new`;
  await writeFile(temp, content);
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp);
  }
}

/** Removes the lock file if it still holds `content`. */
async function removeIfStill(path: string, content: string): Promise<void> {
  const aside = `${path}.${randomUUID()}.aside`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = await readFile(aside, 'utf8').catch(() => undefined);
  // Someone else's lock, taken in the meantime: put it back (unless yet another one was created).
  if (moved !== content) await link(aside, path).catch(() => undefined);
  await unlink(aside);
}

function unlessGone(error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT') return undefined;
  throw error;
}
