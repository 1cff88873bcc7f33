import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RepositoryError } from '../../src/core/errors.js';
import { withLockFile } from '../../src/workspace/lock-file.js';
import { tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(child.stdout.trim());
}

describe('withLockFile', () => {
  it('runs overlapping calls one at a time and removes the lock file after each', async () => {
    const dir = await dirs.make();
    const lock = join(dir, 'x.lock');
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        withLockFile(lock, 10_000, async () => {
          inside += 1;
          most = Math.max(most, inside);
          await sleep(20);
          order.push(n);
          inside -= 1;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(order.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('releases the lock when the work throws', async () => {
    const dir = await dirs.make();
    const lock = join(dir, 'x.lock');
    await expect(withLockFile(lock, 1000, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(existsSync(lock)).toBe(false);
    expect(await withLockFile(lock, 1000, async () => 'again')).toBe('again');
  });

  it('takes over a lock whose holder is gone at once', async () => {
    const dir = await dirs.make();
    const lock = join(dir, 'x.lock');
    await writeFile(lock, `${deadPid()} 12345 token\n`);
    const started = Date.now();
    expect(await withLockFile(lock, 60_000, async () => 'ran')).toBe('ran');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await readdir(dir)).toEqual([]);
  });

  it('waits for a live holder, and gives up after the wait with a line naming it', async () => {
    const dir = await dirs.make();
    const lock = join(dir, 'x.lock');
    // This very process, start time unknown ("0"): alive.
    await writeFile(lock, `${process.pid} 0 someone-else\n`);
    const error = await withLockFile(lock, 300, async () => 'ran').catch((e) => e);
    expect(error).toBeInstanceOf(RepositoryError);
    expect(error.message).toBe(`${lock} is held by process ${process.pid} (waited 300 ms)`);
    expect(existsSync(lock)).toBe(true);

    let ran = false;
    const waiting = withLockFile(lock, 10_000, async () => {
      ran = true;
    });
    await sleep(200);
    expect(ran).toBe(false);
    await unlink(lock);
    await waiting;
    expect(ran).toBe(true);
  });
});
