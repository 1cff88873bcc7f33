/**
 * Execution contexts (cluster mode, issue 9): each execution's last `context.json` — what its ended
 * attempts did (execution/context-schema.ts) — kept in PostgreSQL (migration 7,
 * store/postgres/migrations.ts), so that a worker on another machine that carries the execution on
 * (its earlier worker lost) puts it back on disk before the engine's recovery reads it
 * (execution/recover.ts), and the next attempt's handoff names every earlier attempt, not only the
 * one left open.
 *
 * A write carries the writer's lease token (lease.ts) and is refused (LeaseLostError) unless that
 * token is the execution's current one; the lease row is read `FOR SHARE` in the write's statement,
 * as the inboxes' writes (inbox.ts), so a worker fenced out never overwrites what its successor put.
 * Commits are durable (`synchronous_commit = on`): a context acknowledged survives a server crash.
 */
import type pg from 'pg';
import { z } from 'zod';
import { ExecutionContext, StoredContext } from '../execution/context-schema.js';
import { openDurableSchemaPool, type PostgresStoreOptions } from '../store/postgres/schema-pool.js';
import { LeaseLostError } from './kept-lease.js';

/**
 * ExecutionContexts stores and reads the contexts of a schema's executions. Its calls may run at
 * once; it holds a bounded pool. The opener owns it and closes it.
 */
export interface ExecutionContexts {
  /**
   * Stores `context` as the context of `execution`, replacing the one stored, for the holder of its
   * lease under `token`. Rejects with LeaseLostError when `token` is not the execution's current
   * lease token, and with a ZodError for a context that does not match the schema.
   */
  put(execution: string, token: number, context: ExecutionContext): Promise<void>;
  /** The stored context of `execution`, or undefined when none was stored or it does not parse. */
  get(execution: string): Promise<ExecutionContext | undefined>;
  /** Ends its pool, waiting for the calls under way. Idempotent; calls after it reject. */
  close(): Promise<void>;
}

const Held = z.object({ held: z.boolean() });
/** jsonb comes back as its text (pool.ts). */
const Stored = z.object({ context: z.string() });

/**
 * openExecutionContexts connects to the PostgreSQL database at `url` and applies the missing
 * migrations to its schema. Rejects when the server does not answer within the connect timeout, the
 * schema name is not a plain lowercase identifier, or commits would not be durable.
 */
export async function openExecutionContexts(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<ExecutionContexts> {
  const { pool, schema } = await openDurableSchemaPool(url, options, 'execution contexts');
  return new PostgresExecutionContexts(pool, schema);
}

class PostgresExecutionContexts implements ExecutionContexts {
  readonly #pool: pg.Pool;
  readonly #put: string;
  readonly #get: string;
  #closed: Promise<void> | undefined;

  constructor(pool: pg.Pool, schema: string) {
    this.#pool = pool;
    const contexts = `${schema}.execution_contexts`;
    const leases = `${schema}.execution_leases`;
    // The lease row FOR SHARE to the commit: an acquire raising the token waits for this write.
    this.#put = `WITH lease AS (SELECT 1 FROM ${leases} WHERE execution = $1 AND token = $2 FOR SHARE),
      put AS (
        INSERT INTO ${contexts} AS stored (execution, context, updated_at, token)
        SELECT $1, $3::jsonb, now(), $2 WHERE EXISTS (SELECT 1 FROM lease)
        ON CONFLICT (execution) DO UPDATE
          SET context = excluded.context, updated_at = excluded.updated_at, token = excluded.token
          WHERE stored.token <= excluded.token
      )
      SELECT EXISTS (SELECT 1 FROM lease) AS "held"`;
    this.#get = `SELECT context AS "context" FROM ${contexts} WHERE execution = $1`;
  }

  async put(execution: string, token: number, context: ExecutionContext): Promise<void> {
    const checked = ExecutionContext.parse(context);
    const { rows } = await this.#pool.query(this.#put, [execution, token, JSON.stringify(checked)]);
    if (!Held.parse(rows[0]).held) {
      throw new LeaseLostError(
        execution,
        `the lease of execution ${execution} is no longer held under token ${token}: another worker has taken it`,
      );
    }
  }

  async get(execution: string): Promise<ExecutionContext | undefined> {
    const { rows } = await this.#pool.query(this.#get, [execution]);
    if (rows[0] === undefined) return undefined;
    const parsed = StoredContext.safeParse(JSON.parse(Stored.parse(rows[0]).context));
    return parsed.success ? parsed.data : undefined;
  }

  async close(): Promise<void> {
    this.#closed ??= this.#pool.end();
    await this.#closed;
  }
}
