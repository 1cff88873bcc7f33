/**
 * The dispatch queue of cluster mode: one BullMQ queue on Redis in which a job says "some worker must
 * look at this execution now". The store stays the source of truth: a job carries only the
 * execution's id, and the worker that takes it reads everything else from the store. BullMQ keeps no
 * record of its own: a job is deleted as it completes or fails (removeOnComplete, removeOnFail).
 *
 * Dispatching is idempotent per execution, through BullMQ's deduplication keyed by the execution id,
 * with `keepLastIfActive`:
 * - while a job of the execution waits (or is delayed), dispatching it again does nothing;
 * - while one is active, dispatching it again adds nothing now, but leaves one job that is added
 *   when the active one finishes (however many dispatches came meanwhile): a dispatch made after the
 *   handler's last look at the store (a follow-up message that arrived as the attempt ended) is not
 *   lost. The handler then finds in the store whether anything is left to do;
 * - once the job finished (and was deleted), dispatching it again adds a new job.
 * Job ids are BullMQ's own counter, not the execution id: a job id that exists makes `add` a no-op
 * before deduplication is looked at, so an execution-id job id would lose a dispatch made while its
 * job is active, or need a remove-then-add that races with other dispatchers.
 */
import { Queue } from 'bullmq';
import { z } from 'zod';
import { UsageError } from '../core/errors.js';
import { isExecutionId } from '../core/execution-id-shape.js';
import { DEFAULT_DISPATCH_PREFIX, type RedisConnection } from './queue-url.js';

/** The name of the BullMQ queue of executions. */
export const DISPATCH_QUEUE = 'harmflow-executions';

/** The name every job of the queue has (BullMQ wants one; the queue holds one kind of job). */
export const DISPATCH_JOB_NAME = 'execution';

/** A job's payload: the execution to look at. Checked by the dispatcher and again by the worker. */
export const DispatchJob = z.strictObject({
  execution: z.string().refine(isExecutionId, { error: 'is not an execution id' }),
});
export type DispatchJob = z.infer<typeof DispatchJob>;

/**
 * How a worker holds the jobs it runs, and how a dead worker's jobs come back (BullMQ's lock and
 * stalled check; every worker of one queue should use the same values).
 */
export interface DispatchLock {
  /** How long a job's lock lasts unrenewed. BullMQ renews it, while the handler runs, every half of it or sooner. */
  readonly lockDurationMs: number;
  /** How often a worker looks for active jobs whose lock has expired, and moves them back to wait. */
  readonly stalledIntervalMs: number;
  /** How many times one job may come back from a lost worker; the next loss fails it. */
  readonly maxStalledCount: number;
}

/**
 * The lock settings of the dispatch queue.
 *
 * A dead worker's job is taken by another within `lockDurationMs + stalledIntervalMs`: 25 s. Its lock
 * expires at most `lockDurationMs` (15 s) after its death; a check marks every active job and the
 * next check, `stalledIntervalMs` (10 s) later, moves those still unlocked to wait; the surviving
 * workers are woken by the move. Its execution lease (15 s, kept-lease.ts) has expired by then, so
 * the take-over waits no longer. (BullMQ's defaults, 30 s and 30 s, take up to 60 s.) Measured with
 * the tests' 1 s lock and 0.5 s interval: a SIGKILLed worker's execution ran on another 1.0 to 1.5 s
 * after the kill (test/cluster/worker-process.test.ts), within their 1.5 s bound plus scheduling.
 *
 * A live worker keeps its jobs however long they run: BullMQ renews each lock every 3.75 to 7.5 s
 * while the handler runs, so a job is moved only after 15 s in which none of two or more renewals
 * reached Redis (the process stopped, its event loop blocked, the network cut). Even then the
 * execution lease (lease.ts) keeps any other worker from driving the execution until the holder has
 * also failed to renew that for its whole ttl; and the holder is then told (its signal aborts).
 *
 * `maxStalledCount` 2: an execution survives the loss of two workers (a crash, an OOM kill, a lost
 * machine; a graceful stop waits for its jobs and loses none). A third loss of the same job is more
 * likely the execution killing its workers than bad luck, and retrying it would take down another
 * worker; the job fails instead, and the worker that finds it reports it (worker-loop.ts).
 */
export const DISPATCH_LOCK: DispatchLock = {
  lockDurationMs: 15_000,
  stalledIntervalMs: 10_000,
  maxStalledCount: 2,
};

/** The queue of executions a dispatcher adds to. */
export type DispatchQueue = Queue<DispatchJob, void, typeof DISPATCH_JOB_NAME>;

export interface DispatchQueueOptions {
  readonly connection: RedisConnection;
  /** The prefix of the queue's Redis keys. Default DEFAULT_DISPATCH_PREFIX; tests use one each. */
  readonly prefix?: string;
  /** Called with the queue's connection errors (ioredis reconnects by itself meanwhile). */
  readonly onError: (error: Error) => void;
}

/**
 * Opens the dispatch queue on Redis (connecting in the background; the first call waits for it). The
 * caller owns it and closes it (`queue.close()`).
 */
export function openDispatchQueue(options: DispatchQueueOptions): DispatchQueue {
  const queue: DispatchQueue = new Queue(DISPATCH_QUEUE, {
    connection: { ...options.connection },
    prefix: options.prefix ?? DEFAULT_DISPATCH_PREFIX,
  });
  queue.on('error', options.onError);
  return queue;
}

/**
 * Dispatches `execution`: resolves once the queue holds a job for it (a new one, or one waiting
 * already), or one that will be added when its active job finishes. Rejects with a UsageError, adding
 * nothing, when `execution` is not an execution id.
 */
export async function dispatchExecution(queue: DispatchQueue, execution: string): Promise<void> {
  const data = DispatchJob.safeParse({ execution });
  if (!data.success) throw new UsageError(`cannot dispatch ${JSON.stringify(execution)}: it is not an execution id`);
  await queue.add(DISPATCH_JOB_NAME, data.data, {
    deduplication: { id: execution, keepLastIfActive: true },
    removeOnComplete: true,
    removeOnFail: true,
    // A handler that throws has reported what it could; BullMQ does not run it again (worker-loop.ts).
    attempts: 1,
  });
}
