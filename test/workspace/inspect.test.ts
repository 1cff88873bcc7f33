import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RepositoryError } from '../../src/core/errors.js';
import { inspectWorkspace } from '../../src/workspace/inspect.js';
import { createWorktree } from '../../src/workspace/worktree.js';
import { commitAll, sh, tempDirs, write } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const branch = 'harmflow/task-01';

/** A repository (with the given remotes) and a fresh worktree on `branch` at its HEAD. */
async function setup(remotes: string[] = []) {
  const repo = await dirs.repo();
  await write(repo, 'src/keep.ts', 'keep\n');
  await write(repo, 'src/gone.ts', 'gone\n');
  const baseSha = commitAll(repo, 'base');
  const bare: Record<string, string> = {};
  for (const name of remotes) bare[name] = await dirs.remote(repo, name);
  const worktree = join(await dirs.make(), 'wt');
  await createWorktree({ repoRoot: repo, baseSha, branch, path: worktree });
  return { repo, baseSha, worktree, bare };
}

describe('inspectWorkspace', () => {
  it('reports a fresh worktree: head at the base, nothing changed, no commits, no remote', async () => {
    const { baseSha, worktree } = await setup();
    const snapshot = await inspectWorkspace({ worktree, baseSha, branch });
    expect(snapshot).toEqual({ head: baseSha, changedFiles: [], commits: [], durationMs: expect.any(Number) });
    expect(snapshot).not.toHaveProperty('remote');
    expect(snapshot.durationMs).toBeGreaterThan(0);
  });

  it('lists uncommitted files: modified, staged, deleted, untracked (also in new directories), names with spaces', async () => {
    const { baseSha, worktree } = await setup();
    await write(worktree, 'src/keep.ts', 'changed\n');
    await rm(join(worktree, 'src/gone.ts'));
    await write(worktree, 'staged file.ts', 'new\n');
    sh(worktree, 'add', 'staged file.ts');
    await write(worktree, 'notes/deep/new file.md', 'untracked\n');
    await write(worktree, 'naïve "quoted".txt', 'untracked\n');
    const { changedFiles } = await inspectWorkspace({ worktree, baseSha, branch });
    expect([...changedFiles].sort()).toEqual(
      ['naïve "quoted".txt', 'notes/deep/new file.md', 'src/gone.ts', 'src/keep.ts', 'staged file.ts'].sort(),
    );
  });

  it('lists both paths of a staged rename', async () => {
    const { baseSha, worktree } = await setup();
    sh(worktree, 'mv', 'src/keep.ts', 'src/moved.ts');
    const { changedFiles } = await inspectWorkspace({ worktree, baseSha, branch });
    expect([...changedFiles].sort()).toEqual(['src/keep.ts', 'src/moved.ts']);
  });

  it('lists the commits since the base, oldest first, and the new head', async () => {
    const { baseSha, worktree } = await setup();
    await write(worktree, 'a.txt', 'a\n');
    const first = commitAll(worktree, 'feat: first — with “unicode”');
    await write(worktree, 'b.txt', 'b\n');
    const second = commitAll(worktree, 'fix: second');
    const snapshot = await inspectWorkspace({ worktree, baseSha, branch });
    expect(snapshot.head).toBe(second);
    expect(snapshot.commits).toEqual([
      { sha: first, subject: 'feat: first — with “unicode”' },
      { sha: second, subject: 'fix: second' },
    ]);
    expect(snapshot.changedFiles).toEqual([]);
  });

  it('reports the origin branch as absent before a push and at the pushed commit after', async () => {
    const { baseSha, worktree } = await setup(['origin']);
    await write(worktree, 'a.txt', 'a\n');
    const pushed = commitAll(worktree, 'one');
    expect((await inspectWorkspace({ worktree, baseSha, branch })).remote).toBeUndefined();

    sh(worktree, 'push', '-q', 'origin', branch);
    await write(worktree, 'b.txt', 'b\n');
    commitAll(worktree, 'two, not pushed');
    const snapshot = await inspectWorkspace({ worktree, baseSha, branch });
    expect(snapshot.remote).toEqual({ remote: 'origin', branch, sha: pushed, source: 'ls-remote' });
  });

  it('prefers the upstream remote over origin, with the upstream branch name', async () => {
    const { baseSha, worktree } = await setup(['origin', 'fork']);
    await write(worktree, 'a.txt', 'a\n');
    const head = commitAll(worktree, 'one');
    sh(worktree, 'push', '-q', '-u', 'fork', `${branch}:review/task-01`);
    const snapshot = await inspectWorkspace({ worktree, baseSha, branch });
    expect(snapshot.remote).toEqual({ remote: 'fork', branch: 'review/task-01', sha: head, source: 'ls-remote' });
  });

  it('asks the remote it is given', async () => {
    const { baseSha, worktree } = await setup(['origin', 'mirror']);
    sh(worktree, 'push', '-q', 'mirror', branch);
    expect((await inspectWorkspace({ worktree, baseSha, branch })).remote).toBeUndefined();
    expect((await inspectWorkspace({ worktree, baseSha, branch, remote: 'mirror' })).remote).toEqual({
      remote: 'mirror',
      branch,
      sha: baseSha,
      source: 'ls-remote',
    });
  });

  it('falls back to the remote-tracking ref when the remote cannot be reached', async () => {
    const { baseSha, worktree, bare } = await setup(['origin']);
    await write(worktree, 'a.txt', 'a\n');
    const head = commitAll(worktree, 'one');
    sh(worktree, 'push', '-q', 'origin', branch);
    const origin = bare.origin ?? '';
    await rename(origin, `${origin}.away`);
    const snapshot = await inspectWorkspace({ worktree, baseSha, branch });
    expect(snapshot.remote).toEqual({ remote: 'origin', branch, sha: head, source: 'tracking-ref' });

    sh(worktree, 'update-ref', '-d', `refs/remotes/origin/${branch}`);
    expect((await inspectWorkspace({ worktree, baseSha, branch })).remote).toBeUndefined();
  });

  it('throws RepositoryError for a worktree that is not there', async () => {
    const missing = join(await dirs.make(), 'gone');
    const error = await inspectWorkspace({ worktree: missing, baseSha: '0'.repeat(40), branch }).catch((e) => e);
    expect(error).toBeInstanceOf(RepositoryError);
    expect(error.message).toBe(`cannot read HEAD in ${missing}: working directory not found: ${missing}`);
  });
});
