/**
 * The SQLite Store: the embedded default (`HARMFLOW_HOME/harmflow.db`), and with `:memory:` the fake
 * the tests use. better-sqlite3 is synchronous; each method does its work at once and returns a settled
 * Promise, so it is interchangeable with a networked adapter.
 */
import type Database from 'better-sqlite3';
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
import { insertSql, selectList, updateSql, upsertSql } from '../sql.js';
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
import { openDatabase } from './open.js';

export { BUSY_TIMEOUT_MS } from './open.js';

/**
 * openSqliteStore opens (creating it, its directory and its tables if needed) the database at `file`,
 * or a private in-memory one for `:memory:`. It sets WAL (readers never block the writer, and several
 * processes share the file), the busy timeout and foreign keys, and applies missing migrations. The
 * caller owns the store and closes it.
 */
export function openSqliteStore(file: string): Store {
  return new SqliteStore(openDatabase(file, 'FULL'));
}

class SqliteStore implements Store {
  readonly #db: Database.Database;
  readonly #insertTask: Database.Statement;
  readonly #getTask: Database.Statement;
  readonly #insertExecution: Database.Statement;
  readonly #getExecution: Database.Statement;
  readonly #updateExecution: Database.Statement;
  readonly #findExecutions: Database.Statement;
  readonly #listExecutions: Database.Statement;
  readonly #insertAttempt: Database.Statement;
  readonly #getAttempt: Database.Statement;
  readonly #updateAttempt: Database.Statement;
  readonly #listAttempts: Database.Statement;
  readonly #putQuota: Database.Statement;
  readonly #listQuotas: Database.Statement;
  readonly #insertSubmitKey: Database.Statement;
  readonly #getSubmitKey: Database.Statement;
  readonly #insertSubmission: (task: TaskRecord, execution: ExecutionRecord, key: SubmitKey | undefined) => void;
  readonly #patchExecution: (id: string, patch: ExecutionPatch) => void;
  readonly #patchAttempt: (execution: string, number: number, patch: AttemptPatch) => void;

