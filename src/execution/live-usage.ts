/**
 * An attempt's usage so far, kept in its attempt record while it runs: every `intervalMs` the
 * observer's totals (tokens in and out, cost) are written when they changed, so the Workbench's
 * Executions screen shows tokens and cost so far. The attempt's end writes the final totals
 * (drive.ts), after `stop()` — which ends the writing and waits for a write in flight. A failed write
 * is tried again at the next tick; the final one is what counts. drive.ts owns one per attempt.
 */
import type { Store } from '../store/store.js';
import type { UsageTotals } from './attempt-observer.js';

/** 2 s: the Executions screen refreshes every 2 s; a write a tick at most, only when usage changed. */
const LIVE_USAGE_MS = 2000;

export class LiveUsage {
  readonly #timer: ReturnType<typeof setInterval>;
  #written = '{}';
  #writing: Promise<void> = Promise.resolve();

  constructor(
    store: Pick<Store, 'updateAttempt'>,
    attempt: { readonly execution: string; readonly number: number },
    usage: () => UsageTotals,
    intervalMs: number = LIVE_USAGE_MS,
  ) {
    this.#timer = setInterval(() => {
      const totals = { ...usage() };
      const text = JSON.stringify(totals);
      if (text === this.#written) return;
      this.#written = text;
      this.#writing = this.#writing
        .then(() => store.updateAttempt(attempt.execution, attempt.number, totals))
        .catch(() => {
          this.#written = '{}';
        });
    }, intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#writing;
  }
}
