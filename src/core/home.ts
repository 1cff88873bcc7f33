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
  worktree(execution: string): string;
}

/** Resolves the state directory: an explicit path, else $HARMFLOW_HOME, else ~/.harmflow. */
export function harmflowHome(explicit?: string, env: NodeJS.ProcessEnv = process.env): HomePaths {
  const root = resolve(explicit ?? env.HARMFLOW_HOME ?? join(homedir(), '.harmflow'));
  const runDir = (execution: string) => join(root, 'runs', execution);
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
    worktree: (execution) => join(root, 'worktrees', execution),
  };
}
