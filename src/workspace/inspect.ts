/**
 * `inspectWorkspace` reads the state of an execution's worktree: HEAD, uncommitted files, commits
 * since the base, and what the remote holds for the branch. It runs on the harness-switch path,
 * so its git commands run in parallel and none of them is per file; it only reads (no optional
 * locks: it never rewrites the index behind a concurrent git).
 */
import { RepositoryError } from '../core/errors.js';
import { gitOrThrow } from './git.js';
import { GitSha } from './git-sha.js';
import { type RemoteBranch, remoteBranchState } from './remote.js';

export interface InspectInput {
  readonly worktree: string;
  /** The execution's base commit; commits are counted from it. */
  readonly baseSha: string;
  readonly branch: string;
  /** The remote to ask; default: the branch's upstream remote, else `origin`. */
  readonly remote?: string;
}

export interface CommitSummary {
  readonly sha: string;
  readonly subject: string;
}

export interface WorkspaceSnapshot {
  readonly head: string;
  /** Paths (relative to the worktree) that differ from HEAD: staged, unstaged or untracked. */
  readonly changedFiles: string[];
  /** Commits in baseSha..HEAD, oldest first. */
  readonly commits: CommitSummary[];
  /** What the remote holds for the branch; absent when there is no remote or no such branch. */
  readonly remote?: RemoteBranch;
  /** How long the inspection took. */
  readonly durationMs: number;
}

/**
 * Inspects the worktree. Throws RepositoryError when HEAD, status or log cannot be read; the remote
 * part never throws (unknown is absent).
 */
export async function inspectWorkspace(input: InspectInput): Promise<WorkspaceSnapshot> {
  const started = performance.now();
  const { worktree } = input;
  const head = gitOrThrow(worktree, ['rev-parse', '--verify', 'HEAD'], `cannot read HEAD in ${worktree}`).then(
    parseHead,
  );
  const changedFiles = gitOrThrow(
    worktree,
    // --no-renames: a rename lists both paths either way, and detecting it costs time.
    ['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'],
    `cannot read status in ${worktree}`,
  ).then(parseStatus);
  const commits = gitOrThrow(
    worktree,
    ['log', '--reverse', '--no-show-signature', '--format=%H%x00%s', `${input.baseSha}..HEAD`, '--'],
    `cannot list commits in ${worktree}`,
  ).then(parseLog);
  const remote = remoteBranchState(worktree, input.branch, input.remote);
  // All run in parallel; they are awaited in a fixed order so that when several fail, the error
  // reported does not depend on which git finished first.
  await Promise.allSettled([head, changedFiles, commits, remote]);
  const snapshot = { head: await head, changedFiles: await changedFiles, commits: await commits };
  const remoteBranch = await remote;
  return {
    ...snapshot,
    ...(remoteBranch !== undefined && { remote: remoteBranch }),
    durationMs: performance.now() - started,
  };
}

function parseHead(stdout: string): string {
  const sha = GitSha.safeParse(stdout.trim());
  if (!sha.success) throw new RepositoryError(`unexpected HEAD: ${stdout.trim()}`);
  return sha.data;
}

/** Parses `status --porcelain=v1 -z --no-renames`: "XY <path>\0" per entry, paths unquoted. */
function parseStatus(stdout: string): string[] {
  return stdout
    .split('\0')
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3));
}

/** Parses `log --format=%H%x00%s`: one "<sha>\0<subject>" line per commit (a subject has no newline). */
function parseLog(stdout: string): CommitSummary[] {
  const commits: CommitSummary[] = [];
  for (const line of stdout.split('\n')) {
    const separator = line.indexOf('\0');
    const sha = GitSha.safeParse(line.slice(0, separator));
    if (separator > 0 && sha.success) commits.push({ sha: sha.data, subject: line.slice(separator + 1) });
  }
  return commits;
}
