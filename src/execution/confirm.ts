/**
 * What of an attempt's operations HarmFlow counts as done. An operation counts only when its tool
 * call's result said it succeeded (the exit status its harness reported) **and**, for commits and
 * pushes, the workspace after the attempt shows it: the commit is on the branch, the remote branch
 * holds what was pushed. Everything else the attempt tried is kept as `tried`, with its exit code,
 * the line that says why it failed, and why it is not counted — never dropped, never passed on as
 * done. Pure: the caller inspects the workspace and asks the remotes.
 */
import type { OperationData } from '../events/schema.js';
import type { RemoteBranch } from '../workspace/remote.js';
import type { Commit, PullRequest, Push, TestRun, TriedOperation } from './context-schema.js';

/** The workspace after the attempt, as far as confirming needs it. */
export interface AfterAttempt {
  /** Commits on the branch since the base, oldest first; absent when the workspace could not be inspected. */
  readonly commits?: readonly Commit[];
  readonly head?: string;
  /** What each remote branch the attempt pushed to holds now (key: `pushTargetKey`); absent: holds nothing or did not answer. */
  readonly remotes: ReadonlyMap<string, RemoteBranch>;
  /** The execution's branch and the remote it goes to when a push names neither. */
  readonly branch: string;
  readonly defaultRemote?: string;
}

/** The facts one work item's operations leave, once confirmed. */
export interface ConfirmedWork {
  readonly commits: Commit[];
  readonly push?: Push;
  readonly pullRequest?: PullRequest;
  readonly testRuns: TestRun[];
  readonly filesChanged: string[];
  readonly tried: TriedOperation[];
}

/** Where a push went: its remote and branch, as the push named them or as a bare `git push` sends them. */
export function pushTarget(
  operation: Extract<OperationData, { kind: 'push' }>,
  branch: string,
  defaultRemote: string | undefined,
): { remote: string; branch: string } | undefined {
  const remote = operation.remote ?? defaultRemote;
  return remote === undefined ? undefined : { remote, branch: operation.branch ?? branch };
}

export function pushTargetKey(target: { remote: string; branch: string }): string {
  return `${target.remote}\u0000${target.branch}`;
}

/** Confirms `operations` (one work item's, in order) against the workspace after the attempt. */
export function confirmOperations(operations: readonly OperationData[], after: AfterAttempt): ConfirmedWork {
  const commits: Commit[] = [];
  const testRuns: TestRun[] = [];
  const files = new Set<string>();
  const tried: TriedOperation[] = [];
  let push: Push | undefined;
  let pullRequest: PullRequest | undefined;
  for (const operation of operations) {
    switch (operation.kind) {
      case 'file_change':
        for (const file of operation.files) files.add(file);
        break;
      case 'commit': {
        const why = failure(operation) ?? butNot(operation, commitMissing(operation, after));
        const found = why === undefined ? commitOnBranch(operation, after) : undefined;
        if (found === undefined) tried.push(triedOf(operation, why ?? 'not on the branch'));
        else if (!commits.some((known) => known.sha === found.sha)) commits.push(found);
        break;
      }
      case 'push': {
        const target = pushTarget(operation, after.branch, after.defaultRemote);
        const held = target && after.remotes.get(pushTargetKey(target));
        const why = failure(operation) ?? butNot(operation, pushMissing(operation, target, held, after));
        if (why === undefined && target !== undefined && held !== undefined) {
          push = { remote: target.remote, branch: target.branch, sha: held.sha, observed: held.source };
        } else tried.push(triedOf(operation, why ?? 'the remote does not hold it'));
        break;
      }
      case 'pull_request': {
        const { url, number } = operation;
        const why = failure(operation) ?? (url === undefined ? 'printed no pull request URL' : undefined);
        if (why === undefined && url !== undefined) pullRequest = { url, ...(number !== undefined && { number }) };
        else tried.push(triedOf(operation, why ?? 'printed no pull request URL'));
        break;
      }
      case 'test_run':
        testRuns.push({
          command: operation.command,
          passed: operation.passed,
          ...(operation.exitCode !== undefined && { exitCode: operation.exitCode }),
          ...(operation.counts && { counts: operation.counts }),
        });
        break;
    }
  }
  return {
    commits,
    ...(push && { push }),
    ...(pullRequest && { pullRequest }),
    testRuns,
    filesChanged: [...files],
    tried,
  };
}

