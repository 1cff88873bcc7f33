/**
 * Time as the engine's quota decisions see it: what time it is, and waiting until later. The system
 * clock in use; a test gives a clock it moves by hand, so "the reset passes" takes no real time.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after `ms` (at once for `ms` ≤ 0), or when `signal` aborts; never rejects. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    if (ms <= 0 || signal?.aborted) return;
    await sleep(ms, undefined, signal ? { signal } : undefined).catch(() => undefined);
  },
};
