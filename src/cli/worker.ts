/**
 * `harmflow worker --store postgres://… --queue redis://…` — a cluster worker (issue 9): takes
 * executions from the dispatch queue (BullMQ on Redis) and drives each on this machine while it holds
 * the execution's lease (cluster/worker-loop.ts, cluster/drive-job.ts), with the cluster's
 * PostgreSQL as the store, the inboxes, the event mirror and the contexts. One per machine, each with
 * a state directory of its own.
 *
 * At start it kills the harnesses a killed worker left running under its state directory
 * (cluster/orphans.ts). While admission refuses (free disk below the floor) it takes no new
 * executions (the BullMQ worker is paused; those running go on), and says so in one line when it
 * pauses and when it resumes. On SIGINT or SIGTERM it stops taking executions and suspends those it
 * runs (their harnesses interrupted; each left open, its context and history in PostgreSQL), so
 * another worker carries them on at once: their jobs are handed back and their leases released. When
 * they have not suspended within the close budget, it kills their harnesses. Then it closes
 * everything and exits 0.
 */
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { DEFAULT_DISPATCH_PREFIX, parseQueueUrl } from '../cluster/queue-url.js';
import { checkStoreUrl } from '../cluster/store-url.js';
import { UsageError } from '../core/errors.js';
import { durationOption, gibOption, integerOption } from './option-values.js';

interface WorkerOptions {
  store: string;
  queue: string;
  schema: string;
  queuePrefix: string;
  home?: string;
  concurrency?: string;
  diskFloorGib: string;
  workerId?: string;
  interruptBudget?: string;
  closeBudget?: string;
}

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run a cluster worker: take executions from the queue and drive them on this machine')
    .requiredOption('--store <url>', "the cluster's PostgreSQL: postgres://user[:password]@host[:port]/database")
    .requiredOption('--queue <url>', "the cluster's Redis: redis://host[:port][/db] (rediss:// for TLS)")
    .option('--schema <name>', "the PostgreSQL schema of the cluster's tables", 'public')
    .option('--queue-prefix <prefix>', "the prefix of the queue's Redis keys", DEFAULT_DISPATCH_PREFIX)
    .option('--home <dir>', "this worker's state directory: worktrees, histories, repository mirrors")
    .option('--concurrency <n>', 'drive at most n executions at once (default: idle cores at start)')
    .option(
      '--disk-floor-gib <gib>',
      'take no new executions while free disk under the state directory is below this',
      '2',
    )
    .option('--worker-id <id>', "this worker's name in the leases, unique in the cluster (default: host:pid)")
    .option('--interrupt-budget <duration>', 'how long an interrupted harness may take to exit (default 60s)')
    .option('--close-budget <duration>', 'how long stopping waits for executions to suspend (default 30s)')
    .action(async (options: WorkerOptions) => {
      const workerId = options.workerId ?? `${hostname()}:${process.pid}`;
      if (workerId.trim() === '') throw new UsageError('--worker-id: must not be empty');
      const interruptBudgetMs = durationOption(options.interruptBudget, '--interrupt-budget');
      const closeBudgetMs = durationOption(options.closeBudget, '--close-budget');
      const settings = {
        storeUrl: checkStoreUrl(options.store),
        connection: parseQueueUrl(options.queue),
        schema: options.schema,
        queuePrefix: options.queuePrefix,
        diskFloorBytes: gibOption(options.diskFloorGib, '--disk-floor-gib'),
        workerId,
        ...(options.home !== undefined && { home: options.home }),
        ...(options.concurrency !== undefined && {
          concurrency: integerOption(options.concurrency, '--concurrency', 1),
        }),
        ...(interruptBudgetMs !== undefined && { interruptBudgetMs }),
        ...(closeBudgetMs !== undefined && { closeBudgetMs }),
      };
      // Loaded here, not with the CLI: BullMQ alone takes ~0.5 s to import, which every other command
      // would pay (see serve.ts).
      const { runWorker } = await import('./worker-run.js');
      await runWorker(settings);
    });
}
