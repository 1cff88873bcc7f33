/**
 * `restoreRemovedWorktree` brings back the worktree `harmflow gc` removed, for an execution a
 * follow-up reopens: its branch is checked out again at the same path (`git worktree add <path>
 * <branch>`), then `runs/<id>/worktree-removed.json` goes. gc removed only a worktree whose work was
 * all committed and on a remote or the base, so the branch holds everything it had but the ignored
 * files (dependencies, build output), which the harness makes again as it would in a fresh clone.
 * Called by the process that owns the execution, before its first attempt after the reopen.
 */
import { existsSync, rmSync } from 'node:fs';
import { RepositoryError } from '../core/errors.js';
import type { HomePaths } from '../core/home.js';
import type { ExecutionRecord } from '../store/store.js';
import { failureLine, git } from '../workspace/git.js';
import { readWorktreeRemoved } from './worktree-removed.js';

/**
 * Restores the worktree when gc removed it and it is still gone; returns true when it did. Throws
 * RepositoryError `cannot restore worktree <path>: <git's line>` (e.g. the branch was deleted since).
 */
export async function restoreRemovedWorktree(
  home: HomePaths,
  execution: Pick<ExecutionRecord, 'id' | 'repo' | 'branch' | 'worktree'>,
): Promise<boolean> {
  const removed = await readWorktreeRemoved(home, execution.id);
  if (removed === undefined || existsSync(execution.worktree)) return false;
  const added = await git(execution.repo, ['worktree', 'add', execution.worktree, execution.branch]);
  if (added.exitCode !== 0) {
    throw new RepositoryError(`cannot restore worktree ${execution.worktree}: ${failureLine(added)}`);
  }
  rmSync(home.worktreeRemovedFile(execution.id), { force: true });
  return true;
}
