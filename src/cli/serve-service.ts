/**
 * What `harmflow serve` runs once its options are checked (serve.ts): the session service on one
 * machine (`serveHere`: the Registry, admission, worktree cleanup, the HTTP API and the Workbench),
 * or an API node of a cluster (`serveCluster`). Loaded by `serve` alone, so no other verb pays for
 * hono, the registry or the stores at its start.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { describeError, UsageError } from '../core/errors.js';
import { harmflowHome, makePrivateDir } from '../core/home.js';
import { stateDisk } from '../execution/execution-disk.js';
import { createApp } from '../server/app.js';
import { eventsRoute } from '../server/routes/events.js';
import { mirrorEventsRoute } from '../server/routes/mirror-events.js';
import { loadOrCreateToken } from '../server/token.js';
import { Admission } from '../service/admission.js';
import { WorktreeCleanup } from '../service/cleanup.js';
import { DiskSizes } from '../service/disk-sizes.js';
import { systemHost } from '../service/host.js';
import { Registry } from '../service/registry.js';
import { workflowResumer } from '../service/workflow-resumer.js';
import { openSqliteResumeStore } from '../store/sqlite/resume-store.js';
import { openHome } from './context-home.js';
import type { ServeOptions } from './serve.js';

const HOST = '127.0.0.1';

/** The options `serve` parsed: the numbers and durations, checked. */
export interface ServiceLimits {
  readonly port: number;
  readonly maxRunning: number | undefined;
  readonly diskFloorBytes: number;
  readonly interruptBudgetMs: number | undefined;
  readonly closeBudgetMs: number | undefined;
  readonly retentionMs: number;
  /** The shared caches' limit (`--cache-limit-gib`), bytes. */
  readonly cacheLimitBytes: number;
}

/** The session service on this machine, until SIGINT, SIGTERM or `POST /api/stop`. */
export async function serveHere(options: ServeOptions, limits: ServiceLimits): Promise<void> {
  const { port, maxRunning, diskFloorBytes, interruptBudgetMs, closeBudgetMs, retentionMs, cacheLimitBytes } = limits;
  // A service whose terminal went away keeps serving: its notices are not worth dying for.
  process.stdout.on('error', () => {});
  // Bound before anything is made under the state directory: a start that cannot listen leaves
  // nothing behind — no state directory, database or token it never showed.
  const { server, bound, use } = await listen(port);
  const { home, store, runs } = openStores(options.home, server);
  const notice = (line: string) => void process.stdout.write(`${line}\n`);
  const diskSizes = new DiskSizes();
  const admission = new Admission({
    host: systemHost,
    path: home.root,
    diskFloorBytes,
    ...(maxRunning !== undefined && { maxRunning }),
    stateDisk: () => stateDisk(home, diskSizes.bytes),
    // Called only once admission measures, after `cleanup` is made.
    onDiskLow: () => cleanup.lowDisk(),
  });
  const cleanup = new WorktreeCleanup({
    home,
    store,
    retentionMs,
    cacheLimitBytes,
    log: notice,
    sizes: diskSizes,
    onReclaimed: () => void admission.recheck(),
  });
  const registry = new Registry({
    home,
    store,
    admission,
    engine: { ...(interruptBudgetMs !== undefined && { interruptBudgetMs }) },
    ...(closeBudgetMs !== undefined && { closeBudgetMs }),
  });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.stdout.write('stopping: closing executions (they carry on at the next start)\n');
      server.close();
      await registry.stop();
      await cleanup.close();
      // Event streams stay open until their client leaves; the service is going, so they go too.
      (server as Server).closeAllConnections();
      admission.close();
      await runs.close();
      await store.close();
      process.stdout.write('stopped\n');
    })();
    return stopping;
  };

  const { token, created } = loadOrCreateToken(home);
  use(
    createApp({
      home,
      store,
      registry,
      admission,
      stop: () => void stop(),
      diskSizes,
      token,
      port: bound,
      host: HOST,
      workflows: { store: runs, resumer: workflowResumer(home.root, runs) },
      mount: (api) => api.route('/', eventsRoute({ home, store })),
    }),
  );
  process.stdout.write(`HarmFlow service on http://${HOST}:${bound} (state: ${home.root})\n`);
  if (created) process.stdout.write(`API token (shown once; also in ${home.root}/token): ${token}\n`);
  const reopened = await registry.recover();
  if (reopened.length > 0) {
    process.stdout.write(`reopened ${reopened.length} execution(s) left open: ${reopened.join(' ')}\n`);
  }
  cleanup.start();
  const signalled = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await Promise.race([signalled, new Promise<void>((resolve) => server.once('close', resolve))]);
  await stop();
}

