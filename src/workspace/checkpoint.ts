/**
 * Checkpoints of an execution's workspace (cluster mode): the worker running an execution pushes
 * its worktree's whole state to the remote, at attempt boundaries and periodically, so that another
 * worker can carry on from it when this one is lost.
 *
 * A checkpoint is one commit on the remote at `refs/harmflow/checkpoints/<execution>` — outside
 * `refs/heads/` and `refs/tags/`, so clones, `git branch -r` and forges' branch lists do not show
 * it. Its tree is the worktree's files as `git add --all` sees them: committed, modified, staged
 * and untracked files; not the files .gitignore excludes. Its first parent is HEAD, so the branch's
 * commits travel with it; its second parent is a commit of the index (its parent HEAD too), so that
 * what was staged is staged again on restore. Not in it: ignored files, stashes, other refs, and an
 * operation in progress (a merge or rebase; a worktree with unmerged paths cannot be checkpointed
 * until they are resolved).
 *
 * The repository keeps, under the same ref name, the checkpoint it last pushed or restored. A push
 * is skipped when the state has not changed since that one, and is made only while the remote
 * still holds that one (`--force-with-lease`), so no push replaces a checkpoint its worker has not
 * seen: once the worker that took over an execution has pushed, the pushes of a worker taken for
 * lost that still runs fail. (Before that, whichever pushes first wins and the other's push fails:
 * a full fence needs the dispatcher's word on who holds the execution.) Calls for one execution
 * must not overlap (the caller serializes them); an overlapping push fails the same way, and loses
 * nothing.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { RepositoryError } from '../core/errors.js';
import { isExecutionId } from '../core/execution-id-shape.js';
import type { CommandResult } from '../proc/run.js';
import { failureLine, git } from './git.js';
import { GitSha } from './git-sha.js';
import { remoteArgument, remoteGit } from './remote-git.js';

/** The identity of checkpoint commits, set so that a machine without a git identity can make them. */
const CHECKPOINT_IDENTITY = {
  GIT_AUTHOR_NAME: 'HarmFlow',
  GIT_AUTHOR_EMAIL: 'checkpoint@harmflow.invalid',
  GIT_COMMITTER_NAME: 'HarmFlow',
  GIT_COMMITTER_EMAIL: 'checkpoint@harmflow.invalid',
};

/** The checkpoint ref of an execution: `refs/harmflow/checkpoints/<execution>`. */
export function checkpointRef(execution: string): string {
  if (!isExecutionId(execution)) throw new RepositoryError(`not an execution id: ${JSON.stringify(execution)}`);
  return `refs/harmflow/checkpoints/${execution}`;
}

export interface PushCheckpointInput {
  /** The execution's worktree (its top level). */
  readonly worktree: string;
  /** The remote's name in the worktree's repository (a mirror's is `origin`), or a URL. */
  readonly remote: string;
  readonly execution: string;
}

export interface PushedCheckpoint {
  /** The checkpoint commit the remote holds now. */
  readonly sha: string;
  /** The worktree's HEAD, the checkpoint's first parent. */
  readonly head: string;
  /** True when the worktree holds uncommitted changes (staged, unstaged or untracked). */
  readonly dirty: boolean;
  /** False when nothing had changed since the last checkpoint, and nothing was pushed. */
  readonly pushed: boolean;
}

/**
 * Records the worktree's state as a checkpoint and pushes it, unless it equals the last one. HEAD,
 * the index and the files are left as they were: the trees are written from a copy of the index in
 * a temporary folder this call owns and removes. Throws RepositoryError `cannot checkpoint
 * <worktree>: <git's line>` or `cannot push checkpoint <ref>: <git's line>` (for a push refused
 * because the remote holds another checkpoint: `! [rejected] <sha> -> <ref> (stale info)`).
 */
export async function pushCheckpoint(input: PushCheckpointInput): Promise<PushedCheckpoint> {
  const ref = checkpointRef(input.execution);
  const remote = remoteArgument(input.remote);
  const { worktree } = input;
  const what = `cannot checkpoint ${worktree}`;
  const [state, last] = await Promise.all([readState(worktree, what), lastCheckpoint(worktree, ref, what)]);
  const dirty = state.tree !== state.headTree || state.indexTree !== state.headTree;
  if (last?.tree === state.tree && last.head === state.head && last.indexTree === state.indexTree) {
    return { sha: last.sha, head: state.head, dirty, pushed: false };
  }
  const subject = `harmflow checkpoint ${input.execution}`;
  const commit = (args: readonly string[]) =>
    run(worktree, ['commit-tree', '--no-gpg-sign', ...args], what, CHECKPOINT_IDENTITY).then(parseSha);
  const index = await commit(['-p', state.head, '-m', `${subject}: the index`, state.indexTree]);
  const sha = await commit(['-p', state.head, '-p', index, '-m', subject, state.tree]);
  // --no-verify: a pre-push hook (a test run, say) is for the user's pushes, not for a snapshot of
  // half-done work taken every few minutes.
  const lease = `--force-with-lease=${ref}:${last?.sha ?? ''}`;
  const pushed = await remoteGit(worktree, ['push', '--quiet', '--no-verify', lease, remote, `${sha}:${ref}`]);
  if (pushed.exitCode !== 0) throw new RepositoryError(`cannot push checkpoint ${ref}: ${pushFailureLine(pushed)}`);
  await run(worktree, ['update-ref', ref, sha, last?.sha ?? ''], what);
  return { sha, head: state.head, dirty, pushed: true };
}

