/**
 * The PostgreSQL Store: the database several HarmFlow processes share (cluster mode). It keeps the
 * records in one PostgreSQL schema, `public` unless told (tests give each store its own), with the
 * tables of migrations.ts (column types chosen there). Each method is one statement or one
 * transaction on a connection of a bounded pool (pool.ts).
 *
 * In cluster mode the worker holding an execution's lease (cluster/lease.ts) writes that execution's
 * rows through a view fenced to its lease (`fencedTo`): each write of the execution's own rows runs
 * in a transaction that first reads the execution's lease row under the holder's token `FOR SHARE`,
 * and is refused (LeaseFenceError) when another worker has acquired the lease since. The share lock
 * lasts to the commit, and an acquire updates that row, so an acquire that would raise the token waits
 * for a fenced write under way to commit, and a fenced write that starts after the raise finds it
 * raised: a fenced-out worker's write never lands after its successor's acquire. (A renewal by the
 * same holder waits likewise, for milliseconds; the write waits on nothing the renewal holds.) The
 * inboxes' and contexts' writes are fenced by the same row (cluster/inbox.ts, cluster/contexts.ts).
 */
import type pg from 'pg';
import { z } from 'zod';
import { ConflictError } from '../../core/errors.js';
import {
  ATTEMPT_COLUMNS,
  attemptFromRow,
  attemptToRow,
  EXECUTION_COLUMNS,
  executionFromRow,
  executionToRow,
  patchedAttemptRow,
  patchedExecutionRow,
  QUOTA_COLUMNS,
  quotaFromRow,
  quotaToRow,
  TASK_COLUMNS,
  taskFromRow,
  taskToRow,
} from '../rows.js';
import {
  type Columns,
  columnValues,
  insertSql,
  positionalParameter,
  selectList,
  updateSql,
  upsertSql,
} from '../sql.js';
import {
  type AttemptPatch,
  type AttemptRecord,
  type ExecutionPatch,
  type ExecutionQuery,
  type ExecutionRecord,
  type QuotaRecord,
  type Store,
  type SubmitKey,
  type SubmitKeyRecord,
  SubmitKeyTakenError,
  type TaskRecord,
} from '../store.js';
import { SUBMIT_KEY_COLUMNS, submitKeyFromRow, submitKeyToRow } from '../submit-key-rows.js';
import { inTransaction, queryRows } from './pool.js';
import { openSchemaPool, type PostgresStoreOptions } from './schema-pool.js';

/** The lease a fenced view writes under: the execution and the token its holder acquired it with. */
export interface LeaseFence {
  readonly execution: string;
  readonly token: number;
}

const LeaseFence = z.object({ execution: z.string().min(1), token: z.int().positive() });

/** A write of a fenced view refused: the view's token is not the execution's current lease token. */
export class LeaseFenceError extends ConflictError {
  readonly execution: string;
  readonly token: number;
  constructor(fence: LeaseFence) {
    super(
      `the lease of execution ${fence.execution} is no longer held under token ${fence.token}: another worker has taken it, and the write was refused`,
    );
    this.execution = fence.execution;
    this.token = fence.token;
  }
}

/** The PostgreSQL Store, which also makes views of itself fenced to an execution's lease. */
export interface FenceableStore extends Store {
  /**
   * A view of this store for the holder of `fence.execution`'s lease under `fence.token`: its
   * `updateExecution` of that execution, and its `insertAttempt` and `updateAttempt` of that
   * execution's attempts, each commit only while `fence.token` is the execution's current lease token
   * (no other acquire since; an expired lease nobody took over still counts, as a renewal does) and
   * reject with LeaseFenceError, changing nothing, once it is not. Every other call, and every write
   * of another execution's rows, is this store's. The view shares this store's pool and owns nothing:
   * its `close()` does nothing, and it works until this store closes. Throws a ZodError for an empty
   * execution id or a token that is not a positive integer.
   */
  fencedTo(fence: LeaseFence): Store;
}

