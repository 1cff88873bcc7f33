/**
 * Makes an execution's workspace on the machine of the worker that took it (cluster mode): the
 * execution's records were made by a node without a checkout (create-records.ts), or its last
 * worker was lost, and its work lives on the remote — as a checkpoint (checkpoint.ts), as its
 * pushed branch, or not yet at all. The worktree is made from this machine's mirror of the
 * repository (mirror.ts) at `home.worktree(id)`, the run directory at `home.runDir(id)`, and the
 * execution's record is pointed at both.
 *
 * Calls for one execution must not overlap: only the worker holding the execution's lease calls.
 */
import { mkdir, readdir, realpath, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RepositoryError } from '../core/errors.js';
import type { HomePaths } from '../core/home.js';
import type { ExecutionRecord, Store } from '../store/store.js';
import { checkpointRef, restoreCheckpoint } from '../workspace/checkpoint.js';
import { failureLine, git } from '../workspace/git.js';
import { ensureMirror, worktreeFromMirror } from '../workspace/mirror.js';
import { remoteGit } from '../workspace/remote-git.js';

export interface MaterializeInput {
  /** The execution, as the store holds it; `repo` is the URL its mirror is kept for. */
  readonly record: ExecutionRecord;
  /** This machine's state directory. */
  readonly home: HomePaths;
  /** This machine's folder of mirrors (ensureMirror). */
  readonly cacheDir: string;
  /** The store the record is updated in. */
  readonly store: Store;
}

/** Where the workspace came from. */
export type RestoredFrom =
  /** This machine already had the execution's worktree, not older than the remote's checkpoint. */
  | 'local'
  /** The remote's checkpoint: commits and uncommitted work of the last worker. */
  | 'checkpoint'
  /** The execution's branch as an earlier attempt pushed it, with no checkpoint. */
  | 'branch'
  /** A new branch at the execution's base commit: no worker has pushed anything of it. */
  | 'base';

export interface MaterializedWorkspace {
  /** The worktree's absolute path on this machine, on the execution's branch. */
  readonly worktree: string;
  /** The run directory's absolute path on this machine. */
  readonly runDir: string;
  readonly restored: RestoredFrom;
  /** For a checkpoint: the paths with uncommitted work restored, sorted. */
  readonly files?: readonly string[];
}

/**
 * Makes (or finds) the execution's workspace on this machine and records its paths in the store
 * (`worktree`, `runDir`). In order:
 * - the worktree already exists here, on the execution's branch: kept as it is (`local`), unless
 *   the remote holds a checkpoint this machine's mirror has neither pushed nor restored (another
 *   worker carried the execution on since): then RepositoryError `the worktree <path> is older than
 *   the checkpoint on the remote …`, and nothing is touched — its work is not thrown away on doubt;
 * - the mirror is made or updated (ensureMirror); the remote has a checkpoint of the execution: it is
 *   restored on `record.branch` (`checkpoint`, with the restored `files`);
 * - the remote has `record.branch`: a worktree at it (`branch`);
 * - else a new branch `record.branch` at `record.baseSha` (`base`).
 * A path at `home.worktree(id)` that is not the execution's worktree (other than an empty folder)
 * is RepositoryError `<path> exists but is not the worktree of execution <id>`; so is the branch
 * already in the mirror without a worktree (`branch "<branch>" already exists in <mirror>`). Every
 * git failure is a RepositoryError of one line. When anything fails after the worktree was made,
 * the worktree is removed, the mirror's branch put back as it was and the run directory this call
 * made removed, and the error is rethrown (a store error as the store threw it).
 */
