/**
 * Read-only execution routes, mounted at `/api/executions`: the list, one execution with its
 * attempts, and its context.json. Ids reach these handlers already checked by `requireExecutionId`.
 */
import { readFile } from 'node:fs/promises';
import { Hono } from 'hono';
import { z } from 'zod';
import { NotFoundError, UsageError } from '../../core/errors.js';
import type { HomePaths } from '../../core/home.js';
import { type ExecutionState, FINAL_STATES, STATES } from '../../core/outcome.js';
import { ExecutionContext } from '../../execution/context-schema.js';
import type { ExecutionRecord, Store } from '../../store/store.js';

const ENDED: readonly ExecutionState[] = STATES.filter((state) => FINAL_STATES.has(state));
const LIVE: readonly ExecutionState[] = STATES.filter((state) => !FINAL_STATES.has(state));

const ListQuery = z.object({ state: z.enum(['live', 'ended']).optional() });

export interface ExecutionRoutesOptions {
  readonly home: HomePaths;
  readonly store: Store;
}

/** Returns the sub-app serving `GET /`, `GET /:id` and `GET /:id/context`. */
export function executionRoutes({ home, store }: ExecutionRoutesOptions): Hono {
  const routes = new Hono();

  routes.get('/', async (c) => {
    const query = ListQuery.safeParse(c.req.query());
    if (!query.success) throw new UsageError(`bad query: ${z.prettifyError(query.error).replace(/\n/g, ' ')}`);
    const { state } = query.data;
    const executions = await store.listExecutions(
      state === undefined ? {} : { states: state === 'live' ? LIVE : ENDED },
    );
    return c.json({ executions });
  });

  routes.get('/:id', async (c) => {
    const execution = await getExecution(store, c.req.param('id'));
    const attempts = await store.listAttempts(execution.id);
    return c.json({ execution, attempts });
  });

  routes.get('/:id/context', async (c) => {
    const execution = await getExecution(store, c.req.param('id'));
    const file = home.contextFile(execution.id);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new NotFoundError(`execution ${execution.id} has no context.json yet`);
      }
      throw error;
    }
    return c.json(ExecutionContext.parse(JSON.parse(text)));
  });

  return routes;
}

/** Returns the execution, or throws NotFoundError. */
async function getExecution(store: Store, id: string): Promise<ExecutionRecord> {
  const execution = await store.getExecution(id);
  if (execution === undefined) throw new NotFoundError(`no execution ${id}`);
  return execution;
}