/**
 * openPostgresStore connects to the database at `url` (a `postgres://` URL) and applies the missing
 * migrations to its schema (schema-pool.ts: several processes may open it at once). Rejects when the
 * server does not answer within the connect timeout, or the schema name is not a plain lowercase
 * identifier. The caller owns the store and closes it.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<FenceableStore> {
  const { pool, schema } = await openSchemaPool(url, options);
  return new PostgresStore(pool, statements(schema), undefined);
}

/** The store's statements in `schema` (a checked identifier), shared by a store and its views. */
function statements(schema: string) {
  const tasks = `${schema}.tasks`;
  const executionsTable = `${schema}.executions`;
  const attemptsTable = `${schema}.attempts`;
  const executions = `SELECT ${selectList(EXECUTION_COLUMNS)} FROM ${executionsTable}`;
  const newestFirst = 'ORDER BY created_at DESC, id DESC';
  const attempts = `SELECT ${selectList(ATTEMPT_COLUMNS)} FROM ${attemptsTable}`;
  return {
    insertTask: insertSql(tasks, TASK_COLUMNS, positionalParameter),
    getTask: `SELECT ${selectList(TASK_COLUMNS)} FROM ${tasks} WHERE id = $1`,
    insertExecution: insertSql(executionsTable, EXECUTION_COLUMNS, positionalParameter),
    getExecution: `${executions} WHERE id = $1`,
    lockExecution: `${executions} WHERE id = $1 FOR UPDATE`,
    updateExecution: updateSql(executionsTable, EXECUTION_COLUMNS, ['id'], positionalParameter),
    // A scan: executions number in the thousands, and a prefix is typed by a person.
    findExecutions: `${executions} WHERE starts_with(id, $1) ${newestFirst}`,
    // A NULL list of states matches every state; LIMIT NULL is no limit.
    listExecutions: `${executions} WHERE $1::text[] IS NULL OR state = ANY ($1::text[]) ${newestFirst} LIMIT $2`,
    insertAttempt: insertSql(attemptsTable, ATTEMPT_COLUMNS, positionalParameter),
    lockAttempt: `${attempts} WHERE execution = $1 AND number = $2 FOR UPDATE`,
    updateAttempt: updateSql(attemptsTable, ATTEMPT_COLUMNS, ['execution', 'number'], positionalParameter),
    listAttempts: `${attempts} WHERE execution = $1 ORDER BY number`,
    // One statement, so atomic: the stored row stays when it was observed later than the new one.
    putQuota: upsertSql(
      `${schema}.quotas`,
      QUOTA_COLUMNS,
      ['harness', 'account'],
      'excluded.observed_at >= quotas.observed_at',
      positionalParameter,
    ),
    listQuotas: `SELECT ${selectList(QUOTA_COLUMNS)} FROM ${schema}.quotas ORDER BY harness, account`,
    // DO NOTHING: a taken key inserts no row (one racing with it waits for its commit first), and the
    // transaction is rolled back.
    insertSubmitKey: `${insertSql(`${schema}.submit_keys`, SUBMIT_KEY_COLUMNS, positionalParameter)} ON CONFLICT (key) DO NOTHING`,
    getSubmitKey: `SELECT ${selectList(SUBMIT_KEY_COLUMNS)} FROM ${schema}.submit_keys WHERE key = $1`,
    // $1 execution, $2 token: the lease row while that token is current, share-locked to the commit.
    holdLease: `SELECT 1 FROM ${schema}.execution_leases WHERE execution = $1 AND token = $2 FOR SHARE`,
  };
}

type Statements = ReturnType<typeof statements>;

/** The store (`fence` undefined: it owns the pool) or a view of it fenced to a lease. */
class PostgresStore implements FenceableStore {
  readonly #pool: pg.Pool;
  readonly #sql: Statements;
  readonly #fence: LeaseFence | undefined;
  #ended: Promise<void> | undefined;

  constructor(pool: pg.Pool, sql: Statements, fence: LeaseFence | undefined) {
    this.#pool = pool;
    this.#sql = sql;
    this.#fence = fence;
  }

