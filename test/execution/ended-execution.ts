/**
 * An execution that has ended, made without running one: a real worktree on a new branch at the
 * repository's `main` (under the state directory, as the engine makes it), a run directory with a
 * history, and its records in the store — what `harmflow gc`, `ls` and the API find after a run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { HomePaths } from '../../src/core/home.js';
import { newExecutionId } from '../../src/core/ids.js';
import type { ExecutionState } from '../../src/core/outcome.js';
import type { ExecutionRecord, Store } from '../../src/store/store.js';
import { createWorktree } from '../../src/workspace/worktree.js';
import { git } from './fixture.js';

export interface EndedOptions {
  readonly home: HomePaths;
  readonly store: Store;
  /** The repository's top level; the branch starts at its `main`. */
  readonly repo: string;
  readonly taskName: string;
  /** When it ended. */
  readonly endedAt: Date;
  /** Default `succeeded`. */
  readonly state?: ExecutionState;
}

export async function endedExecution(options: EndedOptions): Promise<ExecutionRecord> {
  const { home, store, repo, taskName, endedAt, state = 'succeeded' } = options;
  const id = newExecutionId();
  const branch = `harmflow/${taskName}-${id}`;
  const baseSha = git(repo, 'rev-parse', 'main');
  mkdirSync(home.runDir(id), { recursive: true });
  writeFileSync(home.eventsFile(id), `${JSON.stringify({ ts: endedAt.toISOString(), execution: id })}\n`);
  await createWorktree({ repoRoot: repo, baseSha, branch, path: home.worktree(id) });
  const createdAt = new Date(endedAt.getTime() - 60_000).toISOString();
  await store.insertTask({ id: `${id}-task`, name: taskName, definition: { prompt: 'Do it.' }, createdAt });
  const record: ExecutionRecord = {
    id,
    taskId: `${id}-task`,
    taskName,
    repo,
    baseRef: 'main',
    baseSha,
    branch,
    worktree: home.worktree(id),
    runDir: home.runDir(id),
    state,
    createdAt,
    startedAt: createdAt,
    endedAt: endedAt.toISOString(),
    deadline: endedAt.toISOString(),
    attemptCount: 1,
  };
  await store.insertExecution(record);
  return record;
}
