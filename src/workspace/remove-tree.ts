/**
 * `removeTree` deletes a folder HarmFlow made for build tools (a cache, a Cargo target, a Bazel
 * output root) and everything in it. Those tools make parts of their trees read-only on purpose — Go
 * makes every folder of its module cache 0555, Bazel marks its outputs read-only — which a plain
 * recursive removal by their owner (not root) fails on with EACCES. So every folder in the tree is
 * first made writable by its owner (symbolic links are never followed: a link out of the tree is
 * removed as a link, what it points at is left alone). A path that does not exist is nothing to do.
 */
import { chmodSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Removes the tree at `path`; throws what the file system said when it cannot. */
export function removeTree(path: string): void {
  const pending = [path];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    const stats = lstatOrUndefined(entry);
    if (stats === undefined || !stats.isDirectory()) continue;
    if ((stats.mode & 0o700) !== 0o700) chmodSync(entry, (stats.mode & 0o7777) | 0o700);
    for (const name of readdirSync(entry)) pending.push(join(entry, name));
  }
  rmSync(path, { recursive: true, force: true });
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
