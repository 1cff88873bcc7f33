/**
 * Creates an execution: its id, its git worktree on a new branch `harmflow/<task>-<id>` made from
 * the base, its run directory, its one deadline, and its rows in the store, in state `running` (it
 * starts now) or `queued` (it waits for admission; its deadline is set again when it starts).
 * Called only after the task's preflight passed, so bad input creates nothing. The calling process
 * becomes the execution's owner (owner-file.ts) and releases it when it stops driving it.
 *
 * The rows (task, execution and the submit's idempotency key, if any) are inserted in one
 * transaction, last: when that fails — the key was taken by a submit racing with this one
 * (SubmitKeyTakenError), or the store refused — the worktree, its branch and the run directory are
 * removed again, so that nothing is left of an execution the store does not have.
 */
import { mkdirSync, rmdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { HomePaths } from '../core/home.js';
import { newExecutionId } from '../core/ids.js';
import { storedTask, type Task, withGitIdentity } from '../core/task.js';
import type { ExecutionRecord, Store, SubmitKey, TaskRecord } from '../store/store.js';
import { git } from '../workspace/git.js';
import { removeWorktree } from '../workspace/remove-worktree.js';
import { createWorktree } from '../workspace/worktree.js';
import { claimOwnership, releaseOwnership } from './owner-file.js';
import type { Preflight } from './preflight.js';

export interface NewExecution {
  readonly id: string;
  /** The task as stored with the execution: with the git identity its harnesses commit with (Preflight). */
  readonly task: Task;
  readonly branch: string;
  readonly worktree: string;
  /** Epoch ms when it started, and of its one deadline. */
  readonly started: number;
  readonly deadline: number;
  /** Its execution record as inserted. */
  readonly record: ExecutionRecord;
}

/** Creates the execution (see the module comment); `key` is recorded with it when given. */
export async function createExecution(
  task: Task,
  checked: Preflight,
  home: HomePaths,
  store: Store,
  state: 'queued' | 'running',
  key?: SubmitKey,
): Promise<NewExecution> {
  const id = newExecutionId();
  const branch = executionBranch(task, id);
  const worktree = home.worktree(id);
  const started = Date.now();
  mkdirSync(home.runDir(id), { recursive: true });
  claimOwnership(home.ownerFile(id));
  mkdirSync(dirname(worktree), { recursive: true });
  await createWorktree({ repoRoot: checked.repoRoot, baseSha: checked.baseSha, branch, path: worktree });

  const identified = withGitIdentity(task, checked.gitIdentity);
  const records = executionRecordOf(identified, {
    id,
    repo: checked.repoRoot,
    baseSha: checked.baseSha,
    worktree,
    runDir: home.runDir(id),
    state,
    started,
  });
  try {
    await store.insertSubmission(records, key);
  } catch (error) {
    await discardWorkspace(checked, branch, worktree);
    releaseOwnership(home.ownerFile(id));
    removeEmptyDir(home.runDir(id));
    throw error;
  }
  return {
    id,
    task: identified,
    branch,
    worktree,
    started,
    deadline: started + task.timeoutMs,
    record: records.execution,
  };
}

/**
 * Removes a worktree just made, and its branch, which hold no work yet: `git worktree remove`
 * (never forced: git refuses a worktree with changes), then the branch only while it points at the
 * base, as createWorktree removes one left behind.
 */
async function discardWorkspace(checked: Preflight, branch: string, worktree: string): Promise<void> {
  const removal = await removeWorktree(checked.repoRoot, worktree);
  if (removal.removed) await git(checked.repoRoot, ['update-ref', '-d', `refs/heads/${branch}`, checked.baseSha]);
}

/** Removes `dir` if it is empty (a run directory nothing was written to); keeps it otherwise. */
function removeEmptyDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty, or already gone: nothing to remove on doubt.
  }
}

/** The branch an execution works on: `harmflow/<task>-<id>`. */
function executionBranch(task: Task, id: string): string {
  return `harmflow/${task.name}-${id}`;
}

/** Where a new execution's records say it is, besides what its task says. */
export interface ExecutionPlacement {
  readonly id: string;
  /** The repository as the execution's record names it: a local top level, or a URL (cluster mode). */
  readonly repo: string;
  readonly baseSha: string;
  readonly worktree: string;
  readonly runDir: string;
  readonly state: 'queued' | 'running';
  /** Epoch ms of its creation; its one deadline is this plus the task's timeout. */
  readonly started: number;
}

/**
 * The task row (id `<execution>-task`) and the execution row of a new execution, in `state`, on
 * the branch `executionBranch` names, with no attempt yet. Pure: the caller inserts them, the task first.
 */
export function executionRecordOf(
  task: Task,
  placement: ExecutionPlacement,
): { readonly task: TaskRecord; readonly execution: ExecutionRecord } {
  const { id, started, state } = placement;
  const taskId = `${id}-task`;
  return {
    task: { id: taskId, name: task.name, definition: storedTask(task), createdAt: iso(started) },
    execution: {
      id,
      taskId,
      taskName: task.name,
      repo: placement.repo,
      baseRef: task.baseRef,
      baseSha: placement.baseSha,
      branch: executionBranch(task, id),
      worktree: placement.worktree,
      runDir: placement.runDir,
      state,
      createdAt: iso(started),
      ...(state === 'running' && { startedAt: iso(started) }),
      deadline: iso(started + task.timeoutMs),
      attemptCount: 0,
      turnCount: 0,
    },
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
