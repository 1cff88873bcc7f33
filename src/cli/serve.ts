/**
 * `harmflow serve` — the session service: runs many executions at once under admission control,
 * takes tasks, messages and cancels over the HTTP API on 127.0.0.1, streams each execution's events,
 * reopens on start what an earlier process left open, and on SIGINT/SIGTERM or `POST /api/stop`
 * closes every execution within the close budget (they are carried on at the next start). The token
 * is printed once, when made. It removes expired clean worktrees at start, every hour and when free
 * disk runs low (src/service/cleanup.ts), one line per removal.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Command } from 'commander';
import { parseDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { stateDisk } from '../execution/execution-disk.js';
import { createApp } from '../server/app.js';
import { eventsRoute } from '../server/routes/events.js';
import { loadOrCreateToken } from '../server/token.js';
import { Admission } from '../service/admission.js';
import { WorktreeCleanup } from '../service/cleanup.js';
import { DiskSizes } from '../service/disk-sizes.js';
import { systemHost } from '../service/host.js';
import { Registry } from '../service/registry.js';
import { openHome } from './context-home.js';
import { DEFAULT_RETENTION_TEXT, retention } from './gc.js';

/** The service's port unless `--port` says otherwise. */
export const DEFAULT_PORT = 7878;
const HOST = '127.0.0.1';

interface ServeOptions {
  port: string;
  home?: string;
  maxRunning?: string;
  diskFloorGib?: string;
  interruptBudget?: string;
  closeBudget?: string;
  worktreeRetention: string;
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
    .action(async (options: ServeOptions) => {
      const port = integer(options.port, '--port', 0, 65_535);
      const maxRunning = options.maxRunning === undefined ? undefined : integer(options.maxRunning, '--max-running', 1);
      const floorGib = Number(options.diskFloorGib);
      if (!Number.isFinite(floorGib) || floorGib < 0)
        throw new UsageError(`--disk-floor-gib: not a size: ${options.diskFloorGib}`);
      const interruptBudgetMs = duration(options.interruptBudget, '--interrupt-budget');
      const closeBudgetMs = duration(options.closeBudget, '--close-budget');
      const retentionMs = retention(options.worktreeRetention, '--worktree-retention');

      // A service whose terminal went away keeps serving: its notices are not worth dying for.
      process.stdout.on('error', () => {});
      const { home, store } = openHome(options.home);
      const { token, created } = loadOrCreateToken(home);
      const notice = (line: string) => void process.stdout.write(`${line}\n`);
      const diskSizes = new DiskSizes();
      const admission = new Admission({
        host: systemHost,
        path: home.root,
        diskFloorBytes: floorGib * 1024 ** 3,
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
          await store.close();
          process.stdout.write('stopped\n');
        })();
        return stopping;
      };

      // The app checks Host against the port actually bound (`--port 0` picks a free one), so it is
      // built once the server listens; requests wait for it.
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
      app = createApp({
        home,
        store,
        registry,
        admission,
        stop: () => void stop(),
        diskSizes,
        token,
        port: bound,
        host: HOST,
        mount: (api) => api.route('/', eventsRoute({ home, store })),
      });
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

function integer(text: string, option: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    throw new UsageError(`${option}: not an integer from ${min} to ${max}: ${text}`);
  return value;
}

function duration(text: string | undefined, option: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === undefined) throw new UsageError(`${option}: not a duration (examples: 30s, 2m): ${text}`);
  return ms;
}
