/**
 * The writing side of the PostgreSQL event mirror (cluster mode, issue 9): a worker appends each
 * record to its execution's `events.jsonl`, the history, and mirrors it here, in order, to the table
 * `event_records` (store/postgres/migrations.ts, migration 4), from which any API node streams it
 * (event-source.ts). The log stays the source of truth: a worker that crashed between an append and
 * its mirror calls `catchUp` with the log and the mirror is whole again.
 *
 * What the mirror guarantees, whichever workers write it and however they race:
 * - An execution's mirrored positions are gapless, 0 to n - 1: a record is inserted only if the one
 *   before it is committed already (checked in the insert's own statement), and rows are never
 *   deleted or changed. So whatever a reader's snapshot sees is a prefix of the log.
 * - Each position holds one line for good: mirroring it again with the same line is a no-op (the
 *   primary key, `ON CONFLICT DO NOTHING`), with another line an error, `MirrorMismatchError`.
 * - Each statement that inserts also queues a notification on the schema's channel (table.ts), its
 *   payload the execution id, which PostgreSQL delivers when, and only if, its transaction commits.
 */
import type pg from 'pg';
import { z } from 'zod';
import { ConflictError } from '../../core/errors.js';
import { inTransaction } from '../../store/postgres/pool.js';
import { openSchemaPool, type PostgresStoreOptions } from '../../store/postgres/schema-pool.js';
import { InvalidEventError } from '../log.js';
import { parseEventRecord } from '../schema.js';
import { readRecordLines } from './record-lines.js';
import { eventRecordsTable, mirrorChannel } from './table.js';

/**
 * 1000 records or 4 Mi characters of lines a catch-up statement, whichever comes first. Mirrored one
 * by one, each record is a commit flushed to disk; a batch pays that once. Batches of a few hundred to
 * a thousand records came out fastest when tried (smaller ones pay more commits, much larger ones a
 * bigger statement to plan and send). The size bound keeps a
 * log of unusually long records (tool output is clipped at 4000 characters, a foreign line may be
 * longer) from making one huge statement.
 */
export const CATCH_UP_BATCH_RECORDS = 1000;
export const CATCH_UP_BATCH_CHARS = 4 * 1024 * 1024;

/** What one `catchUp` did. */
export interface CatchUp {
  /** Records it inserted (others may have been mirrored meanwhile by another writer). */
  readonly mirrored: number;
  /** Records the log holds: the mirror holds as many now. */
  readonly records: number;
}

/**
 * EventMirror writes executions' records to the mirror. Its calls may run at once, from any number
 * of processes; an append is one statement, a catch-up one transaction per batch, each on a
 * connection of its own bounded pool. The opener owns it and closes it.
 */
export interface EventMirror {
  /**
   * Mirrors `line`, the record at `position` of the log of `execution` (the line as the log holds it,
   * without its newline). Resolves true when it inserted it, false when that position held this very
   * line already (a worker mirroring again after a crash). Rejects with `MirrorGapError` when the
   * records before `position` are not all mirrored (nothing is written), `MirrorMismatchError` when
   * `position` holds another line, and `InvalidEventError` when `line` is not one line of a valid
   * record of `execution` or `position` is not a non-negative integer.
   */
  append(execution: string, position: number, line: string): Promise<boolean>;
  /**
   * Mirrors every record of the log at `path` (the `events.jsonl` of `execution`) that the mirror
   * lacks, in order, numbered as the log's readers number them (record-lines.ts), in batches of at
   * most `CATCH_UP_BATCH_RECORDS`, each one transaction and one notification. It first compares the
   * last line mirrored with the log's, so a log that is not the one mirrored is found. A partial last
   * line is left for the next call. Rejects with `MirrorMismatchError` when the log disagrees with
   * the mirror (another line at a mirrored position, or fewer records than mirrored), and
   * `InvalidEventError` for a record of another execution; the batches before it stay mirrored.
   */
  catchUp(execution: string, path: string): Promise<CatchUp>;
  /** Ends the pool; its connections close when their calls finish. Idempotent. */
  close(): Promise<void>;
}

/** A record mirrored past the next position: the records between are not mirrored. Nothing was written. */
export class MirrorGapError extends ConflictError {
  /** The position the mirror of the execution expects next. */
  readonly next: number;
  constructor(execution: string, position: number, next: number) {
    super(`event record ${position} of execution ${execution} cannot be mirrored: the mirror expects record ${next}`);
    this.next = next;
  }
}

/** A mirrored position holds another line than the one given: the log and the mirror disagree. */
export class MirrorMismatchError extends ConflictError {}

/**
 * openEventMirror connects to the database at `url` (a `postgres://` URL) and applies the missing
 * migrations to its schema (store/postgres/schema-pool.ts). Rejects when the server does not answer
 * within the connect timeout or the schema name is not a plain lowercase identifier.
 */
export async function openEventMirror(url: string, options: PostgresStoreOptions = {}): Promise<EventMirror> {
  const { pool, schema } = await openSchemaPool(url, options);
  return new PostgresEventMirror(pool, schema);
}

/** What runs a statement: the pool (a statement of its own) or a transaction's client. */
type Queryable = Pick<pg.PoolClient, 'query'>;

const Inserted = z.object({ inserted: z.number() });
const Difference = z.object({ position: z.number(), missing: z.boolean() });
const Next = z.object({ next: z.number() });

class PostgresEventMirror implements EventMirror {
  readonly #pool: pg.Pool;
  readonly #channel: string;
  #ended: Promise<void> | undefined;
  readonly #insert: string;
  readonly #compare: string;
  readonly #next: string;

