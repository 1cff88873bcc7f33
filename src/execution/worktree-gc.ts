/**
 * `collectWorktrees` removes the worktrees of executions that ended more than a retention period ago,
 * and never one that holds work that exists nowhere else. For each ended execution (a final state)
 * whose worktree is still there and whose `endedAt` is at least `retentionMs` old, oldest first:
 *
 * - a live process owns it (a follow-up reopened it, or is about to): kept;
 * - otherwise the collector becomes its owner for the removal (`runs/<id>/owner`), so another process
 *   cannot reopen it meanwhile, and reads its record again: reopened since it was listed → kept;
 * - it holds unsaved work (src/workspace/unsaved-work.ts: uncommitted changes, commits on no remote
 *   and not on the base ref, or a git check that failed) → kept, with why;
 * - else `git worktree remove` (no `--force`: a refusal keeps it, with git's line), and
 *   `runs/<id>/worktree-removed.json` records it; then the execution's own build folders and, for
 *   `caches: private`, its caches (`runs/<id>/caches/`, cache-plan.ts) go with it. The shared caches
 *   stay (`collectCaches` trims them by size).
 *
 * The branch, the run directory and the store's records stay. With `dryRun` nothing is written, no
 * ownership is taken, and removals are reported as `would-remove`. An error on one worktree keeps it
 * (its message is the why) and the others go on. Runs one worktree at a time; `signal` stops it
 * between two.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { describeError } from '../core/errors.js';
import type { HomePaths } from '../core/home.js';
import { FINAL_STATES, STATES } from '../core/outcome.js';
import type { ExecutionRecord, Store } from '../store/store.js';
import { diskUsage } from '../workspace/disk-usage.js';
import { removeTree } from '../workspace/remove-tree.js';
import { removeWorktree } from '../workspace/remove-worktree.js';
import { unsavedWork } from '../workspace/unsaved-work.js';
import { claimOwnership, ownedByLiveProcess, releaseOwnership } from './owner-file.js';
import { writeWorktreeRemoved } from './worktree-removed.js';

/**
 * 7 days: long enough to come back to an execution after a weekend and still find its workspace as
 * it was (build output and ignored files included), short enough that a machine running dozens of
 * executions a day does not keep hundreds of checkouts. Clean, pushed work loses nothing when its
 * worktree goes: the branch stays, and `git worktree add <path> <branch>` brings it back.
 */
export const DEFAULT_WORKTREE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export interface CollectOptions {
  readonly home: HomePaths;
  readonly store: Store;
  /** The time expiry is measured against, epoch ms. */
  readonly now: number;
  /** How long after it ended an execution's worktree is kept, ms (0: from the moment it ended). */
  readonly retentionMs: number;
  /** Report what would go, change nothing. */
  readonly dryRun: boolean;
  /** Stops the collection between two worktrees (the service is closing). */
  readonly signal?: AbortSignal;
}

/** `removed`; `would-remove` in a dry run; `kept`, with why. */
export type GcAction = 'removed' | 'would-remove' | 'kept';

export interface GcEntry {
  readonly id: string;
  readonly taskName: string;
  readonly worktree: string;
  readonly branch: string;
  readonly endedAt: string;
  /** The worktree's bytes before anything was removed; absent when it could not be measured. */
  readonly bytes?: number;
  /** The bytes of the execution's own build folders and caches (`runs/<id>/caches/`), which go with it; absent when none. */
  readonly cachesBytes?: number;
  readonly action: GcAction;
  /** Why a worktree was kept, or what went wrong after one was removed: one line. */
  readonly why?: string;
}

export interface GcReport {
  readonly dryRun: boolean;
  readonly retentionMs: number;
  /** Each expired worktree looked at, oldest ended first. */
  readonly entries: readonly GcEntry[];
  /** Ended executions whose worktree is there but younger than the retention: left alone. */
  readonly notExpired: number;
  /** Bytes of the worktrees removed, with their executions' own caches (or, in a dry run, that would be). */
  readonly reclaimedBytes: number;
}

const ENDED = STATES.filter((state) => FINAL_STATES.has(state));

/** Looks at every ended execution's worktree and removes (or, dry, reports) the expired clean ones. */
export async function collectWorktrees(options: CollectOptions): Promise<GcReport> {
  const { store, now, retentionMs, dryRun, signal } = options;
  const ended = (await store.listExecutions({ states: ENDED })).filter(
    (record): record is ExecutionRecord & { endedAt: string } =>
      record.endedAt !== undefined && existsSync(record.worktree),
  );
  const expired = ended
    .filter((record) => Date.parse(record.endedAt) + retentionMs <= now)
    .sort((a, b) => a.endedAt.localeCompare(b.endedAt));
  const entries: GcEntry[] = [];
  for (const record of expired) {
    if (signal?.aborted) break;
    entries.push(await collectOne(record, options));
  }
  const reclaimedBytes = entries
    .filter((entry) => entry.action !== 'kept')
    .reduce((sum, entry) => sum + (entry.bytes ?? 0) + (entry.cachesBytes ?? 0), 0);
  return { dryRun, retentionMs, entries, notExpired: ended.length - expired.length, reclaimedBytes };
}

async function collectOne(
  record: ExecutionRecord & { endedAt: string },
  { home, store, dryRun }: CollectOptions,
): Promise<GcEntry> {
  const { id, taskName, worktree, branch, endedAt } = record;
  const bytes = await diskUsage(worktree).catch(() => undefined);
  const caches = home.executionCaches(id);
  const cachesBytes = await diskUsage(caches).catch(() => undefined);
  const entry = (action: GcAction, why?: string): GcEntry => ({
    id,
    taskName,
    worktree,
    branch,
    endedAt,
    ...(bytes !== undefined && { bytes }),
    ...(cachesBytes !== undefined && cachesBytes > 0 && { cachesBytes }),
    action,
    ...(why !== undefined && { why }),
  });
  const ownerFile = home.ownerFile(id);
  let owned = false;
  try {
    // No await between the check and the claim: in the service, a follow-up adopting it in between
    // would make this process its owner already, and the claim would not tell.
    if (ownedByLiveProcess(ownerFile)) return entry('kept', 'a live process drives it');
    if (!dryRun) {
      owned = claimOwnership(ownerFile);
      if (!owned) return entry('kept', 'a live process drives it');
    }
    const current = await store.getExecution(id);
    if (current === undefined || !FINAL_STATES.has(current.state) || current.endedAt !== endedAt) {
      return entry('kept', 'reopened by a follow-up');
    }
    const check = await unsavedWork({ worktree, repoRoot: record.repo, baseRef: record.baseRef });
    if (!check.saved) return entry('kept', check.why);
    if (dryRun) return entry('would-remove');
    const removal = await removeWorktree(record.repo, worktree);
    if (!removal.removed) return entry('kept', `git worktree remove refused: ${removal.why}`);
    try {
      const marker = home.worktreeRemovedFile(id);
      mkdirSync(dirname(marker), { recursive: true });
      writeWorktreeRemoved(home, id, { removedAt: new Date().toISOString(), path: worktree, branch, head: check.head });
    } catch (error) {
      return entry('removed', `its record was not written: ${describeError(error)}`);
    }
    try {
      removeTree(caches);
    } catch (error) {
      return entry('removed', `its build folders (${caches}) were not all removed: ${describeError(error)}`);
    }
    return entry('removed');
  } catch (error) {
    return entry('kept', describeError(error));
  } finally {
    if (owned) releaseOwnership(ownerFile);
  }
}
