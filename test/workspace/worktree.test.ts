import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RepositoryError } from '../../src/core/errors.js';
import { createWorktree } from '../../src/workspace/worktree.js';
import { commitAll, sh, tempDirs, write } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('createWorktree', () => {
  it('creates the branch at the base commit and checks it out at a new nested path', async () => {
    const repo = await dirs.repo();
    const baseSha = sh(repo, 'rev-parse', 'HEAD');
    await write(repo, 'later.txt', 'after the base\n');
    commitAll(repo, 'after base');
    const path = join(await dirs.make(), 'worktrees', 'exec-1');
    const branch = 'harmflow/fix-bug-01';

    const worktree = await createWorktree({ repoRoot: repo, baseSha, branch, path });

    expect(worktree).toEqual({ path, branch, baseSha });
    expect(sh(path, 'rev-parse', 'HEAD')).toBe(baseSha);
    expect(sh(path, 'symbolic-ref', 'HEAD')).toBe(`refs/heads/${branch}`);
    expect(sh(repo, 'rev-parse', `refs/heads/${branch}`)).toBe(baseSha);
    expect(existsSync(join(path, 'README.md'))).toBe(true);
    expect(existsSync(join(path, 'later.txt'))).toBe(false);
    expect(sh(path, 'status', '--porcelain')).toBe('');
    expect(sh(repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${path}\n`);
  });

  it('refuses a branch that already exists, naming it, and creates nothing', async () => {
    const repo = await dirs.repo();
    const baseSha = sh(repo, 'rev-parse', 'HEAD');
    sh(repo, 'branch', 'taken');
    const path = join(await dirs.make(), 'wt');
    await expect(createWorktree({ repoRoot: repo, baseSha, branch: 'taken', path })).rejects.toThrow(
      new RepositoryError(`branch "taken" already exists in ${repo}`),
    );
    expect(existsSync(path)).toBe(false);
  });

  it("reports git's reason when the worktree cannot be created, and leaves no branch behind", async () => {
    const repo = await dirs.repo();
    const baseSha = sh(repo, 'rev-parse', 'HEAD');
    const path = await dirs.make();
    await write(path, 'occupied.txt', 'x');
    const error = await createWorktree({ repoRoot: repo, baseSha, branch: 'harmflow/x', path }).catch((e) => e);
    expect(error).toBeInstanceOf(RepositoryError);
    expect(error.message).toMatch(new RegExp(`^cannot create worktree ${path}: fatal: .*already exists$`));
    expect(sh(repo, 'branch', '--list', 'harmflow/x')).toBe('');
    expect(sh(repo, 'worktree', 'list', '--porcelain')).not.toContain(path);
  });
});
