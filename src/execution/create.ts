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
import { storedTask, type Task } from '../core/task.js';
import type { Store } from '../store/store.js';
import { createWorktree } from '../workspace/worktree.js';
import { claimOwnership } from './owner-file.js';
import type { Preflight } from './preflight.js';

export interface NewExecution {
  readonly id: string;
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
  const branch = `harmflow/${task.name}-${id}`;
  const worktree = home.worktree(id);
  const started = Date.now();
  const deadline = started + task.timeoutMs;
  mkdirSync(home.runDir(id), { recursive: true });
  claimOwnership(home.ownerFile(id));
  mkdirSync(dirname(worktree), { recursive: true });
  await createWorktree({ repoRoot: checked.repoRoot, baseSha: checked.baseSha, branch, path: worktree });

  const taskId = `${id}-task`;
  await store.insertTask({ id: taskId, name: task.name, definition: storedTask(task), createdAt: iso(started) });
  await store.insertExecution({
    id,
    taskId,
    taskName: task.name,
    repo: checked.repoRoot,
    baseRef: task.baseRef,
    baseSha: checked.baseSha,
    branch,
    worktree,
    runDir: home.runDir(id),
    state,
    createdAt: iso(started),
    ...(state === 'running' && { startedAt: iso(started) }),
    deadline: iso(deadline),
    attemptCount: 0,
  });
  return { id, branch, worktree, started, deadline };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
