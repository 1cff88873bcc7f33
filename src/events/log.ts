/**
 * An execution's `events.jsonl`: the append-only history, one JSON record a line. This module is the
 * one to import: it writes (`openEventLog`) and re-exports the readers, `readEvents` (read.ts: the
 * file as it is) and `followEvents` (tail.ts: the file as it grows).
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { EXIT, HarmflowError } from '../core/errors.js';
import { boundedLine, RECORD_LIMIT_BYTES } from './bound.js';
import { EventPayloads, type EventRecord, parseEventRecord } from './schema.js';
import { notifyAppended } from './tail.js';

export { RECORD_LIMIT_BYTES } from './bound.js';
export { type InvalidLineHandler, LOG_START, type LogPosition, type RecordBatch } from './decode.js';
export { logEnd, type ReadOptions, readEvents } from './read.js';
export { type FollowOptions, followBatches, followEvents, TAIL_POLL_MS } from './tail.js';

type DraftOf<R> = R extends unknown
  ? Omit<R, 'ts' | 'execution'> & { readonly ts?: string; readonly execution?: string }
  : never;

/**
 * A record before it is appended: the log fills `ts` (now, ISO) when absent, and `execution`, which,
 * when given, must be the log's. A whole `EventRecord` is a valid draft.
 */
export type EventDraft = DraftOf<EventRecord>;

/**
 * EventLog appends records to one execution's `events.jsonl`. Each `append` is one `write(2)` of the
 * whole line on a descriptor opened with `O_APPEND`, so lines from several writers (the engine, gates
 * in other processes) never interleave on a local filesystem. Right after the write it wakes this
 * process's followers of the file (tail.ts `notifyAppended`), so the daemon's live streams need not
 * wait for `fs.watch`. The opener owns it and closes it.
 */
export interface EventLog {
  readonly path: string;
  readonly execution: string;
  /**
   * Appends one record and returns it as readers will read it. A record whose line would be over
   * `RECORD_LIMIT_BYTES` is cut to fit (bound.ts) and returned cut, so no line of the log is longer.
   * Throws `InvalidEventError` for a record that does not match the schema, names another execution
   * or cannot be cut to fit (nothing is written), and an Error after `close()`.
   */
  append(draft: EventDraft): EventRecord;
  /** Closes the file. Idempotent. */
  close(): void;
}

/** A record that does not match the event schema: a bug in its producer, named at the source. */
export class InvalidEventError extends HarmflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.internal, options);
  }
}

/**
 * openEventLog opens (creating it and its directory if needed) the log at `path` for appending the
 * records of `execution`. The descriptor is opened once and held until `close()`.
 *
 * Every record is checked against the schema before it is written, by parsing the serialized line
 * exactly as every reader will. A record that fails the schema would otherwise be written and then
 * skipped by every reader (the CLI, the UI, the handoff) without a trace; the writer is the one place
 * that can name the bug. The check costs about 3 µs a record (measured: zod 4 round trip of a
 * `tool.call` record, 50 000 runs), less than the write itself, and a busy attempt logs at most a few
 * hundred records a second.
 */
export function openEventLog(path: string, options: { execution: string }): EventLog {
  mkdirSync(dirname(path), { recursive: true });
  return new FileEventLog(path, options.execution, openSync(path, 'a', 0o600)); // 0600: owner only (core/home.ts)
}

class FileEventLog implements EventLog {
  readonly path: string;
  readonly execution: string;
  #fd: number | undefined;

  constructor(path: string, execution: string, fd: number) {
    this.path = path;
    this.execution = execution;
    this.#fd = fd;
  }

  append(draft: EventDraft): EventRecord {
    if (this.#fd === undefined) throw new Error(`event log ${this.path} is closed`);
    if (draft.execution !== undefined && draft.execution !== this.execution) {
      throw new InvalidEventError(
        `event record for execution ${draft.execution} appended to the log of ${this.execution}`,
      );
    }
    const line = serialize({
      ts: draft.ts ?? new Date().toISOString(),
      execution: this.execution,
      ...(draft.attempt !== undefined && { attempt: draft.attempt }),
      ...(draft.harness !== undefined && { harness: draft.harness }),
      source: draft.source,
      type: draft.type,
      ...(draft.truncated !== undefined && { truncated: draft.truncated }),
      data: draft.data,
    });
    if (line === undefined) {
      throw new InvalidEventError(
        `event record ${draft.type} is over the ${RECORD_LIMIT_BYTES}-byte bound with no long text or list to cut`,
      );
    }
    const record = parseEventRecord(line);
    if (record === undefined) {
      throw new InvalidEventError(`event record ${draft.type} does not match its schema: ${explain(line, draft.type)}`);
    }
    writeWhole(this.#fd, Buffer.from(`${line}\n`));
    notifyAppended(this.path);
    return record;
  }

  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/** The record's line within the bound (bound.ts); undefined when it cannot be cut to fit. */
function serialize(record: object): string | undefined {
  try {
    return boundedLine(record);
  } catch (error) {
    throw new InvalidEventError('event record cannot be serialized as JSON', { cause: error });
  }
}

/** Says which part of a serialized record fails the schema, on one line. */
function explain(line: string, type: string): string {
  if (!(type in EventPayloads)) return `unknown type ${JSON.stringify(type)}`;
  const { data } = JSON.parse(line) as { data?: unknown };
  const payload = EventPayloads[type as keyof typeof EventPayloads].safeParse(data);
  if (payload.success) return 'envelope (ts, execution, attempt: an integer >= 1, source)';
  return payload.error.issues
    .map((issue) => `${['data', ...issue.path.map(String)].join('.')}: ${issue.message}`)
    .join('; ');
}

/**
 * Writes the whole buffer. One `writeSync` writes a regular file's line entirely unless the disk is
 * full; a short write is finished rather than left as a partial line that the next record would join.
 */
function writeWhole(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
}
