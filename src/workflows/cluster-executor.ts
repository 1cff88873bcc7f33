/**
 * The cluster executor: an ItemExecutor (item-executor.ts) that hands a step's items to item workers
 * (cluster-worker.ts) as BullMQ jobs, instead of computing them in this process. The engine (run.ts)
 * drives the run as always — plans each step, reuses what is stored, handles reviews, failures and
 * the end state — on one coordinator, the process that calls `startRun`/`resumeRun` with
 * `{ executor }`; only the computing moves. The store stays the source of truth: a worker commits a
 * chunk's results to the ResumeStore before its job completes, and the job's return value tells the
 * coordinator what was committed (digests, and the outputs' values so the next step's inputs need no
 * read). BullMQ only dispatches: a job is deleted once it has ended.
 *
 * Per step: a code or effect step's items go to the general queue in chunks of `chunkItems` (one job,
 * one commit transaction a chunk: DEFAULT_CHUNK_ITEMS gives the reason); a model step's items go one
 * a job to its model's queue, whose workers apply the model's rate limit. A model with no worker on
 * its queue is refused at once (the run crashes, resumable) rather than left waiting. An agent step's
 * items run in this process (their executions are dispatched as executions). Within a chunk, items
 * run at the step's `concurrency`; chunks run at once up to the workers' concurrency.
 *
 * Spend: a worker adds what its chunk's items spent to the run's drive in the transaction that
 * commits them (`drive` in the job) and says so in its result (`spendRecorded`); the engine then
 * records none of it. A result without it (a worker of an older HarmFlow) leaves the engine what it
 * knows: the items and their tries, their time and tokens unreported.
 *
 * Semantics kept from the engine: the step's outcomes are reported item by item (computed, failed,
 * exhausted); once an item has run out of retries, the chunks not started are removed from the
 * queue and those running finish and are reported. Retries: each chunk may spend what was left of
 * the run's budget when it was dispatched, and its retries are charged to the run's budget as it
 * returns, so chunks running at once may together spend more than was left (never more than that
 * times the chunks in flight); each is reported as an `item.retry` event when its chunk returns.
 *
 * The workflow file must be the one the driven definition was loaded from: its digest is taken when
 * the executor opens, and every worker refuses a job whose file differs. One executor may drive any
 * number of runs of that file, one step at a time each. The caller owns it and closes it.
 */
import { randomBytes } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type { RedisConnection } from '../cluster/queue-url.js';
import { EXIT, HarmflowError, UsageError } from '../core/errors.js';
import {
  type ChunkJob,
  type ChunkOutcome,
  ChunkResult,
  DEFAULT_ITEM_PREFIX,
  GENERAL_ITEM_QUEUE,
  type ModuleRef,
  modelQueueName,
  moduleRef,
} from './cluster-jobs.js';
import { IN_PROCESS, type ItemExecutor, type ReadyItem, type StepWork } from './item-executor.js';
import type { Spent } from './run.js';

/**
 * 250 items a chunk: 2,000 items, a common step size, make 8 chunks, one for each of the 8 chunk
 * slots of two workers at concurrency 4, so a step is spread over every slot; fewer items a chunk pay
 * a job and a commit transaction more often. A sweep of 100–1,000 items a chunk and concurrency 1–4
 * (`node bench/cluster-anchors.mjs --reps 3 --measures floor,harmflow1,harmflow2 --chunk-items C
 * --worker-concurrency W`, 2,000 × 7, on a host at one-minute load 3.5–6.4) gave 2,700–9,500
 * item-steps/s with no setting ahead beyond the noise but 100-item chunks behind (2,700–5,700/s).
 */
export const DEFAULT_CHUNK_ITEMS = 250;

/** A chunk that did not complete: its job failed (a refused file, a store error, workers lost). */
export class ChunkFailedError extends HarmflowError {
  constructor(message: string) {
    super(message, EXIT.internal);
  }
}

export interface ClusterExecutorOptions {
  readonly connection: RedisConnection;
  /** The prefix of the item queues' Redis keys: the workers'. Default DEFAULT_ITEM_PREFIX. */
  readonly prefix?: string;
  /** The absolute path of the workflow file the driven definition comes from (every worker has it there). */
  readonly module: string;
  /** Items a job of a code or effect step. Default DEFAULT_CHUNK_ITEMS. */
  readonly chunkItems?: number;
  /** Called with the queues' connection errors (ioredis reconnects by itself meanwhile). */
  readonly onError: (error: Error) => void;
}

