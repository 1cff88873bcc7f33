/**
 * `harmflow worker --store postgres://… --queue redis://…` — a cluster worker (issue 9): takes
 * executions from the dispatch queue (BullMQ on Redis) and drives each on this machine while it holds
 * the execution's lease (cluster/worker-loop.ts, cluster/drive-job.ts), with the cluster's
 * PostgreSQL as the store, the inboxes, the event mirror and the contexts. One per machine, each with
 * a state directory of its own. Beside them it computes workflow items (workflows/cluster-worker.ts):
 * chunks of code and effect steps from the general item queue, and model steps' items from the queues
 * of the models `--model-limit` names, each under its rate limit; their results go to the cluster's
 * ResumeStore and their effects through its EffectLedger, in the same schema.
 *
 * At start it kills the harnesses a killed worker left running under its state directory
 * (cluster/orphans.ts). While admission refuses (free disk below the floor) it takes no new
 * executions (the BullMQ worker is paused; those running go on), and says so in one line when it
 * pauses and when it resumes; workflow items go on, as they need no worktree. On SIGINT or SIGTERM it
 * stops taking executions and suspends those it runs (their harnesses interrupted; each left open,
 * its context and history in PostgreSQL), so another worker carries them on at once: their jobs are
 * handed back and their leases released. When they have not suspended within the close budget, it
 * kills their harnesses. Meanwhile it takes no more workflow chunks and waits for those it computes
 * to be committed. Then it closes everything and exits 0.
 */
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { DEFAULT_DISPATCH_PREFIX, parseQueueUrl } from '../cluster/queue-url.js';
import { checkStoreUrl } from '../cluster/store-url.js';
import { UsageError } from '../core/errors.js';
import { parseModelLimits } from './model-limits.js';
import { collect, durationOption, gibOption, integerOption } from './option-values.js';

/**
 * 4 workflow chunks at once a queue unless told: the setting DEFAULT_CHUNK_ITEMS
 * (workflows/cluster-executor.ts) was chosen with — 2,000 items a step make 8 chunks of 250, one for
 * each slot of two workers at 4 — and in its sweep of 1 to 4 a worker (`node bench/cluster-anchors.mjs
 * --reps 3 --measures floor,harmflow1,harmflow2 --chunk-items C --worker-concurrency W`) no setting was
 * ahead beyond the noise. Not the idle cores, as for executions: every chunk runs on this process's
 * one event loop, whatever the cores.
 */
const DEFAULT_ITEM_CONCURRENCY = 4;

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
  itemConcurrency: string;
  modelLimit?: string[];
}

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run a cluster worker: take executions and workflow items from the queue and run them on this machine')
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
    .option(
      '--item-concurrency <n>',
      "compute at most n workflow chunks at once, per queue (the general one and each model's)",
      String(DEFAULT_ITEM_CONCURRENCY),
    )
    .option(
      '--model-limit <provider/name=max/duration>',
      "compute the model's workflow items, at most max calls a duration window, e.g. anthropic/claude-sonnet=50/1m; repeatable",
      collect,
    )
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
        itemConcurrency: integerOption(options.itemConcurrency, '--item-concurrency', 1),
        models: parseModelLimits(options.modelLimit ?? []),
      };
      // Loaded here, not with the CLI: BullMQ alone takes ~0.5 s to import, which every other command
      // would pay (see serve.ts).
      const { runWorker } = await import('./worker-run.js');
      await runWorker(settings);
    });
}
