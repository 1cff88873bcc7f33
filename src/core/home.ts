/**
 * The state directory (HARMFLOW_HOME, default ~/.harmflow) and the paths inside it. The layout is a
 * contract (ARCHITECTURE.md, "State directory"): change it only with the docs.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface HomePaths {
  readonly root: string;
  readonly database: string;
  runDir(execution: string): string;
  eventsFile(execution: string): string;
  contextFile(execution: string): string;
  attemptDir(execution: string, attempt: number): string;
  queueFile(execution: string): string;
  ownerFile(execution: string): string;
  endedMarker(execution: string): string;
  /** `runs/<execution>/worktree-removed.json`: written when `harmflow gc` removed the worktree. */
  worktreeRemovedFile(execution: string): string;
  /** The folder every execution's worktree is made in: `worktrees/`. */
  readonly worktrees: string;
  /** The folder every execution's run directory is made in: `runs/`. */
  readonly runs: string;
  worktree(execution: string): string;
}

/** Resolves the state directory: an explicit path, else $HARMFLOW_HOME, else ~/.harmflow. */
export function harmflowHome(explicit?: string, env: NodeJS.ProcessEnv = process.env): HomePaths {
  const root = resolve(explicit ?? env.HARMFLOW_HOME ?? join(homedir(), '.harmflow'));
  const runs = join(root, 'runs');
  const worktrees = join(root, 'worktrees');
  const runDir = (execution: string) => join(runs, execution);
  return {
    root,
    database: join(root, 'harmflow.db'),
    runDir,
    eventsFile: (execution) => join(runDir(execution), 'events.jsonl'),
    contextFile: (execution) => join(runDir(execution), 'context.json'),
    attemptDir: (execution, attempt) => join(runDir(execution), 'attempts', String(attempt)),
    queueFile: (execution) => join(runDir(execution), 'queue.json'),
    ownerFile: (execution) => join(runDir(execution), 'owner'),
    endedMarker: (execution) => join(runDir(execution), 'ended'),
    worktreeRemovedFile: (execution) => join(runDir(execution), 'worktree-removed.json'),
    worktrees,
    runs,
    worktree: (execution) => join(worktrees, execution),
  };
}
