/**
 * Keeping an execution lease (lease.ts) while its handler runs: renewing it on a timer, and telling
 * the handler, through an AbortSignal, the moment it cannot be sure to hold it any more.
 */
import { describeError, EXIT, HarmflowError } from '../core/errors.js';
import type { ExecutionLeases } from './lease.js';

/** How long a worker's lease lasts unrenewed, and how often it is renewed while its handler runs. */
export interface LeaseSettings {
  readonly ttlMs: number;
  /** Less than `ttlMs`: the renewals that may fail in a row before the lease is lost are ttl / renewEvery − 1. */
  readonly renewEveryMs: number;
}

/**
 * The lease settings of the dispatch worker. 15 s: a dead worker's lease expires at most 15 s after
 * its death, before BullMQ has surely moved its job back (up to 25 s, dispatch.ts), so the lease never
 * lengthens a take-over; a worker that gets the job earlier waits for the lease (worker-loop.ts).
 * Renewed every 5 s, so two renewals in a row may fail (PostgreSQL restarting, a slow failover) before
 * the handler is told to stop; a renewal is one indexed UPDATE, a few a minute per running execution.
 */
export const DEFAULT_LEASE: LeaseSettings = { ttlMs: 15_000, renewEveryMs: 5_000 };

/** Why a handler's signal aborted: its worker does not hold the execution's lease any more. */
export class LeaseLostError extends HarmflowError {
  readonly execution: string;
  constructor(execution: string, message: string) {
    super(message, EXIT.conflict);
    this.execution = execution;
  }
}

/** The error of a lease call (`action`: acquire, renew, release) that PostgreSQL failed. */
export function leaseCallError(action: string, execution: string, cause: unknown): HarmflowError {
  return new HarmflowError(
    `could not ${action} the lease of execution ${execution}: ${describeError(cause)}`,
    EXIT.internal,
    {
      cause,
    },
  );
}

/** A lease being kept. */
export interface KeptLease {
  /** Aborts, with a LeaseLostError, once the lease is lost; never after `stop()`. */
  readonly signal: AbortSignal;
  /** Stops renewing (waiting for a renewal under way). Idempotent. Does not release the lease. */
  stop(): Promise<void>;
}

/** The lease `worker` holds on `execution` under `token`, as keepLease is given it. */
export interface HeldLease {
  readonly execution: string;
  readonly worker: string;
  readonly token: number;
  /** `performance.now()` when the acquire that gave the token was sent: the lease lasts ttl from after it. */
  readonly acquiredAt: number;
}

/**
 * Renews `held` every `settings.renewEveryMs` until `stop()`. The signal aborts when a renewal finds
 * the lease taken over (another worker acquired it), or when `ttlMs` have passed, by this process's
 * monotonic clock, since the last acquire or renewal that succeeded was sent: the lease may have
 * expired then, and another worker acquired it, even if no renewal could say so (PostgreSQL
 * unreachable, a renewal hanging). Renewal errors before that are passed to `onError` and retried
 * at the next tick.
 */
export function keepLease(
  leases: ExecutionLeases,
  held: HeldLease,
  settings: LeaseSettings,
  onError: (error: Error) => void,
): KeptLease {
  const { execution, worker, token } = held;
  const controller = new AbortController();
  let stopped = false;
  let renewal: Promise<void> | undefined;
  let expiry: NodeJS.Timeout | undefined;

  const lose = (message: string) => {
    if (stopped || controller.signal.aborted) return;
    clearInterval(ticker);
    clearTimeout(expiry);
    controller.abort(new LeaseLostError(execution, message));
  };
  /** Aborts once `ttlMs` have passed since `sentAt` unless a later renewal re-arms it. */
  const armExpiry = (sentAt: number) => {
    clearTimeout(expiry);
    expiry = setTimeout(
      () => lose(`the lease of execution ${execution} went ${settings.ttlMs} ms without a renewal`),
      Math.max(0, sentAt + settings.ttlMs - performance.now()),
    );
    expiry.unref();
  };
  const renew = async () => {
    const sentAt = performance.now();
    try {
      const renewed = await leases.renewLease(execution, worker, token, settings.ttlMs);
      if (!renewed) lose(`the lease of execution ${execution} was taken over by another worker`);
      else if (!stopped && !controller.signal.aborted) armExpiry(sentAt);
    } catch (error) {
      if (!stopped) onError(leaseCallError('renew', execution, error));
    }
  };

  armExpiry(held.acquiredAt);
  const ticker = setInterval(() => {
    renewal ??= renew().finally(() => {
      renewal = undefined;
    });
  }, settings.renewEveryMs);
  ticker.unref();

  return {
    signal: controller.signal,
    async stop() {
      stopped = true;
      clearInterval(ticker);
      clearTimeout(expiry);
      await renewal;
    },
  };
}
