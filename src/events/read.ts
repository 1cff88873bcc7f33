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
}

/**
 * readEvents returns the records of the log at `path` after the first `from`, in file order. A partial
 * last line (a record still being written) is not returned; lines that are not records are skipped and
 * handed to `onInvalid`, never thrown. A missing file has no records. It reads the file (from
 * `fromByte`) at once, synchronously; to stream a log as it grows, use `followEvents`.
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
    const start = options.fromByte ?? 0;
    const bytes = Buffer.alloc(Math.max(0, fstatSync(fd).size - start));
    let read = 0;
    while (read < bytes.length) {
      const got = readSync(fd, bytes, read, bytes.length - read, start + read);
      if (got === 0) break;
      read += got;
    }
    return new RecordDecoder(options.from ?? 0, options.onInvalid).push(bytes.subarray(0, read));
  } finally {
    closeSync(fd);
  }
}

/** Where the log at `path` ends now: the byte the next record starts at (0 for a missing file), for `fromByte`. */
export function logEnd(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
}
