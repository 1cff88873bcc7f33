/**
 * Decoding `events.jsonl` bytes into records. A record's sequence is its position among the file's
 * records (0-based): `from: N` skips the first N records, and the SSE `id:` of a record is its sequence
 * + 1. A complete line that is not a valid record takes no position; `openEventLog` checks every record
 * it writes, so such a line means a foreign or damaged file, and is reported to `onInvalid`, never thrown.
 */
import { type EventRecord, parseEventRecord } from './schema.js';

/** Receives a complete line that is not a valid record (it is skipped). */
export type InvalidLineHandler = (line: string) => void;

const NEWLINE = 0x0a;
const EMPTY = Buffer.alloc(0);

/**
 * RecordDecoder turns the bytes of one `events.jsonl`, pushed in file order, into its records after the
 * first `from`. It holds a partial last line (no newline yet) until its newline arrives, and splits on
 * bytes, so a UTF-8 character cut between two pushes is decoded whole. One reader owns it.
 */
export class RecordDecoder {
  readonly #from: number;
  readonly #onInvalid: InvalidLineHandler | undefined;
  #carry: Buffer = EMPTY;
  #seen = 0;

  constructor(from: number, onInvalid?: InvalidLineHandler) {
    this.#from = from;
    this.#onInvalid = onInvalid;
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
    // Copied: the caller may reuse the memory of `chunk` for its next read.
    this.#carry = start === bytes.length ? EMPTY : Buffer.from(bytes.subarray(start));
    return records;
  }
}
