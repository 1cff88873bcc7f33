/**
 * The session service's HTTP app: the guards (src/server/security.ts) in front of the API routes.
 * `createApp` builds it without a socket, so tests drive it with `app.request()` and the service
 * serves it with @hono/node-server. The app does not own the store: its opener closes it.
 */
import { Hono } from 'hono';
import type { HomePaths } from '../core/home.js';
import type { Admission } from '../service/admission.js';
import { DiskSizes } from '../service/disk-sizes.js';
import type { Registry } from '../service/registry.js';
import type { Store } from '../store/store.js';
import { handleError, handleNotFound } from './errors.js';
import { admissionRoutes } from './routes/admission.js';
import { diskRoutes } from './routes/disk.js';
import { executionRoutes } from './routes/executions.js';
import { harnessRoutes } from './routes/harnesses.js';
import { limitBody, requireExecutionId, requireLocalHost, requireLocalOrigin, requireToken } from './security.js';
import { uiRoutes } from './ui/routes.js';

export interface AppOptions {
  readonly home: HomePaths;
  readonly store: Store;
  /** The service's executions and admission, and how to stop it (`POST /api/stop`). */
  readonly registry: Registry;
  readonly admission: Admission;
  readonly stop: () => void;
  /** The cache of tree sizes the disk figures read through; default: one of the app's own. */
  readonly diskSizes?: DiskSizes;
  /** The bearer token every `/api` request must carry (see loadOrCreateToken). */
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
  app.use('/api/*', requireToken(token));
  app.use('/api/*', limitBody());
  app.use('/api/executions/:id', requireExecutionId());
  app.use('/api/executions/:id/*', requireExecutionId());

  const diskSizes = options.diskSizes ?? new DiskSizes();
  app.route('/api/executions', executionRoutes({ home, store, registry: options.registry, diskSizes }));
  app.route('/api/executions', diskRoutes({ home, store, sizes: diskSizes }));
  app.route('/api', admissionRoutes({ admission: options.admission, stop: options.stop }));
  app.route('/api/harnesses', harnessRoutes(options.searchPath ?? process.env.PATH ?? '', store));
  options.mount?.(app);
  app.route('/', uiRoutes());
  return app;
}
