/**
 * The dispatch worker: takes jobs of the dispatch queue (dispatch.ts), up to its concurrency, and
 * runs the caller's handler for each job's execution while it holds the execution's lease (lease.ts).
 *
 * Per job:
 * 1. The payload is checked (a job that is not a dispatch fails at once, unretried).
 * 2. A job taken while the worker is paused (BullMQ may hand one to a fetch that was waiting when
 *    `pause()` came) is moved back, due in PAUSED_RETRY_MS, for a worker with room.
 *    The lease is acquired. While another lease of the execution is unexpired (its worker alive but
 *    cut off from Redis long enough to lose the job, or dead less than a ttl ago), the job is moved
 *    back, delayed until that lease would expire, and taken again then by whichever worker is free:
 *    no attempt is used up, nothing spins, and a lease that keeps being renewed keeps the job waiting
 *    for as long as its holder drives the execution. (Failing the job to have BullMQ retry it would
 *    use up attempts on a wait, and lose the execution once they ran out.) A PostgreSQL error here
 *    moves the job back likewise, after LEASE_ERROR_RETRY_MS.
 * 3. The handler runs with the lease's token and two signals; the lease is renewed meanwhile
 *    (kept-lease.ts). `signal` aborts when the lease is lost, `stopping` when the worker closes; the
 *    handler must then stop driving the execution (leaving it open) and return soon. A handler that
 *    learns of the loss first, from a write its lease's token fenced (refused: LeaseLostError),
 *    rejects with that error, and the lease counts as lost as if `signal` had aborted.
 * 4. Then the lease is released (a no-op if another worker has acquired it since). The lease lost,
 *    or the worker closing, the job is handed back (moved to delayed, due at once) if this worker
 *    still holds it, and left alone if it does not (another worker took it), whatever the handler
 *    returned: another worker carries the execution on. Otherwise the job completes, or fails if the
 *    handler threw.
 *    BullMQ does not retry a failed job (dispatch.ts: one attempt): the handler drives the execution
 *    to an outcome in the store itself, so a throw means it could not, and running it blindly again
 *    could repeat what it did. Failed jobs, and jobs BullMQ failed after too many lost workers, are
 *    reported to `onError` as DispatchFailedError, for the caller to record in the store.
 *
 * Concurrency is a number the caller gives: BullMQ's `concurrency`, the most jobs this worker runs at
 * once, so it never takes a job it has no room for (a job taken and then held waiting for room would
 * be kept from idle workers). The worker process (cli/worker.ts) sets it from its admission's cap
 * (idle cores, or the configured maximum), and pauses the worker (`pause`) while admission is held
 * (disk floor).
 */
import { DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq';
import { z } from 'zod';
import { describeError, EXIT, HarmflowError, UsageError } from '../core/errors.js';
import { DISPATCH_LOCK, DISPATCH_QUEUE, DispatchJob, type DispatchLock } from './dispatch.js';
import { DEFAULT_LEASE, keepLease, LeaseLostError, type LeaseSettings, leaseCallError } from './kept-lease.js';
import type { ExecutionLeases } from './lease.js';
import { DEFAULT_DISPATCH_PREFIX, type RedisConnection } from './queue-url.js';

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

/**
 * 5 s: how long a job taken by a paused worker waits, moved back, before any worker may take it
 * again: as long as the worker process's admission checks are apart (cli/worker.ts), so a job does
 * not bounce between paused workers faster than they can resume, for one Redis round trip a wait.
 */
export const PAUSED_RETRY_MS = 5_000;

/** What a handler is given with its execution. */
export interface HandlerContext {
  /** The fencing token of this worker's lease of the execution: greater than any earlier holder's. */
  readonly token: number;
  /** Aborts, with a LeaseLostError (kept-lease.ts), once the lease is lost. */
  readonly signal: AbortSignal;
  /**
   * Aborts once the worker is closing: the handler should leave the execution open for another
   * worker (it still holds the lease until it returns) and return soon; the job is handed back.
   */
  readonly stopping: AbortSignal;
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
  /** Starts paused (as `pause()`): no job runs until `resume()`. Default false. */
  readonly paused?: boolean;
}

/** A running dispatch worker. */
export interface DispatchWorker {
  readonly workerId: string;
  /**
   * Stops taking new jobs until `resume()`; running handlers go on. Resolves once BullMQ has paused;
   * a job a fetch already under way still brings is moved back at once (step 2). Idempotent.
   */
  pause(): Promise<void>;
  /** Takes jobs again after `pause()`. A no-op while not paused or once closing. */
  resume(): void;
  /**
   * Stops taking jobs, aborts the running handlers' `stopping` signal and waits for them to return
   * (their jobs handed back), then closes its Redis connections. Idempotent. Does not close the
   * leases.
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

  const stopping = new AbortController();
  /** True from `pause()` to `resume()`: jobs taken meanwhile are moved back. */
  let holding = options.paused === true;
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
    if (holding) return later(PAUSED_RETRY_MS);

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
      await handle(execution, { token, signal: kept.signal, stopping: stopping.signal });
    } catch (error) {
      failure = { error };
    }
    await kept.stop();
    // A no-op when another worker has acquired the lease since; when this worker only lost track of
    // it (renewals failing), it frees it for the next taker at once instead of after its ttl.
    await leases
      .releaseLease(execution, workerId, token)
      .catch((error: unknown) => onError(leaseCallError('release', execution, error)));
    const lost = kept.signal.aborted || failure?.error instanceof LeaseLostError;
    if (lost || stopping.signal.aborted) {
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
  let paused: Promise<void> | undefined = holding ? worker.pause(true) : undefined;
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
    pause() {
      holding = true;
      // `true`: the jobs running are not waited for; they go on.
      paused ??= worker.pause(true);
      return paused;
    },
    resume() {
      if (paused === undefined || closed !== undefined) return;
      holding = false;
      paused = undefined;
      void worker.resume();
    },
    close() {
      if (closed === undefined) {
        stopping.abort();
        closed = worker.close();
      }
      return closed;
    },
  };
}