interface WorktreeState {
  readonly head: string;
  readonly headTree: string;
  /** The tree of what is staged. */
  readonly indexTree: string;
  /** The tree of the files, untracked ones included, ignored ones not. */
  readonly tree: string;
}

async function readState(worktree: string, what: string): Promise<WorktreeState> {
  const [[head, headTree], indexPath] = await Promise.all([
    revParse(worktree, ['HEAD', 'HEAD^{tree}'], what),
    run(worktree, ['rev-parse', '--git-path', 'index'], what),
  ]);
  const scratch = await mkdtemp(join(tmpdir(), 'harmflow-checkpoint-'));
  try {
    const env = { GIT_INDEX_FILE: join(scratch, 'index') };
    // A copy of the index, not an empty one: its stat data spares `add` hashing unchanged files.
    await copyFile(resolve(worktree, indexPath.trim()), env.GIT_INDEX_FILE).catch(unlessNoIndex);
    const indexTree = parseSha(await run(worktree, ['write-tree'], what, env));
    await run(worktree, ['add', '--all'], what, env);
    const tree = parseSha(await run(worktree, ['write-tree'], what, env));
    return { head, headTree, indexTree, tree };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** A worktree made with `--no-checkout` has no index yet: an absent index is an empty one. */
function unlessNoIndex(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}

interface LastCheckpoint {
  readonly sha: string;
  readonly tree: string;
  readonly head: string;
  readonly indexTree: string;
}

/** The checkpoint the repository last pushed or restored for `ref`; undefined when none. */
async function lastCheckpoint(worktree: string, ref: string, what: string): Promise<LastCheckpoint | undefined> {
  const listed = await run(worktree, ['for-each-ref', '--format=%(objectname) %(tree) %(parent)', ref], what);
  const [sha, tree, head, index] = listed.trim().split(' ');
  if (sha === undefined || sha === '') return undefined;
  // Anything but a two-parent commit is not one of ours: it never equals the state, so it is replaced.
  if (tree === undefined || head === undefined || index === undefined)
    return { sha, tree: '', head: '', indexTree: '' };
  const [indexTree] = await revParse(worktree, [`${index}^{tree}`], what);
  return { sha, tree, head, indexTree };
}

export interface RestoreCheckpointInput {
  /** The repository the worktree is made in: a worker's mirror (`ensureMirror`). */
  readonly repo: string;
  /** The remote to fetch the checkpoint from: its name in `repo` (a mirror's is `origin`), or a URL. */
  readonly remote: string;
  readonly execution: string;
  /** The branch to check out at the checkpoint's HEAD: created, or reset there when it exists. */
  readonly branch: string;
  /** Where to make the worktree; created with its parents; must not exist or be an empty directory. */
  readonly path: string;
}

export interface RestoredCheckpoint {
  /** The checkpoint commit restored. */
  readonly sha: string;
  /** The commit `branch` now points at and the worktree has checked out. */
  readonly head: string;
  readonly branch: string;
  /** The worktree's absolute path. */
  readonly path: string;
  /** Paths that differ from `head` in the files or the index, sorted: the uncommitted work restored. */
  readonly files: string[];
}

/**
 * Restores the execution's workspace from its checkpoint on the remote: fetches it, makes a
 * worktree at `path` with `branch` at the checkpoint's first parent, then puts the checkpoint's
 * files in it and its index in place. Then the worktree is as the lost one was when checkpointed:
 * the same commits; staged, unstaged and untracked changes as they were (`git status` reads the same).
 *
 * Returns undefined when the remote holds no checkpoint for the execution (the caller falls back to
 * the branch on the remote); then the repository forgets any checkpoint it remembered for it.
 * Throws RepositoryError `cannot restore checkpoint <ref>: <git's line>`; it then leaves no
 * worktree behind and the branch as it was (the fetched checkpoint stays in the repository).
 */
export async function restoreCheckpoint(input: RestoreCheckpointInput): Promise<RestoredCheckpoint | undefined> {
  const ref = checkpointRef(input.execution);
  const remote = remoteArgument(input.remote);
  const { repo, branch } = input;
  const what = `cannot restore checkpoint ${ref}`;
  const listed = await remoteGit(repo, ['ls-remote', remote, ref]);
  if (listed.exitCode !== 0) throw new RepositoryError(`${what}: ${failureLine(listed)}`);
  if (!listed.stdout.split('\n').some((line) => line.split('\t')[1] === ref)) {
    await run(repo, ['update-ref', '-d', ref], what);
    return undefined;
  }
  const fetched = await remoteGit(repo, [
    'fetch',
    '--quiet',
    '--no-tags',
    '--no-write-fetch-head',
    remote,
    `+${ref}:${ref}`,
  ]);
  if (fetched.exitCode !== 0) throw new RepositoryError(`${what}: ${failureLine(fetched)}`);
  const [sha, tree, head, indexTree] = await revParse(
    repo,
    [ref, `${ref}^{tree}`, `${ref}^1`, `${ref}^2^{tree}`],
    what,
  );
  const path = resolve(input.path);
  const previous = await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
  const restoreBranch = () =>
    previous.exitCode === 0
      ? git(repo, ['update-ref', `refs/heads/${branch}`, previous.stdout.trim(), head])
      : git(repo, ['update-ref', '-d', `refs/heads/${branch}`, head]);
  const added = await git(repo, ['worktree', 'add', '--quiet', '--no-checkout', '-B', branch, path, head]);
  if (added.exitCode !== 0) {
    // git may have created or moved the branch before it failed on the path; only while it still
    // points at the checkpoint's HEAD is it put back.
    await restoreBranch();
    throw new RepositoryError(`${what}: ${failureLine(added)}`);
  }
  try {
    await run(path, ['read-tree', '--reset', '-u', tree], what);
    await run(path, ['read-tree', indexTree], what);
    // read-tree leaves the index without the files' stat data: without it, status hashes every file.
    await run(path, ['update-index', '-q', '--refresh'], what);
    const changed = await Promise.all(
      [tree, indexTree].map((to) =>
        run(path, ['diff-tree', '-r', '-z', '--name-only', '--no-renames', head, to], what),
      ),
    );
    const files = [...new Set(changed.flatMap((list) => list.split('\0')).filter((file) => file !== ''))].sort();
    return { sha, head, branch, path, files };
  } catch (error) {
    // The worktree holds nothing but the checkpoint, which the repository and the remote keep.
    await git(repo, ['worktree', 'remove', '--force', path]);
    await restoreBranch();
    throw error;
  }
}

export interface DeleteCheckpointInput {
  /** The repository (or a worktree of it) to push from. */
  readonly repo: string;
  readonly remote: string;
  readonly execution: string;
}

/**
 * Deletes the execution's checkpoint from the remote and from the repository, for when the
 * execution has ended. Deleting a checkpoint that does not exist succeeds. Throws RepositoryError
 * `cannot delete checkpoint <ref>: <git's line>`.
 */
export async function deleteCheckpoint(input: DeleteCheckpointInput): Promise<void> {
  const ref = checkpointRef(input.execution);
  const what = `cannot delete checkpoint ${ref}`;
  const deleted = await remoteGit(input.repo, [
    'push',
    '--quiet',
    '--no-verify',
    remoteArgument(input.remote),
    '--delete',
    ref,
  ]);
  if (deleted.exitCode !== 0) throw new RepositoryError(`${what}: ${pushFailureLine(deleted)}`);
  await run(input.repo, ['update-ref', '-d', ref], what);
}

/**
 * Runs git and returns its stdout; throws RepositoryError `<what>: <git's line>`. The folder's parent
 * is a ceiling: a worktree whose `.git` is gone must not make git use a repository above it.
 */
async function run(
  cwd: string,
  args: readonly string[],
  what: string,
  env: Readonly<Record<string, string>> = {},
): Promise<string> {
  const result = await git(cwd, args, { env: { GIT_CEILING_DIRECTORIES: dirname(cwd), ...env } });
  if (result.exitCode !== 0) throw new RepositoryError(`${what}: ${failureLine(result)}`);
  return result.stdout;
}

/**
 * The object ids `revisions` name, in order (a fixed-length tuple for the caller to destructure).
 * `--` ends them, so a file named like a revision (`HEAD`) is no ambiguity; git echoes it last.
 */
async function revParse<const Revisions extends readonly string[]>(
  cwd: string,
  revisions: Revisions,
  what: string,
): Promise<{ [K in keyof Revisions]: string }> {
  const lines = (await run(cwd, ['rev-parse', ...revisions, '--'], what)).split('\n');
  const shas = revisions.map((_, at) => parseSha(lines[at] ?? ''));
  return shas as { [K in keyof Revisions]: string };
}

function parseSha(text: string): string {
  const sha = GitSha.safeParse(text.trim());
  if (!sha.success) throw new RepositoryError(`unexpected object id from git: ${JSON.stringify(text.trim())}`);
  return sha.data;
}

/** A refused push's line, ` ! [rejected] <src> -> <dst> (<why>)`, with its spacing squeezed; else failureLine. */
function pushFailureLine(result: CommandResult): string {
  const refused = result.stderr.split('\n').find((line) => line.trimStart().startsWith('! '));
  return refused === undefined ? failureLine(result) : refused.trim().replace(/\s+/g, ' ');
}
