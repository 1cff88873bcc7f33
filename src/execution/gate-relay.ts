/**
 * Hands the records the gate runner appends from its own processes to the engine's listener (the
 * live timeline of `harmflow run`, a test's `onRecord`), as if the engine had written them: the
 * listener otherwise sees only what this process records. It follows the execution's events.jsonl
 * from where it ends when the attempt starts and passes on each record whose source is `gate`;
 * `stop()` relays what the file holds by then, so nothing a gate wrote before its harness exited is
 * missed. One relay per attempt; the engine owns it.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { RecordDecoder } from '../events/decode.js';
import { followBatches, type LogPosition } from '../events/log.js';
import type { EventRecord } from '../events/schema.js';

const READ_BYTES = 64 * 1024;

export class GateRecordRelay {
  readonly #path: string;
  readonly #forward: (record: EventRecord) => void;
  readonly #abort = new AbortController();
  readonly #following: Promise<void>;
  #position: LogPosition;

  constructor(path: string, forward: (record: EventRecord) => void) {
    this.#path = path;
    this.#forward = forward;
    this.#position = { bytes: sizeOf(path), records: 0 };
    this.#following = this.#follow();
  }

  async #follow(): Promise<void> {
    for await (const batch of followBatches(this.#path, { at: this.#position, signal: this.#abort.signal })) {
      this.#relay(batch.records);
      this.#position = batch.end;
    }
  }

  #relay(records: readonly EventRecord[]): void {
    for (const record of records) if (record.source === 'gate') this.#forward(record);
  }

  /** Stops following, after relaying every gate record the file holds now. Idempotent. */
  async stop(): Promise<void> {
    if (this.#abort.signal.aborted) return;
    this.#abort.abort();
    await this.#following;
    const decoder = new RecordDecoder(0, undefined, this.#position);
    const fd = openSync(this.#path, 'r');
    try {
      const chunk = Buffer.allocUnsafe(READ_BYTES);
      for (let at = this.#position.bytes; ; ) {
        const read = readSync(fd, chunk, 0, chunk.length, at);
        if (read === 0) break;
        at += read;
        this.#relay(decoder.push(chunk.subarray(0, read)));
      }
    } finally {
      closeSync(fd);
    }
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