export interface ClusterExecutor extends ItemExecutor {
  /** Closes the queues; steps still waiting reject. Idempotent. */
  close(): Promise<void>;
}

/** What a dispatched chunk's waiter is told: its result, or that it was removed before it started. */
type Ended = { readonly result: ChunkResult } | { readonly removed: true };

interface Waiter {
  readonly resolve: (ended: Ended) => void;
  readonly reject: (error: Error) => void;
}

/** An item queue and the events of its jobs, with the waiters of the jobs this executor added. */
interface Line {
  readonly queue: Queue;
  readonly events: QueueEvents;
  readonly waiters: Map<string, Waiter>;
}

/** Opens a cluster executor for the workflow file at `options.module` (hashing it now). */
export async function openClusterExecutor(options: ClusterExecutorOptions): Promise<ClusterExecutor> {
  const chunkItems = options.chunkItems ?? DEFAULT_CHUNK_ITEMS;
  if (!Number.isInteger(chunkItems) || chunkItems < 1) {
    throw new UsageError(`items a chunk must be a positive integer, not ${chunkItems}`);
  }
  const module = await moduleRef(options.module);
  const prefix = options.prefix ?? DEFAULT_ITEM_PREFIX;
  const lines = new Map<string, Promise<Line>>();
  let closed: Promise<void> | undefined;

  const line = (name: string): Promise<Line> => {
    if (closed !== undefined) return Promise.reject(new UsageError('the cluster executor is closed'));
    let opening = lines.get(name);
    if (opening === undefined) {
      opening = openLine(name, prefix, options);
      lines.set(name, opening);
      opening.catch(() => lines.delete(name));
    }
    return opening;
  };

  return {
    async computeStep(work, context, report) {
      const { step } = work;
      if (step.kind === 'agent' || work.items.length === 0) return IN_PROCESS.computeStep(work, context, report);
      const name = step.kind === 'model' ? modelQueueName(step.model) : GENERAL_ITEM_QUEUE;
      const { queue, waiters } = await line(name);
      if (step.kind === 'model' && (await queue.getWorkersCount()) === 0) {
        throw new ChunkFailedError(
          `no item worker serves model ${step.model.provider}/${step.model.name} (queue ${name}): start workers that serve it`,
        );
      }
      const size = step.kind === 'model' ? 1 : chunkItems;
      const nonce = randomBytes(6).toString('hex');
      const stepIndex = work.definition.steps.indexOf(step);
      const jobs: { readonly id: string; readonly data: ChunkJob }[] = [];
      for (let start = 0; start < work.items.length; start += size) {
        jobs.push({
          id: `${work.run}-${stepIndex}-${nonce}-${jobs.length}`,
          data: chunkJob(module, work, context.policy, context.budget.left, work.items.slice(start, start + size)),
        });
      }
      const ended = jobs.map(({ id }) => new Promise<Ended>((resolve, reject) => waiters.set(id, { resolve, reject })));
      const pending = new Set(jobs.map(({ id }) => id));
      /** Removes the chunks not started yet; their waiters hear `removed`. */
      const cancel = async (): Promise<void> => {
        await Promise.all(
          [...pending].map(async (id) => {
            if ((await queue.remove(id).catch(() => 0)) === 1) waiters.get(id)?.resolve({ removed: true });
          }),
        );
      };
      const onAbort = () => void cancel();
      context.signal?.addEventListener('abort', onAbort, { once: true });
      let failure: { readonly error: unknown } | undefined;
      try {
        await queue.addBulk(
          jobs.map(({ id, data }) => ({
            name: step.name,
            data,
            opts: { jobId: id, removeOnComplete: true, removeOnFail: true, attempts: 1 },
          })),
        );
        await Promise.all(
          ended.map(async (end, index) => {
            const id = (jobs[index] as { id: string }).id;
            let outcome: Ended;
            try {
              outcome = await end;
            } catch (error) {
              failure ??= { error };
              await cancel();
              return;
            } finally {
              pending.delete(id);
              waiters.delete(id);
            }
            if (!('result' in outcome) || failure !== undefined || context.signal?.aborted) return;
            for (const retry of outcome.result.retries) {
              context.budget.tryConsume();
              context.onRetry(retry.key, retry);
            }
            const spendRecorded = outcome.result.spendRecorded === true;
            for (const item of outcome.result.outcomes) {
              if (item.status === 'done') {
                const { key, digest, tries } = item;
                // An item reused by the worker (tries 0) spent nothing; one it found committed by a
                // worker lost before has its spend recorded with it, by that worker.
                await report({
                  status: 'committed',
                  key,
                  digest,
                  tries,
                  ...(item.output !== undefined && { output: item.output }),
                  ...spentOf(item.spent),
                  spendRecorded: spendRecorded || tries === 0,
                });
              } else if (item.status === 'failed') {
                const { spent, ...failed } = item;
                await report({ ...failed, committed: true, spendRecorded, ...spentOf(spent) });
              } else {
                const { spent, ...exhausted } = item;
                await report({ ...exhausted, spendRecorded, ...spentOf(spent) });
              }
            }
            if (work.stopping()) await cancel();
          }),
        );
      } finally {
        context.signal?.removeEventListener('abort', onAbort);
        for (const id of pending) waiters.delete(id);
      }
      context.signal?.throwIfAborted();
      if (failure !== undefined) throw failure.error;
    },

    close() {
      closed ??= (async () => {
        const opened = await Promise.allSettled(lines.values());
        for (const settled of opened) {
          if (settled.status !== 'fulfilled') continue;
          const { queue, events, waiters } = settled.value;
          for (const waiter of waiters.values()) waiter.reject(new UsageError('the cluster executor was closed'));
          await events.close();
          await queue.close();
        }
      })();
      return closed;
    },
  };
}

