import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newExecutionId } from '../../src/core/ids.js';
import { pushCheckpoint, restoreCheckpoint } from '../../src/workspace/checkpoint.js';
import { ensureMirror, worktreeFromMirror } from '../../src/workspace/mirror.js';
import { sh, tempDirs, write } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const FILES = 1000;

/** A git fast-import stream: one commit on `main` of FILES files in folders of 100. */
function tree(): string {
  const out = ['commit refs/heads/main\ncommitter T <t@example.com> 1700000000 +0000\ndata 5\nfiles\n'];
  for (let f = 0; f < FILES; f++) {
    const body = `file ${f}\n`.repeat(20);
    out.push(`M 100644 inline src/d${Math.floor(f / 100)}/f${f}.txt\ndata ${body.length}\n${body}\n`);
  }
  return out.join('');
}

const path = (f: number) => `src/d${Math.floor(f / 100)}/f${f}.txt`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

describe('checkpoints at scale', () => {
  it('carry 50 changes among 1,000 files (and print how long pushCheckpoint takes)', async () => {
    const remote = join(await dirs.make(), 'remote.git');
    sh(await dirs.make(), 'init', '-q', '--bare', '-b', 'main', remote);
    execFileSync('git', ['fast-import', '--quiet'], { cwd: remote, input: tree() });
    const execution = newExecutionId();
    const branch = `harmflow/scale-${execution}`;
    const mirror = await ensureMirror({ url: remote, cacheDir: await dirs.make() });
    const worktree = join(await dirs.make(), 'a');
    await worktreeFromMirror({ mirror, startPoint: 'origin/main', branch, path: worktree });
    // 50 changes: 20 modified, 10 modified and staged, 5 deleted, 5 added and staged, 10 untracked.
    for (let f = 0; f < 30; f++) await write(worktree, path(f * 31), `changed ${f}\n`);
    sh(worktree, 'add', ...Array.from({ length: 10 }, (_, f) => path((20 + f) * 31)));
    for (let f = 0; f < 5; f++) await rm(join(worktree, path(f * 31 + 7)));
    for (let f = 0; f < 5; f++) await write(worktree, `new/staged-${f}.txt`, `staged ${f}\n`);
    sh(worktree, 'add', 'new');
    for (let f = 0; f < 10; f++) await write(worktree, `new/untracked-${f}.txt`, `untracked ${f}\n`);
    const status = sh(worktree, 'status', '--porcelain=v1', '--untracked-files=all');
    expect(status.split('\n')).toHaveLength(50);

    const pushed = await pushCheckpoint({ worktree, remote: 'origin', execution });
    expect(pushed.pushed).toBe(true);

    const restoredPath = join(await dirs.make(), 'b');
    const otherMirror = await ensureMirror({ url: remote, cacheDir: await dirs.make() });
    const restored = await restoreCheckpoint({
      repo: otherMirror,
      remote: 'origin',
      execution,
      branch,
      path: restoredPath,
    });
    expect(restored?.files).toHaveLength(50);
    expect(sh(restoredPath, 'status', '--porcelain=v1', '--untracked-files=all')).toBe(status);
    expect(readFileSync(join(restoredPath, path(0)), 'utf8')).toBe('changed 0\n');

    // How long it takes, against a remote on the local disk (no network): printed, never asserted.
    const changed: number[] = [];
    const unchanged: number[] = [];
    for (let round = 0; round < 10; round++) {
      await write(worktree, path(0), `changed again ${round}\n`);
      let started = performance.now();
      expect((await pushCheckpoint({ worktree, remote: 'origin', execution })).pushed).toBe(true);
      changed.push(performance.now() - started);
      started = performance.now();
      expect((await pushCheckpoint({ worktree, remote: 'origin', execution })).pushed).toBe(false);
      unchanged.push(performance.now() - started);
    }
    console.info(
      `pushCheckpoint, ${FILES} files, 50 changed, median of 10: ` +
        `${median(changed).toFixed(0)} ms when it pushes, ${median(unchanged).toFixed(0)} ms when nothing changed`,
    );
  }, 60_000);
});
