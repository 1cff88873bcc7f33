/**
 * The disk an execution takes under HARMFLOW_HOME — its worktree and its run directory — and the
 * totals over the whole state directory (worktrees, run directories, the shared caches), which
 * admission shows and names when free disk runs low. Sizes come
 * from a `Measure` (src/workspace/disk-usage.ts, or a cache of it in the service); this module only
 * says what to measure.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HomePaths } from '../core/home.js';
import type { ExecutionRecord } from '../store/store.js';
import { diskUsage } from '../workspace/disk-usage.js';
import { CACHE_TOOLS, type CacheTool } from './cache-plan.js';
import { readWorktreeRemoved } from './worktree-removed.js';

/** Bytes the tree at a path takes on disk, 0 when there is none (see `diskUsage`). */
export type Measure = (path: string) => Promise<number>;

export interface ExecutionDisk {
  /** The worktree's bytes; 0 once it is gone. */
  readonly worktreeBytes: number;
  /** The run directory's bytes (history, context, the harness's raw output). */
  readonly runBytes: number;
  /** When `harmflow gc` removed the worktree, ISO 8601; absent while it has not. */
  readonly worktreeRemovedAt?: string;
}

/** What `execution` takes on disk now. Rejects when a tree cannot be read (EACCES): the size is unknown. */
export async function executionDisk(
  home: HomePaths,
  execution: Pick<ExecutionRecord, 'id' | 'worktree' | 'runDir'>,
  measure: Measure = diskUsage,
): Promise<ExecutionDisk> {
  const [worktreeBytes, runBytes, removed] = await Promise.all([
    measure(execution.worktree),
    measure(execution.runDir),
    readWorktreeRemoved(home, execution.id),
  ]);
  return { worktreeBytes, runBytes, ...(removed !== undefined && { worktreeRemovedAt: removed.removedAt }) };
}

export interface StateDisk {
  /** Bytes under `worktrees/`. */
  readonly worktreesBytes: number;
  /** Bytes under `runs/` (with the executions' own build folders and private caches). */
  readonly runsBytes: number;
  /** Bytes of the shared caches: every tool's folder under `caches/`. */
  readonly cachesBytes: number;
  /** The same, tool by tool (0 for a tool with no folder). */
  readonly caches: Readonly<Record<CacheTool, number>>;
}

/**
 * Bytes under the state directory's `worktrees/` and `runs/`, summed over their entries (one per
 * execution, so a cached `measure` shares its work with `executionDisk`), and of each shared cache.
 */
export async function stateDisk(home: HomePaths, measure: Measure = diskUsage): Promise<StateDisk> {
  const [[worktreesBytes, runsBytes], toolBytes] = await Promise.all([
    Promise.all([home.worktrees, home.runs].map((dir) => sumOf(dir, measure))),
    Promise.all(CACHE_TOOLS.map((tool) => measure(join(home.caches, tool)))),
  ]);
  const caches = Object.fromEntries(CACHE_TOOLS.map((tool, at) => [tool, toolBytes[at] ?? 0])) as Record<
    CacheTool,
    number
  >;
  return {
    worktreesBytes: worktreesBytes ?? 0,
    runsBytes: runsBytes ?? 0,
    cachesBytes: toolBytes.reduce((sum, bytes) => sum + bytes, 0),
    caches,
  };
}

async function sumOf(dir: string, measure: Measure): Promise<number> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  const sizes = await Promise.all(names.map((name) => measure(join(dir, name))));
  return sizes.reduce((sum, size) => sum + size, 0);
}
