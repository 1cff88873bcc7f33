/**
 * What executions take on disk, for the API: `GET /api/executions/:id/disk` (mounted at
 * `/api/executions`; ids already checked by `requireExecutionId`) and `diskOf`, the `include=disk`
 * part of the execution list. Sizes come through the service's `DiskSizes`, so a poll does not walk
 * every tree each time; a tree that cannot be measured is left out of the list, and makes the single
 * route fail. In cluster mode the worktrees are on the workers: the route answers 409.
 */
import { Hono } from 'hono';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import type { HomePaths } from '../../core/home.js';
import { type ExecutionDisk, executionDisk } from '../../execution/execution-disk.js';
import type { DiskSizes } from '../../service/disk-sizes.js';
import type { ExecutionRecord, Store } from '../../store/store.js';

export interface DiskRoutesOptions {
  readonly home: HomePaths;
  readonly store: Store;
  readonly sizes: DiskSizes;
  /** Cluster mode: the executions' worktrees and run directories are on the workers, not here. */
  readonly cluster?: boolean;
}

/** Returns the sub-app serving `GET /:id/disk`: `{ worktreeBytes, runBytes, worktreeRemovedAt? }`. */
export function diskRoutes({ home, store, sizes, cluster = false }: DiskRoutesOptions): Hono {
  const routes = new Hono();
  routes.get('/:id/disk', async (c) => {
    const id = c.req.param('id');
    const execution = await store.getExecution(id);
    if (execution === undefined) throw new NotFoundError(`no execution ${id}`);
    if (cluster) {
      throw new ConflictError(
        `execution ${id}'s worktree is on the worker that drives it: its disk use is not measured here`,
      );
    }
    return c.json(await executionDisk(home, execution, sizes.bytes));
  });
  return routes;
}

/** Each listed execution's id mapped to what it takes on disk; one that cannot be measured is left out. */
export async function diskOf(
  home: HomePaths,
  executions: readonly ExecutionRecord[],
  sizes: DiskSizes,
): Promise<Record<string, ExecutionDisk>> {
  const disks = await Promise.all(
    executions.map((execution) => executionDisk(home, execution, sizes.bytes).catch(() => undefined)),
  );
  return Object.fromEntries(
    executions.flatMap((execution, at) => (disks[at] === undefined ? [] : [[execution.id, disks[at]]])),
  );
}
