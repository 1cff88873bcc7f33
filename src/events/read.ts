/** Reading an execution's `events.jsonl` as it is now (as it grows: tail.ts). */
import { readFileSync } from 'node:fs';
import { type InvalidLineHandler, RecordDecoder } from './decode.js';
import type { EventRecord } from './schema.js';

/** Which records to read. */
export interface ReadOptions {
  /** Skip the first `from` records (sequence semantics: decode.ts). Default 0. */
  readonly from?: number;
  /** Receives each complete line that is not a valid record; such lines are skipped. */
  readonly onInvalid?: InvalidLineHandler;
}

/**
 * readEvents returns the records of the log at `path` after the first `from`, in file order. A partial
 * last line (a record still being written) is not returned; lines that are not records are skipped and
 * handed to `onInvalid`, never thrown. A missing file has no records. It reads the whole file at once,
 * synchronously (the CLI, tests); to stream a log as it grows, use `followEvents`.
 */
export function readEvents(path: string, options: ReadOptions = {}): EventRecord[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return new RecordDecoder(options.from ?? 0, options.onInvalid).push(bytes);
}
