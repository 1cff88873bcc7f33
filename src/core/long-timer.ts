/**
 * Timers for delays of any length. Node's setTimeout takes a delay of at most 2^31-1 ms (24.8 days)
 * and fires a longer one after 1 ms, with a TimeoutOverflowWarning: a 30-day task deadline or a
 * quota reset a month away would come at once. These arm a timer of at most that delay, and on
 * its firing arm the next one, until the target time (the wall clock, read on each re-arm) is reached.
 * Arm every deadline or wait whose length comes from a user or a harness with these.
 */

/** 2^31-1 ms (about 24.8 days): the longest delay Node's setTimeout honours. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** A timer armed by setLongTimeout. */
export interface LongTimeout {
  /** Disarms it: its callback is not called after this. Idempotent. */
  clear(): void;
}

/**
 * Calls `fn` once, `ms` from now (at once for `ms` ≤ 0), like setTimeout but for any delay. Like
 * setTimeout's, its timer keeps the process alive until it fires or is cleared.
 */
export function setLongTimeout(fn: () => void, ms: number): LongTimeout {
  const target = Date.now() + Math.max(0, ms);
  let timer: NodeJS.Timeout;
  const arm = (): void => {
    const left = target - Date.now();
    timer = left > MAX_TIMER_DELAY_MS ? setTimeout(arm, MAX_TIMER_DELAY_MS) : setTimeout(fn, Math.max(0, left));
  };
  arm();
  return { clear: () => clearTimeout(timer) };
}

/**
 * Resolves after `ms` (at once for `ms` ≤ 0), or as soon as `signal` aborts (at once when it has
 * already); never rejects, so a caller tells the two apart by `signal.aborted`.
 */
export function sleepLong(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      timer.clear();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setLongTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
