/** Writing SSE frames to one client: one write per drain, bounded. */

/**
 * 256 Ki characters (about KiB: records are mostly ASCII JSON) of frames waiting for one client before its producer pauses. Enough for a burst of a few
 * hundred ordinary records (a few hundred bytes each) in one write; beyond it a slow client slows only
 * its own reader of `events.jsonl`, which is the real buffer, instead of growing the daemon's memory.
 */
export const OUTBOX_HIGH_WATER_CHARS = 256 * 1024;

/**
 * Outbox coalesces the SSE frames pushed for one client into one write per drain: the first frame is
 * written at once, and every frame pushed while that write is in flight goes out together in the next
 * one. A burst of 50 records thus costs a client two writes rather than 50, which is what keeps a burst's
 * tail latency low with many subscribers (issue 4: p99 ~140 ms with a write per record, ~21 ms
 * coalesced). One producer owns it; `write` is the client's stream and must not throw.
 */
export class Outbox {
  readonly #write: (chunk: string) => Promise<unknown>;
  #pending: string[] = [];
  #pendingChars = 0;
  #flushing: Promise<void> | undefined;

  constructor(write: (chunk: string) => Promise<unknown>) {
    this.#write = write;
  }

  /** Queues a frame and starts a write unless one is in flight. */
  push(frame: string): void {
    this.#pending.push(frame);
    this.#pendingChars += frame.length;
    this.#flushing ??= this.#flush();
  }

  /** True when the producer should await `drained()` before pushing more. */
  get full(): boolean {
    return this.#pendingChars >= OUTBOX_HIGH_WATER_CHARS;
  }

  /** Resolves once every frame pushed so far is written. */
  drained(): Promise<void> {
    return this.#flushing ?? Promise.resolve();
  }

  async #flush(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const chunk = this.#pending.length === 1 ? (this.#pending[0] as string) : this.#pending.join('');
        this.#pending = [];
        this.#pendingChars = 0;
        await this.#write(chunk);
      }
    } finally {
      this.#flushing = undefined;
    }
  }
}
