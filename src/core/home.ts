/**
 * The state directory (HARMFLOW_HOME, default ~/.harmflow) and the paths inside it. The layout is a
 * contract (ARCHITECTURE.md, "State directory"): change it only with the docs.
 *
 * It is its owner's alone: it holds prompts, transcripts and the API token. The directory is 0700
 * and the files HarmFlow writes in it 0600 (PRIVATE_DIR_MODE, PRIVATE_FILE_MODE), set by the mode
 * each file is opened with — never by changing the process's umask, which the harness processes
 * inherit and would make the user's worktree files with.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Owner only: read, write, enter. The mode of the state directory. */
export const PRIVATE_DIR_MODE = 0o700;

/** Owner only: read, write. The mode of every file HarmFlow writes in the state directory. */
export const PRIVATE_FILE_MODE = 0o600;

/** The bits that give group and others access. */
const SHARED_BITS = 0o077;

/** The sticky bit: a folder many users write in (/tmp), never one to take from them. */
const STICKY_BIT = 0o1000;

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
  /**
   * `forge/`: the fake forge's store (pulls.json), where the pull requests of simulated harnesses
   * are kept, shared by every execution of this state directory as one forge would be.
   */
  readonly forge: string;
  /**
   * `caches/`: the package and build caches every execution whose task says `caches: shared` uses
   * (one folder per tool, docs/worktrees.md "Caches").
   */
  readonly caches: string;
  /**
   * `runs/<execution>/caches/`: the execution's own build folders (Cargo's home and target, Bazel's
   * output root) and, for `caches: private`, its tools' caches; removed with its worktree.
   */
  executionCaches(execution: string): string;
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
    forge: join(root, 'forge'),
    caches: join(root, 'caches'),
    executionCaches: (execution) => join(runDir(execution), 'caches'),
  };
}

/**
 * Makes `dir` (the state directory, or the folder of its database) private: creates it, with any
 * missing parents, mode 0700, or tightens it when it exists (`tighten`).
 */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  tighten(dir);
}

/**
 * Takes group and others' access from `path` (chmod, its other bits kept) when it exists and gives
 * any — silently: only other users lose what they never should have had. A path this process's user
 * does not own, or a shared folder (sticky, as /tmp), is left as it is: it is not HarmFlow's to change.
 */
export function tighten(path: string): void {
  let stat: { mode: number; uid: number };
  try {
    stat = statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const { mode, uid } = stat;
  if ((mode & SHARED_BITS) === 0 || (mode & STICKY_BIT) !== 0 || uid !== process.getuid?.()) return;
  chmodSync(path, mode & 0o7777 & ~SHARED_BITS);
}
