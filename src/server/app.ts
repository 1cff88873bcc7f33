/**
 * The session service's HTTP app: the guards (src/server/security.ts) in front of the API routes.
 * `createApp` builds it without a socket, so tests drive it with `app.request()` and the service
 * serves it with @hono/node-server. The app does not own the store: its opener closes it.
 */
import { Hono } from 'hono';
import type { HomePaths } from '../core/home.js';
import { DiskSizes } from '../service/disk-sizes.js';
import type { ExecutionService } from '../service/execution-service.js';
import type { Store } from '../store/store.js';
import { handleError, handleNotFound } from './errors.js';
import { type AdmissionControl, admissionRoutes } from './routes/admission.js';
import { diskRoutes } from './routes/disk.js';
import { type ClusterReads, executionRoutes } from './routes/executions.js';
import { harnessRoutes } from './routes/harnesses.js';
import { sessionRoutes } from './routes/session.js';
import { taskRoutes } from './routes/tasks.js';
import { type WorkflowRoutesOptions, workflowRoutes } from './routes/workflows.js';
import { limitBody, requireExecutionId, requireLocalHost, requireLocalOrigin, requireToken } from './security.js';
import { SessionCookie } from './session-cookie.js';
import { uiRoutes } from './ui/routes.js';

export interface AppOptions {
  readonly home: HomePaths;
  readonly store: Store;
  /**
   * The service's executions and admission, and how to stop it (`POST /api/stop`): the Registry and
   * the Admission on one machine; ClusterExecutions and the dispatch queue's view in cluster mode.
   */
  readonly registry: ExecutionService;
  readonly admission: AdmissionControl;
  readonly stop: () => void;
  /** The cache of tree sizes the disk figures read through; default: one of the app's own. */
  readonly diskSizes?: DiskSizes;
  /**
   * The bearer token every `/api` request must carry (see loadOrCreateToken), or the session cookie
   * `POST /api/session` exchanges it for (session-cookie.ts), from the Workbench's own pages.
   */
  readonly token: string;
  /** The port the service listens on: part of every accepted `Host` and `Origin`. */
  readonly port: number;
  /** The bind host, accepted in `Host`/`Origin` besides 127.0.0.1, localhost and [::1]. */
  readonly host?: string;
  /** The PATH harness CLIs are looked up on. Default: this process's PATH. */
  readonly searchPath?: string;
  /**
   * Adds more routes (e.g. the events stream at `/api/executions/:id/events`). Called after the
   * guards are installed, so every route it adds is behind them, `:id` included:
   * `mount: (app) => app.route('/', eventsRoute({ home, store }))`.
   */
  readonly mount?: (app: Hono) => void;
  /**
   * Cluster mode (issue 9): the executions' state directories are on the workers. Reads that need one
   * go through these (src/server/routes/executions.ts, ClusterReads); the disk routes answer 409.
   */
  readonly cluster?: ClusterReads;
  /**
   * The workflow runs' store (and, on a single service, the resumer): `/api/workflows`, which the
   * Workbench's Workflows and Review pages read. Without it those routes are not mounted (404).
   */
  readonly workflows?: WorkflowRoutesOptions;
}

/** Builds the app: guards, then the API routes, then whatever `mount` adds, then the Workbench (src/server/ui). */
export function createApp(options: AppOptions): Hono {
  const { home, store, token, port, host } = options;
  const listen = { port, ...(host !== undefined && { host }) };
  const app = new Hono();
  app.onError(handleError);
  app.notFound(handleNotFound);

  app.use('*', requireLocalHost(listen));
  app.use('*', requireLocalOrigin(listen));
  const cookie = new SessionCookie(token, port);
  app.use('/api/*', requireToken(token, cookie));
  app.use('/api/*', limitBody());
  app.use('/api/executions/:id', requireExecutionId());
  app.use('/api/executions/:id/*', requireExecutionId());

  const diskSizes = options.diskSizes ?? new DiskSizes();
  const { cluster } = options;
  app.route(
    '/api/executions',
    executionRoutes({ home, store, registry: options.registry, diskSizes, ...(cluster !== undefined && { cluster }) }),
  );
  app.route('/api/executions', diskRoutes({ home, store, sizes: diskSizes, cluster: cluster !== undefined }));
  app.route(
    '/api',
    admissionRoutes({
      admission: options.admission,
      stop: options.stop,
      suspending: () => options.registry.suspending(),
    }),
  );
  app.route('/api/session', sessionRoutes(cookie));
  app.route('/api/tasks', taskRoutes({ cluster: cluster !== undefined }));
  app.route('/api/harnesses', harnessRoutes(options.searchPath ?? process.env.PATH ?? '', store));
  if (options.workflows !== undefined) app.route('/api/workflows', workflowRoutes(options.workflows));
  options.mount?.(app);
  app.route('/', uiRoutes({ executionExists: async (id) => (await store.getExecution(id)) !== undefined }));
  return app;
}
