/**
 * The PostgreSQL Store: the database several HarmFlow processes share (cluster mode). It keeps the
 * records in one PostgreSQL schema, `public` unless told (tests give each store its own), with the
 * tables of migrations.ts (column types chosen there). Each method is one statement or one
 * transaction on a connection of a bounded pool (pool.ts).
 */
import type pg from 'pg';
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
import type {
  AttemptPatch,
  AttemptRecord,
  ExecutionPatch,
  ExecutionQuery,
  ExecutionRecord,
  QuotaRecord,
  Store,
  TaskRecord,
} from '../store.js';
import { inTransaction, queryRows } from './pool.js';
import { openSchemaPool, type PostgresStoreOptions } from './schema-pool.js';

/**
 * openPostgresStore connects to the database at `url` (a `postgres://` URL) and applies the missing
 * migrations to its schema (schema-pool.ts: several processes may open it at once). Rejects when the
 * server does not answer within the connect timeout, or the schema name is not a plain lowercase
 * identifier. The caller owns the store and closes it.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const { pool, schema } = await openSchemaPool(url, options);
  return new PostgresStore(pool, schema);
}

class PostgresStore implements Store {
  readonly #pool: pg.Pool;
  #ended: Promise<void> | undefined;
  readonly #insertTask: string;
  readonly #getTask: string;
  readonly #insertExecution: string;
  readonly #getExecution: string;
  readonly #lockExecution: string;
  readonly #updateExecution: string;
  readonly #findExecutions: string;
  readonly #listExecutions: string;
  readonly #insertAttempt: string;
  readonly #lockAttempt: string;
  readonly #updateAttempt: string;
  readonly #listAttempts: string;
  readonly #putQuota: string;
  readonly #listQuotas: string;

  constructor(pool: pg.Pool, schema: string) {
    this.#pool = pool;
    const tasks = `${schema}.tasks`;
    const executionsTable = `${schema}.executions`;
    const attemptsTable = `${schema}.attempts`;
    const executions = `SELECT ${selectList(EXECUTION_COLUMNS)} FROM ${executionsTable}`;
    const newestFirst = 'ORDER BY created_at DESC, id DESC';
    const attempts = `SELECT ${selectList(ATTEMPT_COLUMNS)} FROM ${attemptsTable}`;
    this.#insertTask = insertSql(tasks, TASK_COLUMNS, positionalParameter);
    this.#getTask = `SELECT ${selectList(TASK_COLUMNS)} FROM ${tasks} WHERE id = $1`;
    this.#insertExecution = insertSql(executionsTable, EXECUTION_COLUMNS, positionalParameter);
    this.#getExecution = `${executions} WHERE id = $1`;
    this.#lockExecution = `${executions} WHERE id = $1 FOR UPDATE`;
    this.#updateExecution = updateSql(executionsTable, EXECUTION_COLUMNS, ['id'], positionalParameter);
    // A scan: executions number in the thousands, and a prefix is typed by a person.
    this.#findExecutions = `${executions} WHERE starts_with(id, $1) ${newestFirst}`;
    // A NULL list of states matches every state; LIMIT NULL is no limit.
    this.#listExecutions = `${executions} WHERE $1::text[] IS NULL OR state = ANY ($1::text[]) ${newestFirst} LIMIT $2`;
    this.#insertAttempt = insertSql(attemptsTable, ATTEMPT_COLUMNS, positionalParameter);
    this.#lockAttempt = `${attempts} WHERE execution = $1 AND number = $2 FOR UPDATE`;
    this.#updateAttempt = updateSql(attemptsTable, ATTEMPT_COLUMNS, ['execution', 'number'], positionalParameter);
    this.#listAttempts = `${attempts} WHERE execution = $1 ORDER BY number`;
    // One statement, so atomic: the stored row stays when it was observed later than the new one.
    this.#putQuota = upsertSql(
      `${schema}.quotas`,
      QUOTA_COLUMNS,
      ['harness', 'account'],
      'excluded.observed_at >= quotas.observed_at',
      positionalParameter,
    );
    this.#listQuotas = `SELECT ${selectList(QUOTA_COLUMNS)} FROM ${schema}.quotas ORDER BY harness, account`;
  }

  async insertTask(task: TaskRecord): Promise<void> {
    await this.#write(this.#insertTask, TASK_COLUMNS, taskToRow(task));
  }

  async getTask(id: string): Promise<TaskRecord | undefined> {
    const [row] = await this.#read(this.#getTask, [id]);
    return row === undefined ? undefined : taskFromRow(row);
  }

  async insertExecution(execution: ExecutionRecord): Promise<void> {
    await this.#write(this.#insertExecution, EXECUTION_COLUMNS, executionToRow(execution));
  }

  // Read, merge and write in one transaction; the row stays locked (FOR UPDATE) from the read to the
  // commit, so a writer in another process waits instead of slipping in between.
  async updateExecution(id: string, patch: ExecutionPatch): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      const { rows } = await client.query(this.#lockExecution, [id]);
      const next = patchedExecutionRow(id, rows[0], patch);
      await client.query(this.#updateExecution, columnValues(EXECUTION_COLUMNS, next));
    });
  }

  async getExecution(id: string): Promise<ExecutionRecord | undefined> {
    const [row] = await this.#read(this.#getExecution, [id]);
    return row === undefined ? undefined : executionFromRow(row);
  }

  async findExecutions(query: { readonly prefix: string }): Promise<ExecutionRecord[]> {
    return (await this.#read(this.#findExecutions, [query.prefix])).map(executionFromRow);
  }

  async listExecutions(query: ExecutionQuery = {}): Promise<ExecutionRecord[]> {
    const rows = await this.#read(this.#listExecutions, [query.states ?? null, query.limit ?? null]);
    return rows.map(executionFromRow);
  }

  async insertAttempt(attempt: AttemptRecord): Promise<void> {
    await this.#write(this.#insertAttempt, ATTEMPT_COLUMNS, attemptToRow(attempt));
  }

  // As updateExecution.
  async updateAttempt(execution: string, number: number, patch: AttemptPatch): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      const { rows } = await client.query(this.#lockAttempt, [execution, number]);
      const next = patchedAttemptRow(execution, number, rows[0], patch);
      await client.query(this.#updateAttempt, columnValues(ATTEMPT_COLUMNS, next));
    });
  }

  async listAttempts(execution: string): Promise<AttemptRecord[]> {
    return (await this.#read(this.#listAttempts, [execution])).map(attemptFromRow);
  }

  async putQuota(record: QuotaRecord): Promise<void> {
    await this.#write(this.#putQuota, QUOTA_COLUMNS, quotaToRow(record));
  }

  async listQuotas(): Promise<QuotaRecord[]> {
    return (await this.#read(this.#listQuotas)).map(quotaFromRow);
  }

  /** Ends the pool once; its connections close when their calls finish. Calls after it reject (pg's pool refuses them). */
  async close(): Promise<void> {
    this.#ended ??= this.#pool.end();
    await this.#ended;
  }

  async #read(statement: string, values: readonly unknown[] = []): Promise<unknown[]> {
    return queryRows(this.#pool, statement, values);
  }

  async #write(statement: string, columns: Columns, row: Readonly<Record<string, unknown>>): Promise<void> {
    await this.#pool.query(statement, columnValues(columns, row));
  }
}
