/**
 * The branch a base ref names, for the gates that guard it (a push to `main` when the execution
 * started from `main`). Read from the repository, never guessed from the ref's spelling.
 */
import { git } from './git.js';

/**
 * The short name of the branch `ref` resolves to in `repo`: `refs/heads/main` and
 * `refs/remotes/origin/main` both give `main`; `HEAD` gives the branch checked out. Undefined for a
 * tag, a commit, a detached HEAD, or when git cannot tell.
 */
export async function baseBranchOf(repo: string, ref: string): Promise<string | undefined> {
  const result = await git(repo, ['rev-parse', '--symbolic-full-name', ref]);
  if (result.exitCode !== 0) return undefined;
  const full = result.stdout.trim();
  if (full.startsWith('refs/heads/')) return full.slice('refs/heads/'.length);
  const remote = /^refs\/remotes\/[^/]+\/(.+)$/.exec(full);
  return remote?.[1];
}
