/**
 * Decoding `events.jsonl` bytes into records. A record's sequence is its position among the file's
 * records (0-based): `from: N` skips the first N records, and the SSE `id:` of a record is its sequence
 * + 1. A complete line that is not a valid record takes no position; `openEventLog` checks every record
 * it writes, so such a line means a foreign or damaged file, and is reported to `onInvalid`, never thrown.
 */
import { type EventRecord, parseEventRecord } from './schema.js';

/** Receives a complete line that is not a valid record (it is skipped). */
export type InvalidLineHandler = (line: string) => void;

/**
 * A point between two lines of one log: its first `bytes` bytes end with a newline (or are none) and
 * hold exactly `records` records. A reader that knows one starts there, numbering on from `records`,
 * instead of decoding the history before it; the log is append-only, so a position stays true.
 */
export interface LogPosition {
  readonly bytes: number;
  readonly records: number;
}

/** The start of every log. */
export const LOG_START: LogPosition = { bytes: 0, records: 0 };

/** The records one read of a log completed, and where they end. */
export interface RecordBatch {
  /** The records, after the first `from`; the last one's sequence is `end.records - 1`. May be empty. */
  readonly records: readonly EventRecord[];
  readonly end: LogPosition;
}

const NEWLINE = 0x0a;
const EMPTY = Buffer.alloc(0);

/**
 * RecordDecoder turns the bytes of one `events.jsonl`, pushed in file order from `at` (default: the
 * start), into its records after the first `from`. It holds a partial last line (no newline yet) until
 * its newline arrives, and splits on bytes, so a UTF-8 character cut between two pushes is decoded
 * whole. `position` is where the lines decoded so far end. One reader owns it.
 */
export class RecordDecoder {
  readonly #from: number;
  readonly #onInvalid: InvalidLineHandler | undefined;
  #carry: Buffer = EMPTY;
  #bytes: number;
  #seen: number;

  constructor(from: number, onInvalid?: InvalidLineHandler, at: LogPosition = LOG_START) {
    this.#from = from;
    this.#onInvalid = onInvalid;
    this.#bytes = at.bytes;
    this.#seen = at.records;
  }

  /** The end of the last complete line pushed, and the records up to it (skipped ones included). */
  get position(): LogPosition {
    return { bytes: this.#bytes, records: this.#seen };
  }

  /** Returns the records of the lines `chunk` completes. The caller may reuse `chunk` afterwards. */
  push(chunk: Buffer): EventRecord[] {
    const bytes = this.#carry.length === 0 ? chunk : Buffer.concat([this.#carry, chunk]);
    const records: EventRecord[] = [];
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      const line = bytes.toString('utf8', start, end);
      const record = parseEventRecord(line);
      if (record === undefined) this.#onInvalid?.(line);
      else if (this.#seen++ >= this.#from) records.push(record);
      start = end + 1;
    }
    this.#bytes += start; // the carry began at the old position, so `bytes` does too
    // Copied: the caller may reuse the memory of `chunk` for its next read.
    this.#carry = start === bytes.length ? EMPTY : Buffer.from(bytes.subarray(start));
    return records;
  }
}
