/** `GET /api/harnesses`: each harness CLI on the service's PATH, its version, and whether it is verified. */
import { Hono } from 'hono';
import { HARNESS_NAMES } from '../../core/outcome.js';
import { findHarness } from '../../harnesses/install.js';

/** Returns the sub-app serving `GET /`; `searchPath` is the PATH the service runs harnesses from. */
export function harnessRoutes(searchPath: string): Hono {
  const routes = new Hono();
  routes.get('/', async (c) => {
    const harnesses = await Promise.all(HARNESS_NAMES.map((harness) => findHarness(harness, searchPath)));
    return c.json({ harnesses });
  });
  return routes;
}
