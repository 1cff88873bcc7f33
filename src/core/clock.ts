/**
 * Time as the engine's quota decisions see it: what time it is, and waiting until later. The system
 * clock in use; a test gives a clock it moves by hand, so "the reset passes" takes no real time.
 */
import { sleepLong } from './long-timer.js';

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /**
   * Resolves after `ms` (at once for `ms` ≤ 0), or when `signal` aborts; never rejects. Any `ms`:
   * a quota reset may be days or weeks away, past what one Node timer can wait (long-timer.ts).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleepLong(ms, signal),
};
