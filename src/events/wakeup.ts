/**
 * Wakeup lets one follower sleep until something reports a change (a file watcher, a local append,
 * a PostgreSQL notification), a poll interval passes, or its signal aborts. A change reported while
 * the follower is not waiting (it is reading) is kept, so its next wait returns at once: nothing
 * reported during a read that missed it is lost.
 */
export class Wakeup {
  #pending = false;
  #wake: (() => void) | undefined;

  notify(): void {
    if (this.#wake === undefined) this.#pending = true;
    else this.#wake();
  }

  /** Resolves true when woken by `notify`, false when `ms` passed or the signal aborted. */
  wait(ms: number, signal: AbortSignal): Promise<boolean> {
    if (this.#pending || signal.aborted) {
      const notified = this.#pending;
      this.#pending = false;
      return Promise.resolve(notified);
    }
    return new Promise((resolve) => {
      const wake = (notified: boolean): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.#wake = undefined;
        resolve(notified);
      };
      const onAbort = (): void => wake(false);
      const timer = setTimeout(onAbort, ms);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#wake = () => wake(true);
    });
  }
}