  fencedTo(fence: LeaseFence): Store {
    return new PostgresStore(this.#pool, this.#sql, LeaseFence.parse(fence));
  }

  async insertTask(task: TaskRecord): Promise<void> {
    await this.#write(this.#sql.insertTask, TASK_COLUMNS, taskToRow(task));
  }

  async getTask(id: string): Promise<TaskRecord | undefined> {
    const [row] = await this.#read(this.#sql.getTask, [id]);
    return row === undefined ? undefined : taskFromRow(row);
  }

  async insertExecution(execution: ExecutionRecord): Promise<void> {
    await this.#write(this.#sql.insertExecution, EXECUTION_COLUMNS, executionToRow(execution));
  }

  async insertSubmission(
    records: { readonly task: TaskRecord; readonly execution: ExecutionRecord },
    key?: SubmitKey,
  ): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      await client.query(this.#sql.insertTask, columnValues(TASK_COLUMNS, taskToRow(records.task)));
      await client.query(this.#sql.insertExecution, columnValues(EXECUTION_COLUMNS, executionToRow(records.execution)));
      if (key === undefined) return;
      const row = submitKeyToRow(key, records.execution);
      const inserted = await client.query(this.#sql.insertSubmitKey, columnValues(SUBMIT_KEY_COLUMNS, row));
      if (inserted.rowCount === 0) throw new SubmitKeyTakenError(key.key);
    });
  }

  async getSubmitKey(key: string): Promise<SubmitKeyRecord | undefined> {
    const [row] = await this.#read(this.#sql.getSubmitKey, [key]);
    return row === undefined ? undefined : submitKeyFromRow(row);
  }

  // Read, merge and write in one transaction; the row stays locked (FOR UPDATE) from the read to the
  // commit, so a writer in another process waits instead of slipping in between.
  async updateExecution(id: string, patch: ExecutionPatch): Promise<void> {
    await this.#transaction(id, async (client) => {
      const { rows } = await client.query(this.#sql.lockExecution, [id]);
      const next = patchedExecutionRow(id, rows[0], patch);
      await client.query(this.#sql.updateExecution, columnValues(EXECUTION_COLUMNS, next));
    });
  }

  async getExecution(id: string): Promise<ExecutionRecord | undefined> {
    const [row] = await this.#read(this.#sql.getExecution, [id]);
    return row === undefined ? undefined : executionFromRow(row);
  }

  async findExecutions(query: { readonly prefix: string }): Promise<ExecutionRecord[]> {
    return (await this.#read(this.#sql.findExecutions, [query.prefix])).map(executionFromRow);
  }

  async listExecutions(query: ExecutionQuery = {}): Promise<ExecutionRecord[]> {
    const rows = await this.#read(this.#sql.listExecutions, [query.states ?? null, query.limit ?? null]);
    return rows.map(executionFromRow);
  }

  async insertAttempt(attempt: AttemptRecord): Promise<void> {
    const row = attemptToRow(attempt);
    if (!this.#fences(attempt.execution)) {
      await this.#write(this.#sql.insertAttempt, ATTEMPT_COLUMNS, row);
      return;
    }
    await this.#transaction(attempt.execution, async (client) => {
      await client.query(this.#sql.insertAttempt, columnValues(ATTEMPT_COLUMNS, row));
    });
  }

  // As updateExecution.
  async updateAttempt(execution: string, number: number, patch: AttemptPatch): Promise<void> {
    await this.#transaction(execution, async (client) => {
      const { rows } = await client.query(this.#sql.lockAttempt, [execution, number]);
      const next = patchedAttemptRow(execution, number, rows[0], patch);
      await client.query(this.#sql.updateAttempt, columnValues(ATTEMPT_COLUMNS, next));
    });
  }

  async listAttempts(execution: string): Promise<AttemptRecord[]> {
    return (await this.#read(this.#sql.listAttempts, [execution])).map(attemptFromRow);
  }

  async putQuota(record: QuotaRecord): Promise<void> {
    await this.#write(this.#sql.putQuota, QUOTA_COLUMNS, quotaToRow(record));
  }

  async listQuotas(): Promise<QuotaRecord[]> {
    return (await this.#read(this.#sql.listQuotas)).map(quotaFromRow);
  }

  /**
   * Ends the pool once; its connections close when their calls finish. Calls after it reject (pg's
   * pool refuses them), its views' too. A view's does nothing: the pool is its store's.
   */
  async close(): Promise<void> {
    if (this.#fence !== undefined) return;
    this.#ended ??= this.#pool.end();
    await this.#ended;
  }

  /** True when this is a view fenced to the lease of `execution`. */
  #fences(execution: string): boolean {
    return this.#fence?.execution === execution;
  }

  /**
   * Runs `work` in one transaction; in a view fenced to the lease of `execution`, only after the
   * lease row was found under the view's token and share-locked (to the commit), else rejecting
   * with LeaseFenceError before `work` runs.
   */
  async #transaction(execution: string, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    const fence = this.#fences(execution) ? this.#fence : undefined;
    await inTransaction(this.#pool, async (client) => {
      if (fence !== undefined) {
        const { rows } = await client.query(this.#sql.holdLease, [fence.execution, fence.token]);
        if (rows[0] === undefined) throw new LeaseFenceError(fence);
      }
      await work(client);
    });
  }

  async #read(statement: string, values: readonly unknown[] = []): Promise<unknown[]> {
    return queryRows(this.#pool, statement, values);
  }

  async #write(statement: string, columns: Columns, row: Readonly<Record<string, unknown>>): Promise<void> {
    await this.#pool.query(statement, columnValues(columns, row));
  }
}
