/**
 * `createWorktree` makes an execution's workspace: a new branch at the base commit, checked out in
 * its own git worktree. The worktree belongs to the execution from then on; removing it is not this
 * module's job.
 */
import { resolve } from 'node:path';
import { RepositoryError } from '../core/errors.js';
import { failureLine, git } from './git.js';

export interface WorktreeSpec {
  /** The repository's top level (`Repository.root`). */
  readonly repoRoot: string;
  /** The commit the branch starts at (`Repository.baseSha`). */
  readonly baseSha: string;
  /** The branch to create, e.g. `harmflow/<task>-<id>`; it must not exist yet. */
  readonly branch: string;
  /** Where to check it out; created with its parents; must not exist or be an empty directory. */
  readonly path: string;
}

export interface Worktree {
  /** The absolute path of the worktree. */
  readonly path: string;
  readonly branch: string;
  readonly baseSha: string;
}

/**
 * Creates `branch` at `baseSha` and checks it out at `path` (`git worktree add -b`). Throws
 * RepositoryError `branch "<branch>" already exists in <root>` (before touching anything), or
 * `cannot create worktree <path>: <git's fatal line>` (after removing the branch git created).
 */
export async function createWorktree(spec: WorktreeSpec): Promise<Worktree> {
  const path = resolve(spec.path);
  const existing = await git(spec.repoRoot, ['rev-parse', '--verify', '--quiet', `refs/heads/${spec.branch}`]);
  if (existing.exitCode === 0) throw new RepositoryError(`branch "${spec.branch}" already exists in ${spec.repoRoot}`);
  const added = await git(spec.repoRoot, ['worktree', 'add', '-b', spec.branch, path, spec.baseSha]);
  if (added.exitCode !== 0) {
    // git creates the branch before it checks the path, and leaves it behind when the worktree
    // fails. Remove it, but only while it still points at the base: then it holds no work.
    await git(spec.repoRoot, ['update-ref', '-d', `refs/heads/${spec.branch}`, spec.baseSha]);
    throw new RepositoryError(`cannot create worktree ${path}: ${failureLine(added)}`);
  }
  return { path, branch: spec.branch, baseSha: spec.baseSha };
}
