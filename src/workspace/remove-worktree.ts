/**
 * `removeWorktree` removes a linked worktree the way a person would: `git worktree remove <path>`
 * run in its repository, never with `--force`. git itself refuses a worktree with modified or
 * untracked files, a locked one, or one with submodules; the refusal comes back as git's line and
 * nothing is touched. Files `.gitignore` excludes go with the worktree; the branch stays.
 */
import { failureLine, git } from './git.js';

export type WorktreeRemoval = { readonly removed: true } | { readonly removed: false; readonly why: string };

/** Removes the worktree at `path` from the repository at `repoRoot`, or says why git would not. */
export async function removeWorktree(repoRoot: string, path: string): Promise<WorktreeRemoval> {
  const result = await git(repoRoot, ['worktree', 'remove', path]);
  return result.exitCode === 0 ? { removed: true } : { removed: false, why: failureLine(result) };
}
