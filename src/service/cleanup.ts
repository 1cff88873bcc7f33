/**
 * `WorktreeCleanup` runs the worktree collector (src/execution/worktree-gc.ts) inside the service,
 * and after it, given `cacheLimitBytes`, the shared caches' (src/execution/cache-gc.ts, which never
 * removes a cache while a harness uses it, this service's own included):
 * once at `start()`, then every `intervalMs`, and at once when admission finds free disk below its
 * floor (`lowDisk()`, at most once per `lowDiskGapMs`: while the disk stays low admission measures
 * every few seconds, and a run that found nothing to remove will not find more a moment later).
 *
 * One run at a time: a trigger while one runs joins it. Each removal is one line through `log`, as
 * is a run that failed; what is kept is not logged (it would repeat every hour; `harmflow gc
 * --dry-run` says why). After a run that removed something, `onReclaimed` is called (the service
 * re-measures admission's disk) and the sizes cache forgets the removed trees.
 *
 * The service owns one instance; `close()` stops the timer, asks a run in progress to stop after the
 * worktree it is on, and waits for it, so the store can close after it. `close()` is idempotent.
 */
import { formatBytes } from '../core/bytes.js';
import { describeError } from '../core/errors.js';
import type { HomePaths } from '../core/home.js';
import { collectCaches } from '../execution/cache-gc.js';
import { collectWorktrees, type GcReport } from '../execution/worktree-gc.js';
import type { Store } from '../store/store.js';
import type { DiskSizes } from './disk-sizes.js';

/**
 * 1 hour: worktrees expire after days, so an hour late costs nothing, and a run that finds nothing
 * to remove costs one store query and a `stat` per ended execution.
 */
export const CLEANUP_INTERVAL_MS = 60 * 60 * 1000;

/** 5 minutes: the least time between two runs asked for by low disk (see the module comment). */
export const LOW_DISK_CLEANUP_GAP_MS = 5 * 60 * 1000;

export interface CleanupOptions {
  readonly home: HomePaths;
  readonly store: Store;
  /** How long after it ended an execution's worktree is kept, ms. */
  readonly retentionMs: number;
  /** The shared caches' limit, bytes; absent: they are left alone. */
  readonly cacheLimitBytes?: number;
  /** Where notices go, one line each, without the newline. */
  readonly log: (line: string) => void;
  /** Called after a run that removed at least one worktree. */
  readonly onReclaimed?: () => void;
  /** The service's sizes cache: removed trees are forgotten. */
  readonly sizes?: DiskSizes;
  readonly intervalMs?: number;
  readonly lowDiskGapMs?: number;
  readonly now?: () => number;
}

export class WorktreeCleanup {
  readonly #options: CleanupOptions;
  readonly #now: () => number;
  readonly #stopping = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<GcReport | undefined> | undefined;
  #lastLowDisk = Number.NEGATIVE_INFINITY;
  #closed = false;

  constructor(options: CleanupOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Runs once now, then every `intervalMs` (an unref'd timer: it never keeps the process up). */
  start(): void {
    if (this.#closed || this.#timer !== undefined) return;
    void this.run();
    this.#timer = setInterval(() => void this.run(), this.#options.intervalMs ?? CLEANUP_INTERVAL_MS);
    this.#timer.unref();
  }

  /** Admission found free disk below its floor: runs now, unless a low-disk run started within the gap. */
  lowDisk(): void {
    const now = this.#now();
    if (now - this.#lastLowDisk < (this.#options.lowDiskGapMs ?? LOW_DISK_CLEANUP_GAP_MS)) return;
    this.#lastLowDisk = now;
    void this.run();
  }

  /**
   * Runs the collector (or joins the run in progress); resolves with its report, or undefined after
   * `close()` or when the run failed (then logged).
   */
  run(): Promise<GcReport | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    this.#running ??= this.#collect().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Stops the timer and waits for a run in progress to stop after its current worktree. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      clearInterval(this.#timer);
      this.#stopping.abort();
    }
    await this.#running;
  }

  async #collect(): Promise<GcReport | undefined> {
    const { home, store, retentionMs, log, sizes } = this.#options;
    try {
      const report = await collectWorktrees({
        home,
        store,
        now: this.#now(),
        retentionMs,
        dryRun: false,
        signal: this.#stopping.signal,
      });
      const removed = report.entries.filter((entry) => entry.action === 'removed');
      for (const entry of removed) {
        sizes?.forget(entry.worktree);
        const size = entry.bytes === undefined ? '' : `, ${formatBytes(entry.bytes)}`;
        log(
          `gc: removed the worktree of ${entry.id} (${entry.taskName}${size}; ended ${entry.endedAt})${entry.why ? `: ${entry.why}` : ''}`,
        );
      }
      const cachesRemoved = await this.#collectCaches();
      if (removed.length > 0 || cachesRemoved > 0) this.#options.onReclaimed?.();
      return report;
    } catch (error) {
      log(`gc: failed: ${describeError(error)}`);
      return undefined;
    }
  }

  /**
   * Trims the shared caches to the limit; returns how many tool folders went. A run that found them
   * in use says nothing: it would say so every hour while executions run.
   */
  async #collectCaches(): Promise<number> {
    const { home, cacheLimitBytes, log, sizes } = this.#options;
    if (cacheLimitBytes === undefined || this.#stopping.signal.aborted) return 0;
    const report = await collectCaches({ home, limitBytes: cacheLimitBytes, dryRun: false });
    const removed = report.entries.filter((entry) => entry.action === 'removed');
    for (const entry of removed) {
      sizes?.forget(entry.path);
      log(
        `gc: removed the shared ${entry.tool} cache (${formatBytes(entry.bytes)}; written ${entry.writtenAt}): the caches were over ${formatBytes(cacheLimitBytes)}${entry.why ? `: ${entry.why}` : ''}`,
      );
    }
    return removed.length;
  }
}