/** An outcome's `spent` as the engine takes it (fields left out rather than undefined). */
function spentOf(spent: ChunkOutcome['spent']): { spent?: Spent } {
  if (spent === undefined) return {};
  const { tries, durationMs, inputTokens, outputTokens, unreportedTokens } = spent;
  return {
    spent: {
      tries,
      ...(durationMs !== undefined && { durationMs }),
      ...(inputTokens !== undefined && { inputTokens }),
      ...(outputTokens !== undefined && { outputTokens }),
      ...(unreportedTokens !== undefined && { unreportedTokens }),
    },
  };
}

/** A chunk's job payload. */
function chunkJob(
  module: ModuleRef,
  work: StepWork,
  retry: ChunkJob['retry'],
  budgetLeft: number,
  items: readonly ReadyItem[],
): ChunkJob {
  return {
    module,
    run: work.run,
    ...(work.drive !== undefined && { drive: work.drive }),
    workflow: work.definition.name,
    step: work.step.name,
    retry,
    budgetLeft,
    items: items.map((item) => ({
      key: item.key,
      fingerprint: item.fingerprint,
      components: item.componentsText,
      input: item.input,
      ...(item.before !== undefined && { before: item.before }),
    })),
  };
}

/**
 * Opens queue `name` and starts reading its events from the last one written now, so no completion
 * of a job added afterwards can be missed (QueueEvents' default, `$`, starts at its first read).
 */
async function openLine(name: string, prefix: string, options: ClusterExecutorOptions): Promise<Line> {
  const connection = { ...options.connection };
  const queue = new Queue(name, { connection, prefix });
  queue.on('error', options.onError);
  const last = await lastEventId(connection, queue.keys.events as string);
  const events = new QueueEvents(name, { connection, prefix, lastEventId: last });
  events.on('error', options.onError);
  const waiters = new Map<string, Waiter>();
  events.on('completed', ({ jobId, returnvalue }) => {
    const waiter = waiters.get(jobId);
    if (waiter === undefined) return;
    const parsed = ChunkResult.safeParse(returnvalue);
    if (parsed.success) waiter.resolve({ result: parsed.data });
    else waiter.reject(new ChunkFailedError(`item job ${jobId} returned something that is not a chunk's result`));
  });
  events.on('failed', ({ jobId, failedReason }) => {
    waiters.get(jobId)?.reject(new ChunkFailedError(`item job ${jobId} failed: ${failedReason}`));
  });
  await events.waitUntilReady();
  return { queue, events, waiters };
}

/** The id of the last event in stream `key` now, or `0` when it has none (a connection of its own, closed after). */
async function lastEventId(connection: RedisConnection, key: string): Promise<string> {
  const redis = new Redis({ ...connection, maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    const [last] = await redis.xrevrange(key, '+', '-', 'COUNT', 1);
    return last?.[0] ?? '0';
  } finally {
    redis.disconnect();
  }
}
