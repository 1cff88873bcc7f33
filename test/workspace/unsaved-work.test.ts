/**
 * `unsavedWork` on real worktrees: saved when everything is committed and on a remote or on the
 * base; not saved, with why, for uncommitted changes (untracked files included, ignored ones not),
 * commits on no remote, and every way the git check can fail.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { unsavedWork } from '../../src/workspace/unsaved-work.js';
import { createWorktree } from '../../src/workspace/worktree.js';
import { commitAll, sh, tempDirs, write } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** A repository pushed to `origin`, and a worktree on a new branch at its `main`. */
async function worktree(): Promise<{ repo: string; path: string }> {
  const repo = await dirs.repo();
  await dirs.remote(repo, 'origin');
  sh(repo, 'push', '-q', 'origin', 'main');
  const path = join(await dirs.make(), 'wt');
  await createWorktree({ repoRoot: repo, baseSha: sh(repo, 'rev-parse', 'HEAD'), branch: 'harmflow/t-1', path });
  return { repo, path };
}

describe('unsavedWork', () => {
  it('is saved at the base with nothing changed, and names HEAD', async () => {
    const { repo, path } = await worktree();
    expect(await unsavedWork({ worktree: path, repoRoot: repo, baseRef: 'main' })).toEqual({
      saved: true,
      head: sh(path, 'rev-parse', 'HEAD'),
    });
  });

  it('is saved once its commits are pushed, and ignored files are not work', async () => {
    const { repo, path } = await worktree();
    await write(path, '.gitignore', 'build/\n');
    await write(path, 'src/a.js', 'export const a = 1;\n');
    commitAll(path, 'add a');
    sh(path, 'push', '-q', 'origin', 'HEAD');
    await write(path, 'build/out.js', 'compiled\n');
    expect(await unsavedWork({ worktree: path, repoRoot: repo, baseRef: 'main' })).toMatchObject({ saved: true });
  });

  it('is saved when its commits are on the base ref though on no remote', async () => {
    const { repo, path } = await worktree();
    await write(path, 'a.txt', 'a\n');
    commitAll(path, 'a');
    sh(repo, 'merge', '-q', '--ff-only', 'harmflow/t-1');
    expect(await unsavedWork({ worktree: path, repoRoot: repo, baseRef: 'main' })).toMatchObject({ saved: true });
  });

  it('counts uncommitted changes: modified, staged and untracked', async () => {
    const { repo, path } = await worktree();
    await write(path, 'README.md', '# changed\n');
    await write(path, 'staged.txt', 'staged\n');
    sh(path, 'add', 'staged.txt');
    await write(path, 'notes/untracked.txt', 'new\n');
    expect(await unsavedWork({ worktree: path, repoRoot: repo, baseRef: 'main' })).toEqual({
      saved: false,
      why: '3 uncommitted changes (git status)',
    });
  });

  it('counts commits on no remote and not on the base, and says both when both hold', async () => {
    const { repo, path } = await worktree();
    await write(path, 'a.txt', 'a\n');
    commitAll(path, 'a');
    expect(await unsavedWork({ worktree: path, repoRoot: repo, baseRef: 'main' })).toEqual({
      saved: false,
      why: '1 commit on no remote and not on main',
    });
    await write(path, 'b.txt', 'b\n');
    commitAll(path, 'b');
    await write(path, 'c.txt', 'c\n');
    expect(await unsavedWork({ worktree: path, repoRoot: repo, baseRef: 'main' })).toEqual({
      saved: false,
      why: '1 uncommitted change (git status); 2 commits on no remote and not on main',
    });
  });

  it('fails safe when the worktree is gone, its .git points nowhere, the base ref or the repository is gone', async () => {
    const { repo, path } = await worktree();
    const check = (input: Partial<Parameters<typeof unsavedWork>[0]>) =>
      unsavedWork({ worktree: path, repoRoot: repo, baseRef: 'main', ...input });

    expect(await check({ baseRef: 'no-such-branch' })).toEqual({
      saved: false,
      why: `git check failed: base ref "no-such-branch" not found in ${repo}`,
    });
    expect(await check({ baseRef: '--all' })).toMatchObject({
      saved: false,
      why: expect.stringMatching(/^git check failed: /),
    });
    expect(await check({ worktree: join(path, 'missing') })).toEqual({
      saved: false,
      why: `git check failed: ${join(path, 'missing')} is not a git worktree (ENOENT)`,
    });
    writeFileSync(join(path, '.git'), 'gitdir: /nonexistent/worktrees/wt\n');
    expect(await check({})).toEqual({
      saved: false,
      why: expect.stringMatching(/^git check failed: fatal: not a git repository: \/nonexistent\/worktrees\/wt$/),
    });
    rmSync(repo, { recursive: true, force: true });
    expect(await check({})).toMatchObject({ saved: false, why: expect.stringMatching(/^git check failed: /) });
  });
});
