/**
 * An execution's `events.jsonl` as the lines of its records: what the event mirror copies. Lines are
 * numbered as every reader of the log numbers records (decode.ts): a complete line that parses as a
 * record takes the next position, any other complete line takes none, and a partial last line is not
 * a record yet. So a mirrored record's position is its sequence in the file, and its SSE id the same.
 */
import { open } from 'node:fs/promises';
import { type EventRecord, parseEventRecord } from '../schema.js';

/** One record of a log: its line as the file holds it (without the newline), where it is, what it says. */
export interface RecordLine {
  /** The record's sequence in the log, from 0. */
  readonly position: number;
  readonly line: string;
  readonly record: EventRecord;
}

/** 64 KiB a read, as the log's readers read: a long history in few reads, and a record seldom spans two. */
const READ_CHUNK_BYTES = 64 * 1024;

const NEWLINE = 0x0a;
const EMPTY = Buffer.alloc(0);

/**
 * readRecordLines yields, a read at a time, the records of the log at `path` from position `from` on,
 * in file order, and returns at the end of the file; a batch may be empty. Each line is decoded from
 * UTF-8 as `readEvents` decodes it (split on bytes, so a character cut between two reads is whole).
 * Every line before `from` is still parsed: that is how it is numbered. A missing file has no
 * records. The file is closed however the iteration ends.
 */
export async function* readRecordLines(path: string, from: number): AsyncGenerator<RecordLine[], void, undefined> {
  const file = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (file === undefined) return;
  try {
    const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    let carry = EMPTY;
    let offset = 0;
    let position = 0;
    for (;;) {
      const { bytesRead } = await file.read(chunk, 0, chunk.length, offset);
      if (bytesRead === 0) return;
      offset += bytesRead;
      const read = chunk.subarray(0, bytesRead);
      const bytes = carry.length === 0 ? read : Buffer.concat([carry, read]);
      const lines: RecordLine[] = [];
      let start = 0;
      for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
        const line = bytes.toString('utf8', start, end);
        const record = parseEventRecord(line);
        if (record !== undefined) {
          if (position >= from) lines.push({ position, line, record });
          position += 1;
        }
        start = end + 1;
      }
      // Copied: the next read reuses `chunk`.
      carry = start === bytes.length ? EMPTY : Buffer.from(bytes.subarray(start));
      yield lines;
    }
  } finally {
    await file.close();
  }
}
