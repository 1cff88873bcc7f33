/** Writing SSE frames to one client: one coalesced chunk per drain, bounded. */

/**
 * 256 KiB of frames waiting for one client before its producer pauses. Enough for a burst of a few
 * hundred ordinary records (a few hundred bytes each) in one write; beyond it a slow client slows only
 * its own reader of `events.jsonl`, which is the real buffer, instead of growing the daemon's memory.
 */
export const OUTBOX_HIGH_WATER_BYTES = 256 * 1024;

/** Where an outbox's chunks go: the client's response (sse/body.ts). */
export interface Sink {
  /** Takes one chunk. Returns false when it wants no more until it calls the outbox's `ready()`. */
  write(chunk: Uint8Array): boolean;
  /** Ends the response after the chunks written. */
  end(): void;
  /** Cuts the response off (the client sees a failed stream, not an ended one). */
  fail(error: unknown): void;
}

/**
 * Outbox coalesces the SSE frames pushed for one client: frames pushed in one turn of the event loop
 * (the records of one read of the log) go out as one chunk, and while the sink cannot take a chunk
 * (its socket still drains the last) frames gather into the next: a write per drain, never a write per
 * record. With 100 subscribers, a write per record was what made a 50-record burst's tail latency
 * ~140 ms (issue 4; ~21 ms coalesced).
 *
 * Frames are bytes that may be shared between outboxes (a feed's record is encoded once for all its
 * clients): they are only read, never transferred or changed. One producer owns the outbox and one
 * sink is attached to it. `end()` ends the response once every frame pushed has been written,
 * `fail()` cuts it off, and `gone()` (from the sink: the client went away) calls `onGone` once.
 */
export class Outbox {
  readonly #onGone: () => void;
  #sink: Sink | undefined;
  /** The sink takes a chunk now: the next push is written at the end of this turn. */
  #ready = false;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #scheduled = false;
  #ending = false;
  #closed = false;
  #drained: (() => void)[] = [];

  constructor(onGone: () => void) {
    this.#onGone = onGone;
  }

  /** Connects the sink (once); `ready`: it takes a chunk at once, else it calls `ready()` when it does. */
  attach(sink: Sink, ready: boolean): void {
    this.#sink = sink;
    if (ready) this.ready();
  }

  /** The sink takes a chunk again: what is pending is written now. */
  ready(): void {
    this.#ready = true;
    if (this.#pending.length > 0) this.#write();
  }

  /** The client went away: frames are dropped from now on, and `onGone` is called. Idempotent. */
  gone(): void {
    if (this.#closed) return;
    this.#close();
    this.#onGone();
  }

  /** Queues a frame; it is written at the end of this turn if the sink takes a chunk. */
  push(frame: Uint8Array): void {
    if (this.#ending || this.#closed) return;
    this.#pending.push(frame);
    this.#pendingBytes += frame.byteLength;
    if (this.#ready && !this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(() => {
        this.#scheduled = false;
        if (this.#ready && this.#pending.length > 0) this.#write();
      });
    }
  }

  /** True when the producer should await `drained()` before pushing more. */
  get full(): boolean {
    return this.#pendingBytes >= OUTBOX_HIGH_WATER_BYTES;
  }

  /** Resolves once every frame pushed so far has been written (or the outbox closed). */
  drained(): Promise<void> {
    if (this.#pending.length === 0 || this.#closed) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /** Ends the response after the frames already pushed; later pushes are dropped. Idempotent. */
  end(): void {
    this.#ending = true;
    if (this.#pending.length === 0) this.#close(() => this.#sink?.end());
  }

  /** Cuts the response off at once. Idempotent. */
  fail(error: unknown): void {
    this.#close(() => this.#sink?.fail(error));
  }

  #write(): void {
    const chunk = this.#pending.length === 1 ? (this.#pending[0] as Uint8Array) : joinChunks(this.#pending);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#ready = this.#sink?.write(chunk) ?? false;
    for (const resolve of this.#drained.splice(0)) resolve();
    if (this.#ending) this.#close(() => this.#sink?.end());
  }

  #close(finish?: () => void): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = [];
    this.#pendingBytes = 0;
    finish?.();
    for (const resolve of this.#drained.splice(0)) resolve();
  }
}

/** One chunk of its own (not from Buffer's shared pool) holding `parts` in order. */
export function joinChunks(parts: readonly Uint8Array[]): Uint8Array {
  const chunk = new Uint8Array(parts.reduce((bytes, part) => bytes + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    chunk.set(part, offset);
    offset += part.byteLength;
  }
  return chunk;
}
