/**
 * `harmflow serve` — the session service: runs many executions at once under admission control,
 * takes tasks, messages and cancels over the HTTP API on 127.0.0.1, streams each execution's events,
 * reopens on start what an earlier process left open, and on SIGINT/SIGTERM or `POST /api/stop`
 * closes every execution within the close budget (they are carried on at the next start). The token
 * is printed once, when made. It removes expired clean worktrees at start, every hour and when free
 * disk runs low (src/service/cleanup.ts), one line per removal.
 *
 * With `--store <postgres-url> --queue <redis-url>` (both or neither) it is an API node of a cluster
 * (issue 9; serve-cluster.ts): it runs no execution, recovers none and cleans no worktree; it records
 * requests in PostgreSQL, dispatches them to the workers on BullMQ and streams events from the
 * PostgreSQL mirror. The token (`--home`), the bind address and the guards are as on one machine.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Command } from 'commander';
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
import { DEFAULT_RETENTION_TEXT, retention } from './gc.js';
import { durationOption, gibOption, integerOption } from './option-values.js';

/** The service's port unless `--port` says otherwise. */
export const DEFAULT_PORT = 7878;
const HOST = '127.0.0.1';

interface ServeOptions {
  port: string;
  home?: string;
  maxRunning?: string;
  diskFloorGib: string;
  interruptBudget?: string;
  closeBudget?: string;
  worktreeRetention: string;
  store?: string;
  queue?: string;
  schema: string;
  queuePrefix?: string;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the session service: the HTTP API on 127.0.0.1, many executions at once, restart recovery')
    .option('--port <port>', 'port to listen on (0: any free port)', String(DEFAULT_PORT))
    .option('--home <dir>', 'state directory')
    .option('--max-running <n>', 'run at most n executions at once (default: idle cores)')
    .option('--disk-floor-gib <gib>', 'hold admission while free disk under the state directory is below this', '2')
    .option('--interrupt-budget <duration>', 'how long an interrupted harness may take to exit (default 60s)')
    .option('--close-budget <duration>', 'how long stopping waits for executions to close (default 30s)')
    .option(
      '--worktree-retention <duration>',
      "keep an ended execution's worktree this long, then remove it if it holds no unsaved work",
      DEFAULT_RETENTION_TEXT,
    )
    .option('--store <url>', "cluster mode, with --queue: the cluster's PostgreSQL (postgres://user@host:5432/db)")
    .option('--queue <url>', "cluster mode, with --store: the cluster's Redis (redis://host[:port][/db])")
    .option('--schema <name>', "cluster mode: the PostgreSQL schema of the cluster's tables", 'public')
    .option('--queue-prefix <prefix>', "cluster mode: the dispatch queue's Redis key prefix (default: harmflow)")
    .action(async (options: ServeOptions) => {
      const port = integerOption(options.port, '--port', 0, 65_535);
      if ((options.store === undefined) !== (options.queue === undefined)) {
        throw new UsageError('--store and --queue go together: give both (cluster mode) or neither');
      }
      if (options.store !== undefined && options.queue !== undefined) {
        await serveCluster({ ...options, store: options.store, queue: options.queue }, port);
        return;
      }
      const maxRunning =
        options.maxRunning === undefined ? undefined : integerOption(options.maxRunning, '--max-running', 1);
      const diskFloorBytes = gibOption(options.diskFloorGib, '--disk-floor-gib');
      const interruptBudgetMs = durationOption(options.interruptBudget, '--interrupt-budget');
      const closeBudgetMs = durationOption(options.closeBudget, '--close-budget');
      const retentionMs = retention(options.worktreeRetention, '--worktree-retention');

      // A service whose terminal went away keeps serving: its notices are not worth dying for.
      process.stdout.on('error', () => {});
      const { home, store } = openHome(options.home);
      const runs = openSqliteResumeStore(home.database);
      const { token, created } = loadOrCreateToken(home);
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

      const { server, bound } = await listen(port, (bound) =>
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
    });
}

/**
 * Cluster mode: an API node. The executions options (--max-running, --disk-floor-gib, the budgets,
 * --worktree-retention) are the workers' and are not used here.
 */
async function serveCluster(
  options: Pick<ServeOptions, 'home' | 'schema' | 'queuePrefix'> & { store: string; queue: string },
  port: number,
): Promise<void> {
  process.stdout.on('error', () => {});
  const home = harmflowHome(options.home);
  makePrivateDir(home.root);
  const { token, created } = loadOrCreateToken(home);
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
  const { server, bound } = await listen(port, (bound) =>
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
  ).catch(async (error: unknown) => {
    await runs.close();
    await node.close();
    throw error;
  });
  process.stdout.write(`HarmFlow API node (cluster mode) on http://${HOST}:${bound} (state: ${home.root})\n`);
  if (created) process.stdout.write(`API token (shown once; also in ${home.root}/token): ${token}\n`);
  const signalled = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await Promise.race([signalled, new Promise<void>((resolve) => server.once('close', resolve))]);
  await stop();
}

/**
 * Listens on HOST:`port` and serves the app `appOf` builds for the port bound. The app checks Host
 * against the port actually bound (`--port 0` picks a free one), so it is built once the server
 * listens; requests wait for it (503 until then).
 */
async function listen(
  port: number,
  appOf: (bound: number) => ReturnType<typeof createApp>,
): Promise<{ server: ReturnType<typeof serve>; bound: number }> {
  let app: ReturnType<typeof createApp> | undefined;
  const server = serve({
    // `env` carries the Node response, which the event stream writes to directly (sse/body.ts).
    fetch: (request, env) => (app ? app.fetch(request, env) : new Response('starting', { status: 503 })),
    hostname: HOST,
    port,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const bound = (server.address() as AddressInfo).port;
  app = appOf(bound);
  return { server, bound };
}