/** The state directory's stores, opened once the service listens; `server` is closed when they cannot be. */
function openStores(explicitHome: string | undefined, server: Listening['server']) {
  try {
    const { home, store } = openHome(explicitHome);
    return { home, store, runs: openSqliteResumeStore(home.database) };
  } catch (error) {
    server.close();
    throw error;
  }
}

/**
 * Cluster mode: an API node. The executions options (--max-running, --disk-floor-gib, the budgets,
 * --worktree-retention) are the workers' and are not used here.
 */
export async function serveCluster(
  options: Pick<ServeOptions, 'home' | 'schema' | 'queuePrefix'> & { store: string; queue: string },
  port: number,
): Promise<void> {
  process.stdout.on('error', () => {});
  const home = harmflowHome(options.home);
  makePrivateDir(home.root);
  const { store, schema, queue, queuePrefix } = options;
  // Loaded here, not with the CLI: BullMQ alone takes ~0.5 s to import, which every other command
  // would pay (`node -e "await import('bullmq')"` with --input-type=module prints the time).
  const { openClusterNode } = await import('./serve-cluster.js');
  const node = await openClusterNode(
    { store, schema, queue, ...(queuePrefix !== undefined && { queuePrefix }) },
    (error) => process.stderr.write(`harmflow: ${describeError(error)}\n`),
  );
  const { openPostgresResumeStore } = await import('../store/postgres/resume-store.js');
  // The cluster's workflow runs, read and reviewed here; a coordinator resumes them.
  const runs = await openPostgresResumeStore(store, { schema }).catch(async (error: unknown) => {
    await node.close();
    throw error;
  });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.stdout.write('stopping: the executions carry on on the workers\n');
      server.close();
      // Event streams stay open until their client leaves; the node is going, so they go too.
      (server as Server).closeAllConnections();
      await runs.close();
      await node.close();
      process.stdout.write('stopped\n');
    })();
    return stopping;
  };
  const { server, bound, use } = await listen(port).catch(async (error: unknown) => {
    await runs.close();
    await node.close();
    throw error;
  });
  const { token, created } = loadOrCreateToken(home);
  use(
    createApp({
      home,
      store: node.store,
      registry: node.executions,
      admission: node.admission,
      stop: () => void stop(),
      token,
      port: bound,
      host: HOST,
      cluster: node.reads,
      workflows: { store: runs },
      mount: (api) => api.route('/', mirrorEventsRoute({ source: node.events, store: node.store })),
    }),
  );
  process.stdout.write(`HarmFlow API node (cluster mode) on http://${HOST}:${bound} (state: ${home.root})\n`);
  if (created) process.stdout.write(`API token (shown once; also in ${home.root}/token): ${token}\n`);
  const signalled = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await Promise.race([signalled, new Promise<void>((resolve) => server.once('close', resolve))]);
  await stop();
}

/** A server listening, and how to give it its app. */
interface Listening {
  readonly server: ReturnType<typeof serve>;
  /** The port bound: `--port`, or the free one `--port 0` got. */
  readonly bound: number;
  /** Serves `app` from now on; until then every request is answered 503. */
  use(app: ReturnType<typeof createApp>): void;
}

/**
 * Listens on HOST:`port`. The app checks Host against the port actually bound (`--port 0` picks a
 * free one), so it is given once the server listens (`use`). A port in use, or one this user may
 * not listen on, is the user's to change: UsageError (exit 2), one line naming the port and --port.
 */
async function listen(port: number): Promise<Listening> {
  let app: ReturnType<typeof createApp> | undefined;
  const server = serve({
    // `env` carries the Node response, which the event stream writes to directly (sse/body.ts).
    fetch: (request, env) => (app ? app.fetch(request, env) : new Response('starting', { status: 503 })),
    hostname: HOST,
    port,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, port)));
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    server,
    bound,
    use: (given) => {
      app = given;
    },
  };
}

/** The error `listen` rejects with for `error`: the user's to fix when the port is taken or not allowed. */
function listenError(error: NodeJS.ErrnoException, port: number): Error {
  // No `cause`: the line says all of it (describeError would append Node's own words).
  if (error.code === 'EADDRINUSE') return new UsageError(`port ${port} on ${HOST} is in use; pick another with --port`);
  if (error.code === 'EACCES') {
    return new UsageError(`port ${port} on ${HOST} is not open to this user; pick another with --port`);
  }
  return error;
}