type Tryable = Extract<OperationData, { kind: 'commit' | 'push' | 'pull_request' }>;

/** How the why of a call its harness said failed begins (`failed (exit 128)`); every other why is the workspace's. */
const FAILED = 'failed';

/** Why a call that its harness said failed is not done: `failed (exit 128)`. */
function failure(operation: Tryable): string | undefined {
  if (operation.ok) return undefined;
  return `${FAILED}${operation.exitCode !== undefined ? ` (exit ${operation.exitCode})` : ''}`;
}

/** True for a tried operation its harness reported done (it did not fail) that the workspace does not show. */
export function reportedDone(operation: TriedOperation): boolean {
  return !operation.why.startsWith(FAILED);
}

/** `exited 0, but <missing>`: a call that succeeded by its result, which the workspace does not show. */
function butNot(operation: Tryable, missing: string | undefined): string | undefined {
  if (missing === undefined) return undefined;
  const said = operation.exitCode !== undefined ? `exited ${operation.exitCode}` : 'succeeded by its harness';
  return `${said}, but ${missing}`;
}

function triedOf(operation: Tryable, why: string): TriedOperation {
  return {
    kind: operation.kind,
    command: operation.command,
    ...(operation.exitCode !== undefined && { exitCode: operation.exitCode }),
    ...(operation.error !== undefined && { error: operation.error }),
    why,
  };
}

/** The branch's commit a successful `git commit` made: by the sha git printed, else by its subject. */
function commitOnBranch(
  operation: Extract<OperationData, { kind: 'commit' }>,
  after: AfterAttempt,
): Commit | undefined {
  const commits = after.commits ?? [];
  const { sha, subject } = operation;
  if (sha !== undefined) return commits.find((commit) => commit.sha.startsWith(sha));
  return subject === undefined ? undefined : commits.findLast((commit) => commit.subject === subject);
}

function commitMissing(operation: Extract<OperationData, { kind: 'commit' }>, after: AfterAttempt): string | undefined {
  if (after.commits === undefined) return 'the workspace could not be inspected to confirm it';
  if (commitOnBranch(operation, after) !== undefined) return undefined;
  return operation.sha !== undefined
    ? `its commit ${operation.sha.slice(0, 7)} is not on the branch after the attempt`
    : 'no commit with its subject is on the branch after the attempt';
}

/**
 * Why a push that exited 0 is not confirmed: the remote holds no such branch, or holds a commit that
 * is not the pushed one nor one after it on the execution's branch.
 */
function pushMissing(
  operation: Extract<OperationData, { kind: 'push' }>,
  target: { remote: string; branch: string } | undefined,
  held: RemoteBranch | undefined,
  after: AfterAttempt,
): string | undefined {
  if (after.commits === undefined) return 'the workspace could not be inspected to confirm it';
  if (target === undefined) return `${after.branch} is on no remote after the attempt`;
  const where = `${target.remote}/${target.branch}`;
  if (held === undefined) return `${where} does not exist on the remote after the attempt`;
  const commits = after.commits ?? [];
  const heldAt = commits.findIndex((commit) => commit.sha === held.sha);
  if (operation.sha !== undefined) {
    const pushedAt = commits.findIndex((commit) => commit.sha.startsWith(operation.sha as string));
    if (held.sha.startsWith(operation.sha) || (pushedAt >= 0 && heldAt >= pushedAt)) return undefined;
    return `${where} holds ${held.sha.slice(0, 7)}, not the pushed ${operation.sha.slice(0, 7)}`;
  }
  if (heldAt >= 0 || held.sha === after.head) return undefined;
  return `${where} holds ${held.sha.slice(0, 7)}, which is not on the execution's branch`;
}
