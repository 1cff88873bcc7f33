/**
 * `GET /api/harnesses`: each harness CLI on the service's PATH, its version, whether it is verified,
 * and what the quota registry knows of it: one entry per account (`''` the real one, `sim:<scenario>`
 * a simulated one), with `outUntil` while it counts as out (`estimated` when no reset was given).
 */
import { Hono } from 'hono';
import { HARNESS_NAMES } from '../../core/outcome.js';
import { readQuotaStatuses } from '../../execution/quota.js';
import { findHarness } from '../../harnesses/install.js';
import type { Store } from '../../store/store.js';

/** Returns the sub-app serving `GET /`; `searchPath` is the PATH the service runs harnesses from. */
export function harnessRoutes(searchPath: string, store: Store): Hono {
  const routes = new Hono();
  routes.get('/', async (c) => {
    const found = await Promise.all(HARNESS_NAMES.map((harness) => findHarness(harness, searchPath)));
    const quota = await readQuotaStatuses(store);
    const harnesses = found.map((harness) => ({
      ...harness,
      quota: quota.filter((status) => status.harness === harness.harness),
    }));
    return c.json({ harnesses });
  });
  return routes;
}
