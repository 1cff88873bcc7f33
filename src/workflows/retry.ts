/**
 * Retries one step item's transient failures: exponential backoff with full jitter, `Retry-After`
 * honoured, at most `maxTriesPerItem` tries per item and at most `runBudget` retries across the whole
 * run. Pure policy: sleeping, randomness and the clock are injected, so a caller decides what time is
 * and tests run instantly.
 *
 * `runWithRetries` never throws for what a try throws; it returns how the item ended. `defect`: the
 * item failed and the others go on. `exhausted` with reason `item`: this item used all its tries.
 * `exhausted` with reason `budget`: the run cannot afford to wait any longer — its retry budget is spent,
 * or a server asked for a longer wait than `maxRetryAfterMs` — so the run stops as crashed at this item,
 * resumable. The only rejection is an abort, with the signal's reason.
 *
 * One `RetryBudget` is shared by every item of a run. Its `tryConsume` is synchronous, so items running
 * concurrently on the event loop can never spend more than its limit between them.
 */
import { z } from 'zod';
import { UsageError } from '../core/errors.js';
import { type ClassifiedError, classifyError } from './errors.js';

/** The policy a run uses when its definition says nothing. */
export const DEFAULT_RETRY_POLICY = {
  /**
   * The first try and 4 retries. If tries failed independently with p = 0.1 (a bad stretch of
   * overload), five in a row fail with p⁵ = 10⁻⁵: ≈0.02 of 2,000 items would give up for nothing, where
   * three tries would lose ≈2. Failures that outlast 4 retries (at most 7.5 s of sleep at the defaults)
   * are rarely independent: they are an outage, which the run budget turns into a resumable crash.
   */
  maxTriesPerItem: 5,
  /**
   * The first backoff ceiling, as in the Anthropic and OpenAI SDKs (0.5 s): enough for a balancer to
   * move the call off a failing instance; full jitter makes a lone failure cost 250 ms on average.
   */
  baseDelayMs: 500,
  /**
   * The largest backoff ceiling. At 5 tries the doubling only reaches 4 s; this caps it when a user
   * raises `maxTriesPerItem` (it binds from the 7th retry on), so an item never sleeps more than half a
   * minute between tries: longer than an overload burst, negligible against an hours-long step.
   */
  maxDelayMs: 30_000,
  /**
   * The longest `Retry-After` we sleep through: 4 × `maxDelayMs`. Model APIs rate-limit per minute, so
   * their asks are at most 60 s and fit with a margin. A longer ask (an hourly or daily quota,
   * maintenance) is not a blip: sleeping through it would hold a concurrency slot while every other
   * item gets the same answer, so the run stops instead, resumable once the wait is over.
   */
  maxRetryAfterMs: 120_000,
  /**
   * Retries across the whole run. The statement run makes ≈5,200 model calls; 100 retries
   * absorb a background of transient errors up to ≈2% of them. It bounds what scattered failures
   * cost a run; an outage, where every call fails, already stops the run at the first item that runs
   * out of its own tries (the engine crashes the run then, resumable).
   */
  runBudget: 100,
  /** AWS "full jitter": a uniform sleep in [0, ceiling), the spread that best de-synchronises clients. */
  jitter: 'full',
} as const;

/**
 * 1 h: the longest one retry of an item may wait. A model API's limits reset within a minute or an
 * hour; a longer wait is a run standing still, and a delay past 2^31 − 1 ms would fire at once.
 */
const MAX_RETRY_DELAY_MS = 3_600_000;

/** A user's retry settings, every field optional; what is left out takes `DEFAULT_RETRY_POLICY`. */
export const RetryConfig = z
  .strictObject({
    maxTriesPerItem: z.int().min(1).default(DEFAULT_RETRY_POLICY.maxTriesPerItem),
    baseDelayMs: z.number().min(0).max(MAX_RETRY_DELAY_MS).default(DEFAULT_RETRY_POLICY.baseDelayMs),
    maxDelayMs: z.number().min(0).max(MAX_RETRY_DELAY_MS).default(DEFAULT_RETRY_POLICY.maxDelayMs),
    maxRetryAfterMs: z.number().min(0).max(MAX_RETRY_DELAY_MS).default(DEFAULT_RETRY_POLICY.maxRetryAfterMs),
    runBudget: z.int().min(0).default(DEFAULT_RETRY_POLICY.runBudget),
    jitter: z.literal('full').default(DEFAULT_RETRY_POLICY.jitter),
  })
  .refine((policy) => policy.maxDelayMs >= policy.baseDelayMs, {
    message: 'must be at least baseDelayMs',
    path: ['maxDelayMs'],
  });

/** The retry settings a run uses, complete. */
export type RetryPolicy = z.output<typeof RetryConfig>;
/** What a user may write: the settings of `RetryConfig`, every one optional. */
export type RetryConfig = z.input<typeof RetryConfig>;

