/**
 * The latest mirrored record of a type (cluster mode, issue 9): what an API node reads where one
 * machine reads the tail of `events.jsonl`, e.g. what a waiting execution waits for (its latest
 * `quota.waiting`). Reads the mirror's table (event-mirror.ts) newest first.
 */
import type pg from 'pg';
import { z } from 'zod';
import { openSchemaPool, type PostgresStoreOptions } from '../../store/postgres/schema-pool.js';
import { type EventRecord, type EventType, parseEventRecord } from '../schema.js';
import { eventRecordsTable } from './table.js';

/**
 * 20 rows a read: the lines that name the type are matched by text first, so a row that matches but
 * is not a record of that type (a message quoting the type's name) is rare; the next read goes on
 * from the oldest row read.
 */
const CANDIDATES_PER_READ = 20;

/** A record of type `T`. */
export type RecordOf<T extends EventType> = Extract<EventRecord, { type: T }>;

/**
 * MirrorLookup finds executions' latest records of a type in the mirror. Its calls may run at once;
 * it holds a bounded pool. The opener owns it and closes it.
 */
export interface MirrorLookup {
  /** The latest mirrored record of `execution` whose type is `type`, or undefined when there is none. */
  latest<T extends EventType>(execution: string, type: T): Promise<RecordOf<T> | undefined>;
  /** Ends the pool. Idempotent. */
  close(): Promise<void>;
}

/**
 * openMirrorLookup connects to the database at `url` and applies the missing migrations to its schema
 * (store/postgres/schema-pool.ts). Rejects when the server does not answer within the connect timeout
 * or the schema name is not a plain lowercase identifier.
 */
export async function openMirrorLookup(url: string, options: PostgresStoreOptions = {}): Promise<MirrorLookup> {
  const { pool, schema } = await openSchemaPool(url, options);
  return new PostgresMirrorLookup(pool, schema);
}

const Row = z.object({ position: z.coerce.number(), line: z.string() });

class PostgresMirrorLookup implements MirrorLookup {
  readonly #pool: pg.Pool;
  readonly #read: string;
  #ended: Promise<void> | undefined;

  constructor(pool: pg.Pool, schema: string) {
    this.#pool = pool;
    // $1 execution, $2 the type's quoted name as a LIKE pattern, $3 read only positions below it.
    this.#read = `SELECT position AS "position", line AS "line" FROM ${eventRecordsTable(schema)}
      WHERE execution = $1 AND line LIKE $2 AND position < $3 ORDER BY position DESC LIMIT ${CANDIDATES_PER_READ}`;
  }

  async latest<T extends EventType>(execution: string, type: T): Promise<RecordOf<T> | undefined> {
    const pattern = `%${JSON.stringify(type).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    let below = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const { rows } = await this.#pool.query(this.#read, [execution, pattern, below]);
      for (const row of rows.map((value) => Row.parse(value))) {
        const record = parseEventRecord(row.line);
        if (record?.type === type) return record as RecordOf<T>;
        below = row.position;
      }
      if (rows.length < CANDIDATES_PER_READ) return undefined;
    }
  }

  async close(): Promise<void> {
    this.#ended ??= this.#pool.end();
    await this.#ended;
  }
}
