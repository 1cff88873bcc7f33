/**
 * The reading side of the PostgreSQL event mirror (cluster mode, issue 9): any API node reads an
 * execution's records from the table `event_records` that workers fill (event-mirror.ts), with the
 * log's numbering, so the SSE contract is the same as from `events.jsonl`: a record's id is its
 * position + 1, and `from` (`?from=N`, `Last-Event-ID: N`) skips the first N records.
 */
import type pg from 'pg';
import { z } from 'zod';
import { openSchemaPool, type PostgresStoreOptions } from '../../store/postgres/schema-pool.js';
import { type EventRecord, parseEventRecord } from '../schema.js';
import { Wakeup } from '../wakeup.js';
import { MirrorListener } from './listener.js';
import { eventRecordsTable, mirrorChannel } from './table.js';

/**
 * 2000 ms between a follower's reads when no notification wakes it. Notifications wake followers at
 * once, and a lost LISTEN session wakes them all (listener.ts), so the poll only covers what neither
 * sees: a session that went silent without closing. Then a record is at most 2 s late, for one
 * primary-key lookup that finds nothing (≈0.3 ms, round trip included, on the dev machine) per
 * follower per tick.
 */
export const MIRROR_POLL_MS = 2000;

/**
 * 500 records a read: ≈190 KB of records of ≈380 characters, within one SSE outbox's 256 KiB high
 * water (server/sse/outbox.ts), read in 3–6 ms on the dev machine's local PostgreSQL 15. A follower
 * behind by more reads again at once, so a long history streams in reads of this size.
 */
export const MIRROR_READ_RECORDS = 500;

/** A record read from the mirror. */
export interface MirroredRecord {
  /** Its sequence in the log, from 0; its SSE id is `position + 1`. */
  readonly position: number;
  readonly record: EventRecord;
  /** The line as the log holds it. */
  readonly line: string;
}

/** How to open a source. */
export interface PgEventSourceOptions extends PostgresStoreOptions {
  /** Milliseconds between a follower's reads when nothing wakes it; default `MIRROR_POLL_MS`. */
  readonly pollMs?: number;
}

/**
 * PgEventSource reads executions' records from the mirror. It holds a bounded pool for its reads and
 * one LISTEN session shared by all its followers (listener.ts): open one per process. Reads and
 * follows may run at once. A stored line that is not a valid record (written by another version of
 * HarmFlow) is skipped and keeps its position, as the SSE route skips an oversized record. The opener
 * owns it and closes it.
 */
export interface PgEventSource {
  /**
   * The records of `execution` after the first `from`, in order, at most `MIRROR_READ_RECORDS`: one
   * read. Fewer (or none) when the mirror holds no more yet.
   */
  read(execution: string, from: number): Promise<MirroredRecord[]>;
  /**
   * Yields the records of `execution` after the first `from`, in order, each once: those mirrored
   * already, then each new one as it is committed. It ends after yielding `execution.ended` (a
   * follower that starts past it waits for more, a reopening, until aborted), when `signal` aborts,
   * when the consumer stops iterating, or when the source closes, and it releases its subscription
   * however it ends. It subscribes to notifications before its first read, and after each read that
   * reached the end it waits for a notification or the poll interval; positions are followed from its
   * cursor, so a notification that arrives early, late, twice or never neither loses nor repeats a
   * record. A failed read (the database unreachable) is thrown; the consumer resumes with the
   * position after the last record it got. One consumer per iteration.
   */
  follow(execution: string, from: number, signal: AbortSignal): AsyncGenerator<MirroredRecord, void, undefined>;
  /** Ends every follower, the LISTEN session and the pool. Idempotent. */
  close(): Promise<void>;
}

/**
 * openPgEventSource connects to the database at `url` (a `postgres://` URL), applies the missing
 * migrations to its schema (store/postgres/schema-pool.ts) and opens its LISTEN session. Rejects
 * when the server does not answer within the connect timeout or the schema name is not a plain
 * lowercase identifier.
 */
