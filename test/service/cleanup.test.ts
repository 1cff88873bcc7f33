/**
 * The service's worktree cleanup on a real repository and state directory: it runs at start, logs
 * one line per removal, tells admission to measure again, forgets the removed tree's size, runs for
 * low disk at most once per gap, and closes idempotently after the run in progress.
 */
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_WORKTREE_RETENTION_MS } from '../../src/execution/worktree-gc.js';
import { LOW_DISK_CLEANUP_GAP_MS, WorktreeCleanup } from '../../src/service/cleanup.js';
import { DiskSizes } from '../../src/service/disk-sizes.js';
import { endedExecution } from '../execution/ended-execution.js';
import { type Bench, makeBench } from '../execution/fixture.js';

const DAY_MS = 86_400_000;

let bench: Bench;
let cleanup: WorktreeCleanup | undefined;
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  await cleanup?.close();
  await bench.cleanup();
});

const expired = (taskName: string) =>
  endedExecution({
    home: bench.home,
    store: bench.store,
    repo: bench.repo,
    taskName,
    endedAt: new Date(Date.now() - 8 * DAY_MS),
  });

describe('WorktreeCleanup', () => {
  it('removes expired clean worktrees at start, one line each, and has admission measure again', async () => {
    const first = await expired('first');
    const measured: string[] = [];
    const sizes = new DiskSizes({
      measure: async (path) => {
        measured.push(path);
        return 1;
      },
    });
    await sizes.bytes(first.worktree);
    const lines: string[] = [];
    let reclaimed = 0;
    cleanup = new WorktreeCleanup({
      home: bench.home,
      store: bench.store,
      retentionMs: DEFAULT_WORKTREE_RETENTION_MS,
      log: (line) => lines.push(line),
      sizes,
      onReclaimed: () => {
        reclaimed += 1;
      },
    });

    cleanup.start();
    await cleanup.run();

    expect(existsSync(first.worktree)).toBe(false);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(`^gc: removed the worktree of ${first.id} \\(first, [\\d.]+ [KM]iB; ended ${first.endedAt}\\)$`),
      ),
    ]);
    expect(reclaimed).toBe(1);
    await sizes.bytes(first.worktree);
    expect(measured).toEqual([first.worktree, first.worktree]);

    // Nothing more to remove: no line, no re-measure.
    await cleanup.run();
    expect(lines).toHaveLength(1);
    expect(reclaimed).toBe(1);
    await cleanup.close();
    await cleanup.close();
    expect(await cleanup.run()).toBeUndefined();
  });

  it('runs for low disk at once, then not again within the gap', async () => {
    let now = Date.now();
    let runs = 0;
    // The store, counting the runs: each one starts by listing the ended executions.
    const store = new Proxy(bench.store, {
      get: (target, name) => {
        const value = Reflect.get(target, name, target).bind(target);
        if (name !== 'listExecutions') return value;
        return (...args: Parameters<typeof target.listExecutions>) => {
          runs += 1;
          return value(...args);
        };
      },
    });
    cleanup = new WorktreeCleanup({
      home: bench.home,
      store,
      retentionMs: DEFAULT_WORKTREE_RETENTION_MS,
      log: () => {},
      now: () => now,
    });
    const first = await expired('first');

    cleanup.lowDisk();
    expect(runs).toBe(1);
    await cleanup.run(); // joins the run in progress
    expect(runs).toBe(1);
    expect(existsSync(first.worktree)).toBe(false);

    now += LOW_DISK_CLEANUP_GAP_MS - 1;
    cleanup.lowDisk();
    expect(runs).toBe(1);
    now += 1;
    cleanup.lowDisk();
    expect(runs).toBe(2);
  });
});
