/**
 * What the fake forge learns from the git repository in its cwd, as `gh` does: the repository's name
 * (the directory of its main checkout, so every worktree of one repository names the same one), the
 * current branch, and the default base branch.
 */
import { spawnSync } from 'node:child_process';
import { basename, dirname } from 'node:path';
import { ForgeError } from './store.js';

function git(args: readonly string[], cwd: string): string | undefined {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** The repository's name: `repo` for `/x/repo/.git` (any worktree of it) and `/x/repo.git` (bare). */
export function repoName(cwd: string): string {
  const common = git(['rev-parse', '--path-format=absolute', '--git-common-dir'], cwd);
  if (common === undefined) {
    throw new ForgeError('failed to run git: fatal: not a git repository (or any of the parent directories): .git');
  }
  return basename(common) === '.git' ? basename(dirname(common)) : basename(common).replace(/\.git$/, '');
}

/** The checked-out branch; throws when HEAD is detached. */
export function currentBranch(cwd: string): string {
  const branch = git(['symbolic-ref', '--quiet', '--short', 'HEAD'], cwd);
  if (branch === undefined) throw new ForgeError('could not determine the current branch: HEAD is detached');
  return branch;
}

/** The base a new pull request targets by default: origin's HEAD branch when known, else `main`. */
export function defaultBase(cwd: string): string {
  const ref = git(['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD'], cwd);
  return ref?.replace(/^origin\//, '') ?? 'main';
}