export async function openPgEventSource(url: string, options: PgEventSourceOptions = {}): Promise<PgEventSource> {
  const { pool, schema } = await openSchemaPool(url, options);
  try {
    const listener = await MirrorListener.open(url, mirrorChannel(schema));
    return new PostgresEventSource(pool, schema, listener, options.pollMs ?? MIRROR_POLL_MS);
  } catch (error) {
    await pool.end();
    throw error;
  }
}

const Row = z.object({ position: z.number(), line: z.string() });
type Row = z.infer<typeof Row>;

/** One read: the records that follow on from the cursor, and the cursor after them. */
interface Read {
  readonly records: MirroredRecord[];
  readonly next: number;
  /** The read returned a full batch: more may be mirrored already. */
  readonly full: boolean;
}

class PostgresEventSource implements PgEventSource {
  readonly #pool: pg.Pool;
  readonly #listener: MirrorListener;
  readonly #pollMs: number;
  readonly #read: string;
  readonly #closing = new AbortController();
  #closed: Promise<void> | undefined;

  constructor(pool: pg.Pool, schema: string, listener: MirrorListener, pollMs: number) {
    this.#pool = pool;
    this.#listener = listener;
    this.#pollMs = pollMs;
    this.#read = `SELECT position AS "position", line AS "line" FROM ${eventRecordsTable(schema)}
      WHERE execution = $1 AND position >= $2 ORDER BY position LIMIT ${MIRROR_READ_RECORDS}`;
  }

  async read(execution: string, from: number): Promise<MirroredRecord[]> {
    return (await this.#readFrom(execution, from)).records;
  }

  async *follow(execution: string, from: number, signal: AbortSignal): AsyncGenerator<MirroredRecord, void, undefined> {
    if (this.#closing.signal.aborted) throw new Error('the event source is closed');
    const stop = new AbortController();
    const abort = (): void => stop.abort();
    signal.addEventListener('abort', abort, { once: true });
    this.#closing.signal.addEventListener('abort', abort, { once: true });
    if (signal.aborted) abort();
    const wakeup = new Wakeup();
    const unsubscribe = this.#listener.subscribe(execution, wakeup);
    try {
      let cursor = from;
      while (!stop.signal.aborted) {
        const read = await this.#readFrom(execution, cursor);
        cursor = read.next;
        for (const item of read.records) {
          if (stop.signal.aborted) return;
          yield item;
          if (item.record.type === 'execution.ended') return;
        }
        if (!read.full) await wakeup.wait(this.#pollMs, stop.signal);
      }
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', abort);
      this.#closing.signal.removeEventListener('abort', abort);
    }
  }

  async close(): Promise<void> {
    this.#closing.abort();
    this.#closed ??= this.#listener.close().finally(() => this.#pool.end());
    await this.#closed;
  }

  /**
   * One read from position `from`. Only rows that follow on from it without a gap are taken: the
   * writer keeps positions gapless, so a gap means rows written around it, read once it is filled.
   */
  async #readFrom(execution: string, from: number): Promise<Read> {
    if (!Number.isSafeInteger(from) || from < 0) throw new RangeError(`from ${from} is not a non-negative integer`);
    const { rows } = await this.#pool.query(this.#read, [execution, from]);
    const records: MirroredRecord[] = [];
    let next = from;
    for (const row of rows.map((value) => Row.parse(value))) {
      if (row.position !== next) break;
      next += 1;
      const record = recordOf(row);
      if (record !== undefined) records.push(record);
    }
    return { records, next, full: rows.length === MIRROR_READ_RECORDS && next === from + rows.length };
  }
}

function recordOf(row: Row): MirroredRecord | undefined {
  const record = parseEventRecord(row.line);
  return record === undefined ? undefined : { position: row.position, record, line: row.line };
}
