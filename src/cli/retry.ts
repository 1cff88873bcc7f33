/**
 * Retrying a keyed write while the service restarts: `harmflow submit` and `harmflow send` send one
 * `Idempotency-Key` per invocation (client.ts), so a request sent again is done once by the service
 * (docs/api.md, "Idempotency"), and a request whose answer was lost with the connection can safely
 * go again. Which failures mean "restarting": the connection refused or lost before an answer
 * (nothing listens yet, or the process died mid-request), and a 503 saying the service is stopping.
 * A timeout is not one (the service is stuck, not restarting), nor a 503 for admission held.
 */

/** How long and how often a keyed write is tried again. */
export interface RetryPolicy {
  /** The most time the waits between tries add up to. */
  readonly windowMs: number;
  /** The first wait; each next one doubles, up to `maxDelayMs`. */
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * About 10 s in all (waits of 0.25, 0.5, 1, 2, 2, 2 and 2 s: 8 tries). A supervisor restarts the
 * service at once, and `harmflow serve` listens 1 to 1.7 s after it starts (measured: the time to
 * its "HarmFlow service on" line; it recovers its executions after it listens); 10 s covers that
 * several times over, and a service down for longer is reported (exit 8) rather than waited on.
 * The first waits are short: a retry that comes too early only costs a refused connection.
 */
export const RESTART_RETRY: RetryPolicy = { windowMs: 10_000, firstDelayMs: 250, maxDelayMs: 2_000 };

/** The waits before each retry under `policy`: doubling, capped, and within its window in sum. */
export function retryDelays(policy: RetryPolicy): number[] {
  const delays: number[] = [];
  let total = 0;
  for (let delay = policy.firstDelayMs; ; delay = Math.min(delay * 2, policy.maxDelayMs)) {
    if (delay <= 0 || total + delay > policy.windowMs) return delays;
    delays.push(delay);
    total += delay;
  }
}

/** How an attempt settled: a value, or an error it threw. */
export type Outcome<T> = { readonly value: T } | { readonly error: unknown };

/**
 * Runs `attempt`, and again after each of `delays` while `again` says its outcome is worth
 * retrying; returns the last value, or throws the last error.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  again: (outcome: Outcome<T>) => boolean,
  delays: readonly number[],
): Promise<T> {
  for (let tried = 0; ; tried++) {
    let outcome: Outcome<T>;
    try {
      outcome = { value: await attempt() };
    } catch (error) {
      outcome = { error };
    }
    const delay = delays[tried];
    if (delay === undefined || !again(outcome)) {
      if ('error' in outcome) throw outcome.error;
      return outcome.value;
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** The causes of a failed fetch that mean no answer came: refused, reset, or closed mid-request. */
const CONNECTION_LOST = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** True when `error` (from `fetch`, or reading its body) says the connection failed before an answer. */
export function connectionLost(error: unknown): boolean {
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  return CONNECTION_LOST.has((cause as NodeJS.ErrnoException | undefined)?.code ?? '');
}