  constructor(pool: pg.Pool, schema: string) {
    this.#pool = pool;
    this.#channel = mirrorChannel(schema);
    const table = eventRecordsTable(schema);
    // $1 execution, $2 the first line's position, $3 the lines, $4 the channel. The rows go in in
    // position order, so two writers inserting the same batch wait for each other and never deadlock;
    // a row a concurrent statement is inserting is waited for, then skipped if it committed.
    const batch = 'unnest($3::text[]) WITH ORDINALITY AS batch (line, n)';
    this.#insert = `WITH inserted AS (
        INSERT INTO ${table} (execution, position, line)
        SELECT $1, $2::bigint + batch.n - 1, batch.line FROM ${batch}
        WHERE $2::bigint = 0 OR EXISTS (SELECT 1 FROM ${table} WHERE execution = $1 AND position = $2::bigint - 1)
        ORDER BY batch.n
        ON CONFLICT (execution, position) DO NOTHING
        RETURNING 1
      ), counted AS (SELECT count(*)::int AS inserted FROM inserted)
      SELECT inserted, CASE WHEN inserted > 0 THEN pg_notify($4, $1) END FROM counted`;
    // The first line of the batch the mirror does not hold as given: absent (past a gap) or another.
    this.#compare = `SELECT $2::bigint + batch.n - 1 AS "position", mirrored.line IS NULL AS "missing"
      FROM ${batch}
      LEFT JOIN ${table} AS mirrored ON mirrored.execution = $1 AND mirrored.position = $2::bigint + batch.n - 1
      WHERE mirrored.line IS DISTINCT FROM batch.line
      ORDER BY batch.n LIMIT 1`;
    this.#next = `SELECT coalesce(max(position) + 1, 0) AS "next" FROM ${table} WHERE execution = $1`;
  }

  async append(execution: string, position: number, line: string): Promise<boolean> {
    if (!Number.isSafeInteger(position) || position < 0) {
      throw new InvalidEventError(`event record position ${position} is not a non-negative integer`);
    }
    if (line.includes('\n')) throw new InvalidEventError('an event record to mirror spans several lines');
    const record = parseEventRecord(line);
    if (record === undefined) throw new InvalidEventError('an event record to mirror does not match the event schema');
    checkExecution(execution, record.execution, `record ${position}`);
    return (await this.#mirror(execution, position, [line])) === 1;
  }

  async catchUp(execution: string, path: string): Promise<CatchUp> {
    const next = await this.#nextPosition(execution);
    // From the last record mirrored: comparing it with the log's finds a log that is not the one mirrored.
    const start = Math.max(next - 1, 0);
    let records = 0;
    let mirrored = 0;
    let batch: string[] = [];
    let batchStart = start;
    let chars = 0;
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      mirrored += await this.#mirror(execution, batchStart, batch);
      batch = [];
      chars = 0;
    };
    for await (const lines of readRecordLines(path, start)) {
      for (const { position, line, record } of lines) {
        checkExecution(execution, record.execution, `record ${position} of ${path}`);
        if (batch.length === 0) batchStart = position;
        batch.push(line);
        chars += line.length;
        records = position + 1;
        if (batch.length >= CATCH_UP_BATCH_RECORDS || chars >= CATCH_UP_BATCH_CHARS) await flush();
      }
    }
    await flush();
    if (records < next) {
      throw new MirrorMismatchError(
        `the mirror of execution ${execution} holds ${next} event records, but its log ${path} fewer`,
      );
    }
    return { mirrored, records };
  }

  async close(): Promise<void> {
    this.#ended ??= this.#pool.end();
    await this.#ended;
  }

  /**
   * Inserts `lines` at positions `first`, `first + 1`, … in one statement (notifying if it inserted
   * any) and returns how many it inserted. When some were not inserted, compares the batch with what
   * the mirror holds: rows are never changed, so a line found equal stays equal, and one found missing
   * was refused because the position before the batch was not mirrored. A batch of several lines runs
   * in a transaction, so one that meets another line leaves none of its own behind (its notification
   * goes too); a single line is inserted or not, so it spares the transaction's two round trips.
   */
  async #mirror(execution: string, first: number, lines: readonly string[]): Promise<number> {
    const mirror = (client: Queryable) => this.#insertChecked(client, execution, first, lines);
    return lines.length === 1 ? mirror(this.#pool) : inTransaction(this.#pool, mirror);
  }

  async #insertChecked(client: Queryable, execution: string, first: number, lines: readonly string[]): Promise<number> {
    const result = await client.query(this.#insert, [execution, first, lines, this.#channel]);
    const { inserted } = Inserted.parse(result.rows[0]);
    if (inserted === lines.length) return inserted;
    const differences = await client.query(this.#compare, [execution, first, lines]);
    if (differences.rows.length === 0) return inserted;
    const { position, missing } = Difference.parse(differences.rows[0]);
    if (missing) throw new MirrorGapError(execution, position, await this.#nextPosition(execution));
    throw new MirrorMismatchError(
      `event record ${position} of execution ${execution} is mirrored already with another line: the log and the mirror disagree`,
    );
  }

  async #nextPosition(execution: string): Promise<number> {
    const { rows } = await this.#pool.query(this.#next, [execution]);
    return Next.parse(rows[0]).next;
  }
}

function checkExecution(execution: string, named: string, where: string): void {
  if (named !== execution) {
    throw new InvalidEventError(`event ${where} names execution ${named}, not ${execution}: it cannot be mirrored`);
  }
}
