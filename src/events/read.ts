/** Reading an execution's `events.jsonl` as it is now (as it grows: tail.ts). */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { type InvalidLineHandler, RecordDecoder } from './decode.js';
import type { EventRecord } from './schema.js';

/** Which records to read. */
export interface ReadOptions {
  /** Skip the first `from` records (sequence semantics: decode.ts). Default 0. */
  readonly from?: number;
  /**
   * Start at this byte: a size the file had (every writer appends whole lines, so it is a line's
   * start), to read only what came after it. `from` then counts the records after it. Default 0.
   */
  readonly fromByte?: number;
  /** Receives each complete line that is not a valid record; such lines are skipped. */
  readonly onInvalid?: InvalidLineHandler;
  /**
   * Keeps only the records it accepts (all by default). What it refuses is decoded and dropped at
   * once, so a reader that needs a few kinds of record holds only those, however large the log.
   */
  readonly keep?: (record: EventRecord) => boolean;
}

/**
 * 1 MiB: how much of the file is read at a time. The log's lines are at most 1 MiB (bound.ts), so a
 * chunk completes at least one; a harness that printed a gigabyte is read in that many steps, never
 * held whole.
 */
const CHUNK_BYTES = 1024 * 1024;

/**
 * readEvents returns the records of the log at `path` after the first `from`, in file order. A partial
 * last line (a record still being written) is not returned; lines that are not records are skipped and
 * handed to `onInvalid`, never thrown. A missing file has no records. It reads the file (from
 * `fromByte`, up to its size when the call began) synchronously, a chunk at a time; to stream a log
 * as it grows, use `followEvents`.
 */
export function readEvents(path: string, options: ReadOptions = {}): EventRecord[] {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  try {
    const end = fstatSync(fd).size;
    const decoder = new RecordDecoder(options.from ?? 0, options.onInvalid);
    const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, Math.max(0, end - (options.fromByte ?? 0))));
    const records: EventRecord[] = [];
    for (let at = options.fromByte ?? 0; at < end; ) {
      const got = readSync(fd, chunk, 0, Math.min(chunk.length, end - at), at);
      if (got === 0) break;
      at += got;
      for (const record of decoder.push(chunk.subarray(0, got))) {
        if (options.keep === undefined || options.keep(record)) records.push(record);
      }
    }
    return records;
  } finally {
    closeSync(fd);
  }
}

/** Where the log at `path` ends now: the byte the next record starts at (0 for a missing file), for `fromByte`. */
export function logEnd(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
}