/** Validates a user's partial retry settings and fills in the defaults; a `UsageError` names what is wrong. */
export function resolveRetryPolicy(input: unknown = {}): RetryPolicy {
  const parsed = RetryConfig.safeParse(input);
  if (parsed.success) return parsed.data;
  const reason = z.prettifyError(parsed.error).replace(/\s*\n\s*/g, ' ');
  throw new UsageError(`invalid retry settings: ${reason}`, { cause: parsed.error });
}

/**
 * Counts the retries a run has spent against its limit. Never refilled: a run resumed after a crash
 * should get a fresh one, or it would crash again at its first transient failure.
 */
export class RetryBudget {
  readonly limit: number;
  #spent = 0;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 0)
      throw new RangeError(`retry budget must be a whole number ≥ 0: ${limit}`);
    this.limit = limit;
  }

  /** Takes one retry if any is left and says whether it did. */
  tryConsume(): boolean {
    if (this.#spent >= this.limit) return false;
    this.#spent += 1;
    return true;
  }

  get spent(): number {
    return this.#spent;
  }

  get left(): number {
    return this.limit - this.#spent;
  }
}

/**
 * How long to sleep after try `tryNumber` (1 = the first try) failed: uniform in
 * [0, min(maxDelayMs, baseDelayMs · 2^(tryNumber − 1))), or the server's `retryAfterMs` when that is
 * longer — never less than the server asked. The caller refuses asks over `maxRetryAfterMs` first.
 */
export function nextDelay(policy: RetryPolicy, tryNumber: number, random: () => number, retryAfterMs?: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (tryNumber - 1));
  const jittered = Math.floor(Math.min(Math.max(random(), 0), 1) * ceiling);
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** What `onRetry` hears before each sleep: the try that failed, how long we sleep, and why. */
export type RetryInfo = { tryNumber: number; delayMs: number; error: ClassifiedError };

export type RetryOptions = {
  policy: RetryPolicy;
  /** The run's budget, shared by all its items. */
  budget: RetryBudget;
  /** Resolves after `ms`; may use the signal to stop early (an abort wins the race either way). */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Uniform in [0, 1), like `Math.random`. */
  random: () => number;
  /** Milliseconds since the epoch, to read a `Retry-After` date; `Date.now` when left out. */
  now?: () => number;
  onRetry?: (info: RetryInfo) => void;
  signal?: AbortSignal;
};

export type RetryOutcome<T> =
  | { ok: true; value: T; tries: number }
  | { ok: false; kind: 'defect'; error: string; tries: number }
  | { ok: false; kind: 'exhausted'; reason: 'item' | 'budget'; error: string; tries: number };

/**
 * Runs `attempt` (given the 1-based try number) until it succeeds, fails with a defect, or runs out of
 * tries or budget; see the file comment for the outcomes. The budget is charged only for retries
 * actually made, never for an item's last failure. A try that succeeds after the signal was aborted
 * still returns its value: the work is done and the caller may keep it. Rejects only when the signal is
 * aborted (before a try, after a failed one, or during a sleep), with the signal's reason; whatever
 * `onRetry` or `sleep` throw also propagates, as the caller's own fault.
 */
export async function runWithRetries<T>(
  attempt: (tryNumber: number) => Promise<T>,
  options: RetryOptions,
): Promise<RetryOutcome<T>> {
  const { policy, budget, signal } = options;
  for (let tryNumber = 1; ; tryNumber += 1) {
    signal?.throwIfAborted();
    let thrown: unknown;
    try {
      return { ok: true, value: await attempt(tryNumber), tries: tryNumber };
    } catch (error) {
      signal?.throwIfAborted();
      thrown = error;
    }
    const error = classifyError(thrown, options.now);
    if (error.kind === 'defect') return { ok: false, kind: 'defect', error: error.message, tries: tryNumber };
    const exhausted = (reason: 'item' | 'budget', message = error.message): RetryOutcome<T> => ({
      ok: false,
      kind: 'exhausted',
      reason,
      error: message,
      tries: tryNumber,
    });
    if (tryNumber >= policy.maxTriesPerItem) return exhausted('item');
    if (error.retryAfterMs !== undefined && error.retryAfterMs > policy.maxRetryAfterMs) {
      const asked = `${seconds(error.retryAfterMs)}, over the ${seconds(policy.maxRetryAfterMs)} allowed`;
      return exhausted('budget', `the server asked to wait ${asked}: ${error.message}`);
    }
    if (!budget.tryConsume())
      return exhausted('budget', `${error.message} (the run's retry budget of ${budget.limit} retries is spent)`);
    const delayMs = nextDelay(policy, tryNumber, options.random, error.retryAfterMs);
    options.onRetry?.({ tryNumber, delayMs, error });
    await pause(options.sleep, delayMs, signal);
  }
}

/** Sleeps, or rejects with the signal's reason as soon as it is aborted. */
async function pause(sleep: RetryOptions['sleep'], ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return sleep(ms);
  signal.throwIfAborted();
  let onAbort = (): void => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([sleep(ms, signal), aborted]);
  } catch (error) {
    signal.throwIfAborted();
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
