/**
 * The dispatch worker: takes jobs of the dispatch queue (dispatch.ts), up to its concurrency, and
 * runs the caller's handler for each job's execution while it holds the execution's lease (lease.ts).
 *
 * Per job:
 * 1. The payload is checked (a job that is not a dispatch fails at once, unretried).
 * 2. The lease is acquired. While another lease of the execution is unexpired (its worker alive but
 *    cut off from Redis long enough to lose the job, or dead less than a ttl ago), the job is moved
 *    back, delayed until that lease would expire, and taken again then by whichever worker is free:
 *    no attempt is used up, nothing spins, and a lease that keeps being renewed keeps the job waiting
 *    for as long as its holder drives the execution. (Failing the job to have BullMQ retry it would
 *    use up attempts on a wait, and lose the execution once they ran out.) A PostgreSQL error here
 *    moves the job back likewise, after LEASE_ERROR_RETRY_MS.
 * 3. The handler runs with the lease's token and a signal; the lease is renewed meanwhile
 *    (kept-lease.ts). The signal aborts when the lease is lost; the handler must then stop driving
 *    the execution and return soon.
 * 4. Then the lease is released (a no-op if another worker has acquired it since). The lease lost,
 *    the job is handed back (moved to delayed, due at once) if this worker still holds it, and left
 *    alone if it does not (another worker took it), whatever the handler returned. Otherwise the job
 *    completes, or fails if the handler threw.
 *    BullMQ does not retry a failed job (dispatch.ts: one attempt): the handler drives the execution
 *    to an outcome in the store itself, so a throw means it could not, and running it blindly again
 *    could repeat what it did. Failed jobs, and jobs BullMQ failed after too many lost workers, are
 *    reported to `onError` as DispatchFailedError, for the caller to record in the store.
 *
 * Concurrency is a number the caller gives: BullMQ's `concurrency`, the most jobs this worker runs at
 * once, so it never takes a job it has no room for (a job taken and then held waiting for room would
 * be kept from idle workers). The worker process that will wire this to the engine is to set it
 * from its admission's cap (idle cores, or the configured maximum), and to stop taking jobs while
 * admission is held (disk floor, operator hold).
 */
import { DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq';
import { z } from 'zod';
import { describeError, EXIT, HarmflowError, UsageError } from '../core/errors.js';
import { DEFAULT_DISPATCH_PREFIX, DISPATCH_LOCK, DISPATCH_QUEUE, DispatchJob, type DispatchLock } from './dispatch.js';
import { DEFAULT_LEASE, keepLease, type LeaseSettings, leaseCallError } from './kept-lease.js';
import type { ExecutionLeases } from './lease.js';
import type { RedisConnection } from './queue-url.js';

/**
 * 1 s: how long a job waits, moved back, after PostgreSQL failed its lease acquire: soon enough for a
 * restart or a failover, without retrying a failing server in a tight loop.
 */
export const LEASE_ERROR_RETRY_MS = 1_000;

/**
 * 100 ms: added to the time left on another worker's lease before its job is tried again (so the
 * retry finds it expired, not about to), and the shortest wait (a lease that expired between the
 * acquire and the read of its holder).
 */
export const LEASE_RETRY_MARGIN_MS = 100;

/** What a handler is given with its execution. */
export interface HandlerContext {
  /** The fencing token of this worker's lease of the execution: greater than any earlier holder's. */
  readonly token: number;
  /** Aborts, with a LeaseLostError (kept-lease.ts), once the lease is lost. */
  readonly signal: AbortSignal;
}

/**
 * Drives `execution` (reads it from the store, runs it, records its outcome) and resolves once this
 * worker has nothing more to do for it now. It may be called again for the same execution later (a
 * dispatch made while it ran, a worker taking over), so it must find in the store what is left to do.
 */
export type ExecutionHandler = (execution: string, context: HandlerContext) => Promise<void>;

export interface DispatchWorkerOptions {
  readonly connection: RedisConnection;
  /** The prefix of the queue's Redis keys: the dispatchers'. Default DEFAULT_DISPATCH_PREFIX. */
  readonly prefix?: string;
  /** This worker's name in the leases (unique in the cluster, e.g. host and process id). */
  readonly workerId: string;
  /** The most jobs run at once: a positive integer. */
  readonly concurrency: number;
  /** The leases, owned by the caller, who closes them after the worker. */
  readonly leases: ExecutionLeases;
  readonly handle: ExecutionHandler;
  /** Errors no job's result carries: connections, lease renewals, locks lost, DispatchFailedError. */
  readonly onError: (error: Error) => void;
  /** Default DEFAULT_LEASE. */
  readonly lease?: LeaseSettings;
  /** Default DISPATCH_LOCK; every worker of a queue should have the same. */
  readonly lock?: DispatchLock;
}

/** A running dispatch worker. */
export interface DispatchWorker {
  readonly workerId: string;
  /**
   * Stops taking jobs, waits for the running handlers to return (and their jobs to be settled), then
   * closes its Redis connections. Idempotent. Does not close the leases.
   */
  close(): Promise<void>;
}

/** A dispatch that ended without its handler completing: it threw, or too many workers were lost. */
export class DispatchFailedError extends HarmflowError {
  /** The execution, when the failed job's payload named one. */
  readonly execution: string | undefined;
  constructor(execution: string | undefined, cause: Error) {
    super(`the dispatch of execution ${execution ?? '(unknown)'} failed: ${describeError(cause)}`, EXIT.internal, {
      cause,
    });
    this.execution = execution;
  }
}

const Concurrency = z.int().positive();

/**
 * Starts a dispatch worker and resolves once it is connected to Redis and taking jobs. Rejects with a
 * UsageError for an empty worker id, a concurrency that is not a positive integer, or lease settings
 * that renew no sooner than they expire.
 */
export async function startDispatchWorker(options: DispatchWorkerOptions): Promise<DispatchWorker> {
  const { leases, workerId, handle, onError, lease = DEFAULT_LEASE, lock = DISPATCH_LOCK } = options;
  if (workerId.trim() === '') throw new UsageError("a dispatch worker's id must not be empty");
  if (!Concurrency.safeParse(options.concurrency).success) {
    throw new UsageError(`a dispatch worker's concurrency must be a positive integer, not ${options.concurrency}`);
  }
  if (!(lease.renewEveryMs > 0 && lease.renewEveryMs < lease.ttlMs)) {
    throw new UsageError(
      `a lease must be renewed more often than it expires (${lease.renewEveryMs} ≥ ${lease.ttlMs} ms)`,
    );
  }

  const run = async (job: Job<unknown>, jobToken?: string): Promise<void> => {
    if (jobToken === undefined) throw new UnrecoverableError('BullMQ gave a job without its lock token');
    const payload = DispatchJob.safeParse(job.data);
    if (!payload.success) throw new UnrecoverableError(`job ${job.id} is not a dispatch of an execution`);
    const { execution } = payload.data;
    /** Moves the job back, due in `ms`, and ends this run of it (BullMQ's DelayedError). */
    const later = async (ms: number): Promise<never> => {
      await job.moveToDelayed(Date.now() + ms, jobToken);
      throw new DelayedError();
    };

    const acquiredAt = performance.now();
    let token: number | undefined;
    try {
      token = await leases.acquireLease(execution, workerId, lease.ttlMs);
    } catch (error) {
      onError(leaseCallError('acquire', execution, error));
      return later(LEASE_ERROR_RETRY_MS);
    }
    if (token === undefined) {
      const holder = await leases.leaseHolder(execution).catch(() => undefined);
      const wait = (holder?.expiresInMs ?? 0) + LEASE_RETRY_MARGIN_MS;
      return later(Math.min(lease.ttlMs + LEASE_RETRY_MARGIN_MS, wait));
    }

    const kept = keepLease(leases, { execution, worker: workerId, token, acquiredAt }, lease, onError);
    let failure: { readonly error: unknown } | undefined;
    try {
      await handle(execution, { token, signal: kept.signal });
    } catch (error) {
      failure = { error };
    }
    await kept.stop();
    // A no-op when another worker has acquired the lease since; when this worker only lost track of
    // it (renewals failing), it frees it for the next taker at once instead of after its ttl.
    await leases
      .releaseLease(execution, workerId, token)
      .catch((error: unknown) => onError(leaseCallError('release', execution, error)));
    if (kept.signal.aborted) {
      // Moving it fails when this worker's lock is gone: the job is another worker's now.
      await job.moveToDelayed(Date.now(), jobToken).catch(() => {});
      throw new DelayedError();
    }
    if (failure !== undefined) throw failure.error;
  };

  const worker = new Worker<unknown, void>(DISPATCH_QUEUE, run, {
    connection: { ...options.connection },
    prefix: options.prefix ?? DEFAULT_DISPATCH_PREFIX,
    name: workerId,
    concurrency: options.concurrency,
    lockDuration: lock.lockDurationMs,
    stalledInterval: lock.stalledIntervalMs,
    maxStalledCount: lock.maxStalledCount,
  });
  worker.on('error', onError);
  worker.on('failed', (job, error) => {
    const payload = DispatchJob.safeParse(job?.data);
    onError(new DispatchFailedError(payload.success ? payload.data.execution : undefined, error));
  });
  try {
    await worker.waitUntilReady();
  } catch (error) {
    await worker.close(true);
    throw error;
  }

  let closed: Promise<void> | undefined;
  return {
    workerId,
    close() {
      closed ??= worker.close();
      return closed;
    },
  };
}