  constructor(db: Database.Database) {
    this.#db = db;
    const executions = `SELECT ${selectList(EXECUTION_COLUMNS)} FROM executions`;
    const newestFirst = 'ORDER BY created_at DESC, id DESC';
    const attempts = `SELECT ${selectList(ATTEMPT_COLUMNS)} FROM attempts`;
    this.#insertTask = db.prepare(insertSql('tasks', TASK_COLUMNS));
    this.#getTask = db.prepare(`SELECT ${selectList(TASK_COLUMNS)} FROM tasks WHERE id = ?`);
    this.#insertExecution = db.prepare(insertSql('executions', EXECUTION_COLUMNS));
    this.#getExecution = db.prepare(`${executions} WHERE id = ?`);
    this.#updateExecution = db.prepare(updateSql('executions', EXECUTION_COLUMNS, ['id']));
    // A scan: executions number in the thousands, and a prefix is typed by a person.
    this.#findExecutions = db.prepare(`${executions} WHERE substr(id, 1, length(@prefix)) = @prefix ${newestFirst}`);
    this.#listExecutions = db.prepare(
      `${executions} WHERE @states IS NULL OR state IN (SELECT value FROM json_each(@states)) ${newestFirst} LIMIT @limit`,
    );
    this.#insertAttempt = db.prepare(insertSql('attempts', ATTEMPT_COLUMNS));
    this.#getAttempt = db.prepare(`${attempts} WHERE execution = ? AND number = ?`);
    this.#updateAttempt = db.prepare(updateSql('attempts', ATTEMPT_COLUMNS, ['execution', 'number']));
    this.#listAttempts = db.prepare(`${attempts} WHERE execution = ? ORDER BY number`);
    // One statement, so atomic: the stored row stays when it was observed later than the new one.
    this.#putQuota = db.prepare(
      upsertSql('quotas', QUOTA_COLUMNS, ['harness', 'account'], 'excluded.observed_at >= quotas.observed_at'),
    );
    this.#listQuotas = db.prepare(`SELECT ${selectList(QUOTA_COLUMNS)} FROM quotas ORDER BY harness, account`);
    // DO NOTHING: a taken key inserts no row, and the transaction below is rolled back.
    this.#insertSubmitKey = db.prepare(`${insertSql('submit_keys', SUBMIT_KEY_COLUMNS)} ON CONFLICT (key) DO NOTHING`);
    this.#getSubmitKey = db.prepare(`SELECT ${selectList(SUBMIT_KEY_COLUMNS)} FROM submit_keys WHERE key = ?`);

    // IMMEDIATE: the write lock first, so a submit in another process with the same key waits for
    // this one's commit, then finds the key taken.
    this.#insertSubmission = db.transaction(
      (task: TaskRecord, execution: ExecutionRecord, key: SubmitKey | undefined) => {
        this.#insertTask.run(taskToRow(task));
        this.#insertExecution.run(executionToRow(execution));
        if (key === undefined) return;
        if (this.#insertSubmitKey.run(submitKeyToRow(key, execution)).changes === 0) {
          throw new SubmitKeyTakenError(key.key);
        }
      },
    ).immediate;

    // Read, merge and write in one IMMEDIATE transaction: it takes the write lock first, so a
    // writer in another process cannot slip in between the read and the write.
    this.#patchExecution = db.transaction((id: string, patch: ExecutionPatch) => {
      this.#updateExecution.run(patchedExecutionRow(id, this.#getExecution.get(id), patch));
    }).immediate;
    this.#patchAttempt = db.transaction((execution: string, number: number, patch: AttemptPatch) => {
      const stored = this.#getAttempt.get(execution, number);
      this.#updateAttempt.run(patchedAttemptRow(execution, number, stored, patch));
    }).immediate;
  }

  async insertTask(task: TaskRecord): Promise<void> {
    this.#insertTask.run(taskToRow(task));
  }

  async getTask(id: string): Promise<TaskRecord | undefined> {
    const row = this.#getTask.get(id);
    return row === undefined ? undefined : taskFromRow(row);
  }

  async insertExecution(execution: ExecutionRecord): Promise<void> {
    this.#insertExecution.run(executionToRow(execution));
  }

  async insertSubmission(
    records: { readonly task: TaskRecord; readonly execution: ExecutionRecord },
    key?: SubmitKey,
  ): Promise<void> {
    this.#insertSubmission(records.task, records.execution, key);
  }

  async getSubmitKey(key: string): Promise<SubmitKeyRecord | undefined> {
    const row = this.#getSubmitKey.get(key);
    return row === undefined ? undefined : submitKeyFromRow(row);
  }

  async updateExecution(id: string, patch: ExecutionPatch): Promise<void> {
    this.#patchExecution(id, patch);
  }

  async getExecution(id: string): Promise<ExecutionRecord | undefined> {
    const row = this.#getExecution.get(id);
    return row === undefined ? undefined : executionFromRow(row);
  }

  async findExecutions(query: { readonly prefix: string }): Promise<ExecutionRecord[]> {
    return this.#findExecutions.all({ prefix: query.prefix }).map(executionFromRow);
  }

  async listExecutions(query: ExecutionQuery = {}): Promise<ExecutionRecord[]> {
    const rows = this.#listExecutions.all({
      states: query.states === undefined ? null : JSON.stringify(query.states),
      // SQLite reads a negative LIMIT as "no limit".
      limit: query.limit ?? -1,
    });
    return rows.map(executionFromRow);
  }

  async insertAttempt(attempt: AttemptRecord): Promise<void> {
    this.#insertAttempt.run(attemptToRow(attempt));
  }

  async updateAttempt(execution: string, number: number, patch: AttemptPatch): Promise<void> {
    this.#patchAttempt(execution, number, patch);
  }

  async listAttempts(execution: string): Promise<AttemptRecord[]> {
    return this.#listAttempts.all(execution).map(attemptFromRow);
  }

  async putQuota(record: QuotaRecord): Promise<void> {
    this.#putQuota.run(quotaToRow(record));
  }

  async listQuotas(): Promise<QuotaRecord[]> {
    return this.#listQuotas.all().map(quotaFromRow);
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}
