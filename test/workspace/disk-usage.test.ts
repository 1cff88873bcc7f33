/**
 * `diskUsage` against `du`: the same blocks counted, symbolic links not followed, hard links once,
 * 0 for nothing, and a tree being deleted while it is walked is no error.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diskUsage } from '../../src/workspace/disk-usage.js';
import { tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** `du -s -B1` of `path`: the allocated bytes, the way diskUsage counts them. */
function du(path: string): number {
  return Number(execFileSync('du', ['-s', '-B1', path], { encoding: 'utf8' }).split('\t')[0]);
}

/** A tree of `folders` × `files` files of 1 to 9 KiB. */
function tree(root: string, folders: number, files: number): void {
  for (let folder = 0; folder < folders; folder += 1) {
    const dir = join(root, `d${folder}`, 'nested');
    mkdirSync(dir, { recursive: true });
    for (let file = 0; file < files; file += 1) {
      writeFileSync(join(dir, `f${file}.txt`), 'x'.repeat(1024 * (1 + ((folder + file) % 9))));
    }
  }
}

describe('diskUsage', () => {
  it('counts what du counts', async () => {
    const root = await dirs.make();
    tree(root, 5, 20);
    expect(await diskUsage(root)).toBe(du(root));
  });

  it('counts a symbolic link as itself, never what it points to, and a hard-linked file once', async () => {
    const root = await dirs.make();
    const outside = await dirs.make();
    writeFileSync(join(outside, 'big.bin'), Buffer.alloc(1024 * 1024, 1));
    mkdirSync(join(root, 'inside'));
    writeFileSync(join(root, 'inside', 'small.txt'), 'small');
    const before = await diskUsage(root);
    symlinkSync(join(outside, 'big.bin'), join(root, 'inside', 'link-to-file'));
    symlinkSync(outside, join(root, 'link-to-folder'));
    linkSync(join(root, 'inside', 'small.txt'), join(root, 'inside', 'hard.txt'));
    const links =
      lstatSync(join(root, 'inside', 'link-to-file')).blocks + lstatSync(join(root, 'link-to-folder')).blocks;
    expect(await diskUsage(root)).toBe(before + links * 512);
    expect(await diskUsage(root)).toBe(du(root));
  });

  it('is 0 for a path with nothing there, and a file measures itself', async () => {
    const root = await dirs.make();
    expect(await diskUsage(join(root, 'missing'))).toBe(0);
    writeFileSync(join(root, 'one'), 'x'.repeat(5000));
    expect(await diskUsage(join(root, 'one'))).toBe(lstatSync(join(root, 'one')).blocks * 512);
  });

  it('goes on when the tree is deleted while it walks', async () => {
    for (let run = 0; run < 3; run += 1) {
      const root = join(await dirs.make(), 'tree');
      tree(root, 40, 50);
      const whole = du(root);
      // Another process deletes it; the walk starts once the deletion has begun, and meets folders
      // and files as they disappear.
      const removing = spawn('rm', ['-rf', root], { stdio: 'ignore' });
      const removed = new Promise((resolve) => removing.on('exit', resolve));
      while (existsSync(root) && readdirSync(root).length === 40) await new Promise((resolve) => setImmediate(resolve));
      const bytes = await diskUsage(root);
      await removed;
      expect(bytes).toBeGreaterThanOrEqual(0);
      expect(bytes).toBeLessThan(whole);
    }
  });
});
