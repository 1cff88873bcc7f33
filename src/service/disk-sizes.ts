/**
 * `DiskSizes` remembers how much disk each tree under HARMFLOW_HOME takes, for `ttlMs`, so the
 * Workbench polling the execution list every 2 s, the detail page and admission's status share one
 * walk per tree instead of each walking every worktree again. Sizes are at most `ttlMs` old; a
 * caller that changed a tree (gc removing a worktree) calls `forget` for it. Calls for a path being
 * measured share that measurement. A failed measurement is not kept. The service owns one instance;
 * it holds no timer and no handle, so there is nothing to close.
 */
import { resolve } from 'node:path';
import type { Measure } from '../execution/execution-disk.js';
import { diskUsage } from '../workspace/disk-usage.js';

/**
 * 30 s: a worktree's size changes as its harness works, but nobody reads a size to the megabyte
 * second by second; at 30 s the Executions screen's 2 s poll walks each live worktree once in 15
 * polls. A walk of a checkout with a large node_modules costs hundreds of milliseconds of file-system
 * calls (docs/worktrees.md, "Disk use").
 */
export const DISK_SIZES_TTL_MS = 30_000;

interface Entry {
  readonly at: number;
  readonly bytes: Promise<number>;
}

export class DiskSizes {
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #measure: Measure;

  constructor(options: { ttlMs?: number; now?: () => number; measure?: Measure } = {}) {
    this.#ttlMs = options.ttlMs ?? DISK_SIZES_TTL_MS;
    this.#now = options.now ?? Date.now;
    this.#measure = options.measure ?? diskUsage;
  }

  /** The bytes the tree at `path` takes, measured at most `ttlMs` ago. */
  readonly bytes: Measure = (path) => {
    const key = resolve(path);
    const now = this.#now();
    const known = this.#entries.get(key);
    if (known !== undefined && now - known.at < this.#ttlMs) return known.bytes;
    this.#sweep(now);
    const bytes = this.#measure(key);
    const entry = { at: now, bytes };
    this.#entries.set(key, entry);
    bytes.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return bytes;
  };

  /** Drops what is known of `path`: the next call measures it again. */
  forget(path: string): void {
    this.#entries.delete(resolve(path));
  }

  /** Drops expired entries, so paths nobody asks for any more (executions deleted) do not pile up. */
  #sweep(now: number): void {
    for (const [key, entry] of this.#entries) if (now - entry.at >= this.#ttlMs) this.#entries.delete(key);
  }
}
