/**
 * `unsavedWork` tells whether a worktree holds work that exists nowhere else, so that removing it
 * would lose something: uncommitted changes (`git status`: staged, unstaged and untracked files;
 * files `.gitignore` excludes are not work), or commits reachable from HEAD that are on no
 * remote-tracking ref and not on the base ref. "On a remote" is what the repository last heard from
 * its remotes (a push or fetch updates `refs/remotes/…`); the remotes are not asked, so the check
 * works offline and never waits for credentials.
 *
 * It only reads (no optional locks). When any git command fails, or the worktree is not a git
 * worktree, the answer is "not saved": a check that could not be made never lets work go.
 */
import { lstat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { failureLine, git } from './git.js';
import { GitSha } from './git-sha.js';

export interface UnsavedWorkInput {
  /** The worktree's absolute path. */
  readonly worktree: string;
  /** The repository's top level: where `baseRef` is resolved. */
  readonly repoRoot: string;
  /** The ref the execution's branch started from (e.g. `main`); commits on it are saved. */
  readonly baseRef: string;
}

/** Saved: nothing would be lost (`head` is the worktree's HEAD). Not saved: `why`, one line. */
export type UnsavedWork =
  | { readonly saved: true; readonly head: string }
  | { readonly saved: false; readonly why: string };

/**
 * Checks the worktree. `why` reads, for example, `2 uncommitted changes (git status)`,
 * `3 commits on no remote and not on main`, both joined with `; `, or
 * `git check failed: <git's line>`.
 */
export async function unsavedWork(input: UnsavedWorkInput): Promise<UnsavedWork> {
  const { worktree, repoRoot, baseRef } = input;
  try {
    await lstat(join(worktree, '.git'));
  } catch (error) {
    return failed(`${worktree} is not a git worktree (${(error as NodeJS.ErrnoException).code ?? 'no .git'})`);
  }
  // A `.git` that is gone must not make git use a repository above the folder it was in.
  const inFolder = (cwd: string, args: readonly string[]) =>
    git(cwd, args, { env: { GIT_CEILING_DIRECTORIES: dirname(cwd) } });
  const inWorktree = (args: readonly string[]) => inFolder(worktree, args);
  // A ref starting with "-" would be read as an option; no ref name can start with one.
  const base = baseRef.startsWith('-')
    ? undefined
    : await inFolder(repoRoot, ['rev-parse', '--verify', '--quiet', `${baseRef}^{commit}`]);
  if (base === undefined || base.exitCode !== 0) {
    const quiet = base === undefined || (base.exitCode === 1 && base.stderr.trim() === '');
    return failed(quiet ? `base ref "${baseRef}" not found in ${repoRoot}` : failureLine(base));
  }
  const baseSha = GitSha.safeParse(base.stdout.trim());
  if (!baseSha.success) return failed(`unexpected sha for ${baseRef}: ${base.stdout.trim()}`);
  const [head, status, unpushed] = await Promise.all([
    inWorktree(['rev-parse', '--verify', 'HEAD']),
    // --untracked-files=normal: an untracked folder is one entry, and git need not walk into it.
    inWorktree(['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=normal', '--no-renames']),
    inWorktree(['rev-list', '--count', 'HEAD', '--not', '--remotes', baseSha.data]),
  ]);
  for (const result of [head, status, unpushed]) if (result.exitCode !== 0) return failed(failureLine(result));
  const headSha = GitSha.safeParse(head.stdout.trim());
  if (!headSha.success) return failed(`unexpected HEAD: ${head.stdout.trim()}`);
  const changes = status.stdout.split('\0').filter((entry) => entry.length > 3).length;
  const commits = Number(unpushed.stdout.trim());
  if (!Number.isSafeInteger(commits)) return failed(`unexpected commit count: ${unpushed.stdout.trim()}`);
  const reasons = [
    changes > 0 && `${plural(changes, 'uncommitted change')} (git status)`,
    commits > 0 && `${plural(commits, 'commit')} on no remote and not on ${baseRef}`,
  ].filter((reason): reason is string => reason !== false);
  return reasons.length === 0 ? { saved: true, head: headSha.data } : { saved: false, why: reasons.join('; ') };
}

function failed(line: string): UnsavedWork {
  return { saved: false, why: `git check failed: ${line}` };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
