import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RepositoryError } from '../../src/core/errors.js';
import { ensureMirror, worktreeFromMirror } from '../../src/workspace/mirror.js';
import { commitAll, sh, tempDirs, write } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** A bare "remote" with `main` (one commit) and tag `v1`; returns it and the working repo that pushes to it. */
async function remoteRepo(): Promise<{ remote: string; work: string }> {
  const work = await dirs.repo();
  const remote = await dirs.remote(work, 'origin');
  sh(work, 'tag', 'v1');
  sh(work, 'push', '-q', 'origin', 'main', 'v1');
  return { remote, work };
}

describe('ensureMirror', () => {
  it('clones the remote into <cacheDir>/<hash of the URL>.git, branches as origin/*, tags as tags', async () => {
    const { remote, work } = await remoteRepo();
    const cacheDir = join(await dirs.make(), 'cache');

    const mirror = await ensureMirror({ url: remote, cacheDir });

    const hash = createHash('sha256').update(remote).digest('hex').slice(0, 16);
    expect(mirror).toBe(join(cacheDir, `${hash}.git`));
    expect(sh(mirror, 'rev-parse', '--is-bare-repository')).toBe('true');
    expect(sh(mirror, 'for-each-ref', '--format=%(refname) %(objectname)')).toBe(
      [`refs/remotes/origin/main ${sh(work, 'rev-parse', 'main')}`, `refs/tags/v1 ${sh(work, 'rev-parse', 'v1')}`].join(
        '\n',
      ),
    );
    expect(await readdir(cacheDir)).toEqual([`${hash}.git`]);
  });

  it('fetches and prunes on later calls, and never touches the branches of its worktrees', async () => {
    const { remote, work } = await remoteRepo();
    const cacheDir = await dirs.make();
    const mirror = await ensureMirror({ url: remote, cacheDir });
    sh(work, 'push', '-q', 'origin', 'main:doomed');
    await ensureMirror({ url: remote, cacheDir });
    expect(sh(mirror, 'branch', '-r')).toContain('origin/doomed');
    const worktree = join(await dirs.make(), 'wt');
    await worktreeFromMirror({ mirror, startPoint: 'origin/main', branch: 'harmflow/work', path: worktree });
    await write(worktree, 'work.txt', 'work\n');
    const workCommit = commitAll(worktree, 'work');
    await write(work, 'later.txt', 'later\n');
    const later = commitAll(work, 'later');
    sh(work, 'push', '-q', 'origin', 'main', ':doomed');

    expect(await ensureMirror({ url: remote, cacheDir })).toBe(mirror);

    expect(sh(mirror, 'rev-parse', 'origin/main')).toBe(later);
    expect(sh(mirror, 'branch', '-r')).not.toContain('origin/doomed');
    // The execution's branch, which the remote does not have, stays where the worktree left it.
    expect(sh(mirror, 'rev-parse', 'refs/heads/harmflow/work')).toBe(workCommit);
    expect(sh(worktree, 'rev-parse', 'HEAD')).toBe(workCommit);
    // And it can be pushed from the worktree like any branch.
    sh(worktree, 'push', '-q', 'origin', 'harmflow/work');
    expect(sh(remote, 'rev-parse', 'harmflow/work')).toBe(workCommit);
  });

  it('lets concurrent calls on one cacheDir all succeed, creating and updating one mirror', async () => {
    const { remote, work } = await remoteRepo();
    const cacheDir = await dirs.make();

    const created = await Promise.all([1, 2, 3, 4].map(() => ensureMirror({ url: remote, cacheDir })));
    expect(new Set(created).size).toBe(1);

    // Concurrent fetches that update the same refs: without the lock, all but one fail.
    for (let round = 1; round <= 3; round++) {
      await write(work, 'round.txt', `${round}\n`);
      commitAll(work, `round ${round}`);
      sh(work, 'push', '-q', 'origin', 'main', `main:branch-${round}`);
      const updated = await Promise.all([1, 2, 3, 4].map(() => ensureMirror({ url: remote, cacheDir })));
      expect(new Set(updated)).toEqual(new Set(created));
      expect(sh(updated[0] ?? '', 'rev-parse', 'origin/main')).toBe(sh(work, 'rev-parse', 'main'));
    }
    expect(await readdir(cacheDir)).toEqual([created[0]?.split('/').at(-1)]);
  });

  it('keeps one mirror per URL', async () => {
    const one = await remoteRepo();
    const two = await remoteRepo();
    const cacheDir = await dirs.make();
    const first = await ensureMirror({ url: one.remote, cacheDir });
    const second = await ensureMirror({ url: two.remote, cacheDir });
    expect(first).not.toBe(second);
    expect(sh(second, 'remote', 'get-url', 'origin')).toBe(two.remote);
  });

  it("reports git's line when the first fetch fails, and leaves nothing in the cache", async () => {
    const cacheDir = await dirs.make();
    const missing = join(await dirs.make(), 'no-such-repo.git');
    const error = await ensureMirror({ url: missing, cacheDir }).catch((e) => e);
    expect(error).toBeInstanceOf(RepositoryError);
    expect(error.message).toMatch(/^cannot create the mirror .*\.git: fatal: .*no-such-repo\.git/);
    expect(error.message).not.toContain('\n');
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it('refuses a URL git would read as an option', async () => {
    const cacheDir = await dirs.make();
    await expect(ensureMirror({ url: '--upload-pack=touch pwned', cacheDir })).rejects.toThrow(
      new RepositoryError('not a remote: "--upload-pack=touch pwned"'),
    );
    expect(await readdir(cacheDir)).toEqual([]);
  });
});

describe('worktreeFromMirror', () => {
  it('makes a worktree and branch at a start point or a base commit', async () => {
    const { remote, work } = await remoteRepo();
    const mirror = await ensureMirror({ url: remote, cacheDir: await dirs.make() });
    const main = sh(work, 'rev-parse', 'main');

    const fromRef = join(await dirs.make(), 'a');
    expect(await worktreeFromMirror({ mirror, startPoint: 'v1', branch: 'harmflow/a', path: fromRef })).toEqual({
      path: fromRef,
      branch: 'harmflow/a',
      baseSha: main,
    });
    expect(sh(fromRef, 'symbolic-ref', 'HEAD')).toBe('refs/heads/harmflow/a');
    expect(existsSync(join(fromRef, 'README.md'))).toBe(true);

    const fromSha = join(await dirs.make(), 'b');
    await worktreeFromMirror({ mirror, baseSha: main, branch: 'harmflow/b', path: fromSha });
    expect(sh(fromSha, 'rev-parse', 'HEAD')).toBe(main);
    expect(sh(fromSha, 'status', '--porcelain')).toBe('');
  });

  it('refuses an unknown start point and creates nothing', async () => {
    const { remote } = await remoteRepo();
    const mirror = await ensureMirror({ url: remote, cacheDir: await dirs.make() });
    const path = join(await dirs.make(), 'wt');
    await expect(worktreeFromMirror({ mirror, startPoint: 'origin/nope', branch: 'harmflow/x', path })).rejects.toThrow(
      new RepositoryError(`start point "origin/nope" not found in ${mirror}`),
    );
    expect(existsSync(path)).toBe(false);
    expect(sh(mirror, 'branch', '--list', 'harmflow/x')).toBe('');
  });
});
