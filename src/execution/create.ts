/**
 * Creates an execution: its id, its git worktree on a new branch `harmflow/<task>-<id>` made from
 * the base, its run directory, its one deadline, and its rows in the store, in state `running` (it
 * starts now) or `queued` (it waits for admission; its deadline is set again when it starts).
 * Called only after the task's preflight passed, so bad input creates nothing. The calling process
 * becomes the execution's owner (owner-file.ts) and releases it when it stops driving it.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { HomePaths } from '../core/home.js';
import { newExecutionId } from '../core/ids.js';
import { storedTask, type Task, withGitIdentity } from '../core/task.js';
import type { ExecutionRecord, Store, TaskRecord } from '../store/store.js';
import { createWorktree } from '../workspace/worktree.js';
import { claimOwnership } from './owner-file.js';
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
}

export async function createExecution(
  task: Task,
  checked: Preflight,
  home: HomePaths,
  store: Store,
  state: 'queued' | 'running',
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
  await store.insertTask(records.task);
  await store.insertExecution(records.execution);
  return { id, task: identified, branch, worktree, started, deadline: started + task.timeoutMs };
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
    },
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
