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
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { DEFAULT_PORT } from './default-port.js';
import { DEFAULT_CACHE_LIMIT_GIB_TEXT, DEFAULT_RETENTION_TEXT, retention } from './gc.js';
import { durationOption, gibOption, integerOption } from './option-values.js';

export interface ServeOptions {
  port: string;
  home?: string;
  maxRunning?: string;
  diskFloorGib: string;
  interruptBudget?: string;
  closeBudget?: string;
  worktreeRetention: string;
  cacheLimitGib: string;
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
    .option(
      '--cache-limit-gib <gib>',
      'trim the shared caches to this size (at start, hourly, on low disk), whole tool folders written longest ago first',
      DEFAULT_CACHE_LIMIT_GIB_TEXT,
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
        const { serveCluster } = await import('./serve-service.js');
        await serveCluster({ ...options, store: options.store, queue: options.queue }, port);
        return;
      }
      const maxRunning =
        options.maxRunning === undefined ? undefined : integerOption(options.maxRunning, '--max-running', 1);
      const diskFloorBytes = gibOption(options.diskFloorGib, '--disk-floor-gib');
      const interruptBudgetMs = durationOption(options.interruptBudget, '--interrupt-budget');
      const closeBudgetMs = durationOption(options.closeBudget, '--close-budget');
      const retentionMs = retention(options.worktreeRetention, '--worktree-retention');
      const cacheLimitBytes = gibOption(options.cacheLimitGib, '--cache-limit-gib');

      // The service's modules (hono, the registry, the stores) load only for `serve`, not every verb.
      const { serveHere } = await import('./serve-service.js');
      await serveHere(options, {
        port,
        maxRunning,
        diskFloorBytes,
        interruptBudgetMs,
        closeBudgetMs,
        retentionMs,
        cacheLimitBytes,
      });
    });
}
