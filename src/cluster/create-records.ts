/**
 * Creates an execution's records on a node that has no checkout of its repository (cluster mode:
 * the API node). The repository is named by URL; its base ref is pinned to a commit by asking the
 * remote (`git ls-remote`), and the task and execution rows are inserted as `createExecution` makes
 * them (the same branch `harmflow/<task>-<id>`, state `queued`, one deadline) — except that the
 * execution has no workspace yet: its `worktree` and `runDir` are NOT_MATERIALIZED until the worker
 * that takes it makes them on its own machine (materialize.ts). Nothing is written to disk.
 */
import { tmpdir } from 'node:os';
import { isAbsolute } from 'node:path';
import { RepositoryError } from '../core/errors.js';
import { newExecutionId } from '../core/ids.js';
import { isRepositoryUrl } from '../core/repository-url.js';
import type { Task } from '../core/task.js';
import { executionRecordOf } from '../execution/create.js';
import type { ExecutionRecord, Store, SubmitKey } from '../store/store.js';
import { failureLine } from '../workspace/git.js';
import { GitSha } from '../workspace/git-sha.js';
import { remoteGit } from '../workspace/remote-git.js';

/**
 * The `worktree` and `runDir` of an execution no worker has made a workspace for yet. Empty: both
 * stores take an empty string in these NOT NULL columns, and no real path is empty.
 */
export const NOT_MATERIALIZED = '';

/**
 * 30 s for `git ls-remote`, derived, not measured here: it moves only the remote's ref list (a
 * request and one reply; about 100 kB for a repository with a thousand refs), which takes seconds
 * even over a slow link with TLS and authentication. It runs while an API request waits, so a
 * remote that does not answer fails the request well before a client or proxy gives up (60 s is
 * common).
 */
export const LS_REMOTE_TIMEOUT_MS = 30_000;

/** True when no worker has made the execution's workspace yet (see NOT_MATERIALIZED). */
export function isMaterialized(record: Pick<ExecutionRecord, 'worktree'>): boolean {
  return record.worktree !== NOT_MATERIALIZED;
}

/**
 * Pins `task.baseRef` to a commit of `task.repo` and inserts the task and execution rows, the
 * execution `queued`, its workspace NOT_MATERIALIZED and its `repo` the URL as given. `task.repo`
 * is a URL git can fetch from (`https://…`, `ssh://…`, `git@host:path`, `file://…`) or an absolute
 * path (a repository on a disk every worker sees, or a test's). Returns the execution record.
 *
 * The base ref: a full object id (40 or 64 lowercase hex digits) is taken as is, unchecked (only a
 * clone could check it; the worker that makes the workspace does); `HEAD` is the remote's HEAD;
 * any other name resolves as `git rev-parse` would resolve it in a clone, among the remote's refs:
 * a full name (`refs/…`) itself, then `refs/<ref>`, then `refs/tags/<ref>` (an annotated tag to its commit), then `refs/heads/<ref>`.
 * An abbreviated id is not resolved. Throws RepositoryError of one line — `not a repository URL or
 * absolute path: <repo>`, `cannot read the refs of <url>: <git's line>` (unreachable remote, a
 * timeout) or `base ref "<ref>" not found in <url>`, the URL without credentials — and then nothing
 * is inserted. The task and execution rows go in one transaction, with `key` when given
 * (Store.insertSubmission): SubmitKeyTakenError, inserting nothing, when another execution has the
 * key; a store failure rejects as the store rejects, inserting nothing.
 */
export async function createClusterExecution(task: Task, store: Store, key?: SubmitKey): Promise<ExecutionRecord> {
  if (!isRepositoryUrl(task.repo) && !isAbsolute(task.repo))
    throw new RepositoryError(`not a repository URL or absolute path: ${task.repo}`);
  const baseSha = await resolveRemoteRef(task.repo, task.baseRef);
  const records = executionRecordOf(task, {
    id: newExecutionId(),
    repo: task.repo,
    baseSha,
    worktree: NOT_MATERIALIZED,
    runDir: NOT_MATERIALIZED,
    state: 'queued',
    started: Date.now(),
  });
  await store.insertSubmission(records, key);
  return records.execution;
}

async function resolveRemoteRef(url: string, baseRef: string): Promise<string> {
  if (GitSha.safeParse(baseRef).success) return baseRef;
  const notFound = new RepositoryError(`base ref "${baseRef}" not found in ${withoutCredentials(url)}`);
  // A ref starting with "-" would be read as an option; no ref name can start with one.
  if (baseRef.startsWith('-') || url.startsWith('-')) throw notFound;
  const candidates =
    baseRef === 'HEAD'
      ? ['HEAD']
      : [
          ...(baseRef.startsWith('refs/') ? [baseRef] : []),
          `refs/${baseRef}`,
          `refs/tags/${baseRef}`,
          `refs/heads/${baseRef}`,
        ];
  // `<ref>^{}` asks for an annotated tag's commit too (ls-remote shows it only when asked).
  const patterns = candidates.flatMap((name) => [name, `${name}^{}`]);
  // Run outside any repository: the URL alone says where to look.
  const listed = await remoteGit(tmpdir(), ['ls-remote', '--', url, ...patterns], LS_REMOTE_TIMEOUT_MS);
  if (listed.exitCode !== 0) {
    throw new RepositoryError(`cannot read the refs of ${withoutCredentials(url)}: ${failureLine(listed)}`);
  }
  const refs = new Map<string, string>();
  for (const line of listed.stdout.split('\n')) {
    const [sha, name] = line.split('\t');
    if (sha !== undefined && name !== undefined && GitSha.safeParse(sha).success) refs.set(name, sha);
  }
  for (const name of candidates) {
    const sha = refs.get(`${name}^{}`) ?? refs.get(name);
    if (sha !== undefined) return sha;
  }
  throw notFound;
}

/** The URL with any user name and password left out, for messages; other forms as they are. */
function withoutCredentials(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return url;
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//');
  }
}