export async function materializeWorkspace(input: MaterializeInput): Promise<MaterializedWorkspace> {
  const { record, home, store } = input;
  const path = home.worktree(record.id);
  const runDir = home.runDir(record.id);
  if (await isExecutionWorktree(path, record)) {
    await refuseIfStale(path, record.id);
    await mkdir(runDir, { recursive: true });
    await store.updateExecution(record.id, { worktree: path, runDir });
    return { worktree: path, runDir, restored: 'local' };
  }

  const mirror = await ensureMirror({ url: record.repo, cacheDir: input.cacheDir });
  const previous = await commitOf(mirror, `refs/heads/${record.branch}`);
  const made = await makeWorktree(mirror, path, record);
  try {
    const madeRunDir = await mkdir(runDir, { recursive: true });
    try {
      await store.updateExecution(record.id, { worktree: made.worktree, runDir });
    } catch (error) {
      if (madeRunDir !== undefined) await rm(madeRunDir, { recursive: true, force: true });
      throw error;
    }
  } catch (error) {
    await git(mirror, ['worktree', 'remove', '--force', made.worktree]);
    const ref = `refs/heads/${record.branch}`;
    // Only while the branch still points where this call put it is it put back.
    await git(
      mirror,
      previous === undefined ? ['update-ref', '-d', ref, made.head] : ['update-ref', ref, previous, made.head],
    );
    throw error;
  }
  return {
    worktree: made.worktree,
    runDir,
    restored: made.restored,
    ...(made.files !== undefined && { files: made.files }),
  };
}

interface MadeWorktree {
  readonly worktree: string;
  /** The commit the branch points at now. */
  readonly head: string;
  readonly restored: Exclude<RestoredFrom, 'local'>;
  readonly files?: readonly string[];
}

/** The worktree from the checkpoint, else the pushed branch, else the base; each cleans up after itself. */
async function makeWorktree(mirror: string, path: string, record: ExecutionRecord): Promise<MadeWorktree> {
  const { branch } = record;
  const restored = await restoreCheckpoint({ repo: mirror, remote: 'origin', execution: record.id, branch, path });
  if (restored !== undefined) {
    return { worktree: restored.path, head: restored.head, restored: 'checkpoint', files: restored.files };
  }
  const pushed = await commitOf(mirror, `refs/remotes/origin/${branch}`);
  const made =
    pushed === undefined
      ? await worktreeFromMirror({ mirror, baseSha: record.baseSha, branch, path })
      : await worktreeFromMirror({ mirror, startPoint: pushed, branch, path });
  return { worktree: made.path, head: made.baseSha, restored: pushed === undefined ? 'base' : 'branch' };
}

/** The commit `ref` (a full ref name) points at in `repo`, or undefined when there is no such ref. */
async function commitOf(repo: string, ref: string): Promise<string | undefined> {
  const found = await git(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  return found.exitCode === 0 ? found.stdout.trim() : undefined;
}

/**
 * True when `path` is a worktree's top level with the execution's branch checked out; false when
 * nothing (or an empty folder) is there; RepositoryError when something else is.
 */
async function isExecutionWorktree(path: string, record: ExecutionRecord): Promise<boolean> {
  const entries = await readdir(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (entries.length === 0) return false;
  // The parent is a ceiling: a folder that is no repository must not be taken for one above it.
  const env = { GIT_CEILING_DIRECTORIES: dirname(path) };
  const [top, head] = await Promise.all([
    git(path, ['rev-parse', '--show-toplevel'], { env }),
    git(path, ['symbolic-ref', '--quiet', 'HEAD'], { env }),
  ]);
  const isTop = top.exitCode === 0 && (await realpath(top.stdout.trim())) === (await realpath(path));
  if (isTop && head.exitCode === 0 && head.stdout.trim() === `refs/heads/${record.branch}`) return true;
  throw new RepositoryError(`${path} exists but is not the worktree of execution ${record.id}`);
}

/**
 * Throws when the remote holds a checkpoint of the execution other than the one the worktree's
 * repository last pushed or restored: the worktree is behind another worker's work.
 */
async function refuseIfStale(worktree: string, execution: string): Promise<void> {
  const ref = checkpointRef(execution);
  const listed = await remoteGit(worktree, ['ls-remote', 'origin', ref]);
  if (listed.exitCode !== 0) throw new RepositoryError(`cannot read checkpoint ${ref}: ${failureLine(listed)}`);
  const remote = listed.stdout
    .split('\n')
    .find((line) => line.split('\t')[1] === ref)
    ?.split('\t')[0];
  if (remote === undefined) return;
  const known = await git(worktree, ['rev-parse', '--verify', '--quiet', ref]);
  if (known.exitCode === 0 && known.stdout.trim() === remote) return;
  throw new RepositoryError(
    `the worktree ${worktree} is older than the checkpoint on the remote (another worker carried the execution on): move it away to restore the checkpoint`,
  );
}
