/**
 * The PostgreSQL ResumeStore: the workflow engine's runs, step outputs and run items in the tables of
 * migration 2 (migrations.ts), in the same PostgreSQL schema as the Store, so item-steps of one run
 * may be computed by processes on several machines. Each method is one statement or one transaction
 * on a connection of its own bounded pool (pool.ts). Row mapping is shared with SQLite
 * (../resume-rows.ts); hashes are `bytea`, converted by `decode`/`encode`.
 *
 * What SQLite gets from its single writer, this gets from PostgreSQL's transactions and locks:
 * - commitItems is one transaction: every output and run item of the call is committed, or none (a
 *   refused row, an unknown run or a lost connection rolls it all back). Its rows go in two statements
 *   however many there are (arrays bound and `unnest`ed), and in a fixed order — outputs by
 *   fingerprint, then run items by (run, step, item) — so two processes committing overlapping items
 *   wait for each other and never deadlock. An output stored already is kept (ON CONFLICT DO NOTHING,
 *   which waits for a concurrent insert of the same fingerprint to commit or roll back); a run item is
 *   upserted, the last of several commits of one item in a call winning, as in SQLite.
 * - updateRun reads, merges and writes under the run's row lock (`FOR NO KEY UPDATE`): a writer in
 *   another process waits instead of slipping in between. The lock does not conflict with the key
 *   share lock a commit's foreign key check takes, so patching a run never waits for its commits.
 * - createRun relies on the primary key, invalidate on one statement that inserts only if the run
 *   exists (runs are never deleted).
 * - A commit's spend deltas are added to their drive steps' `run_spend` rows last in its transaction,
 *   one UPDATE a row in key order (mergeSpend), so concurrent committers of one step (cluster workers)
 *   hold its row only while their commit ends, and take rows in one order. startDrive numbers the
 *   drive under the run's row lock, so two drives started at once get two numbers.
 */
import type pg from 'pg';
import { NotFoundError } from '../../core/errors.js';
import {
  type Column,
  DIGEST_COLUMNS,
  digestsBy,
  driveStepRow,
  type HashSql,
  INVALIDATION_COLUMNS,
  invalidationFromRow,
  isSha256Hex,
  mergeSpend,
  OUTPUT_COLUMNS,
  OUTPUT_CONFLICT,
  OUTPUT_RECORD_COLUMNS,
  outputParams,
  outputsBy,
  patchedRunRow,
  RUN_COLUMNS,
  RUN_ITEM_COLUMNS,
  RUN_ITEM_CONFLICT,
  recordsBy,
  runFromRow,
  runItemFromRow,
  runItemParams,
  runToRow,
  SPEND_ADDED,
  SPEND_COLUMNS,
  selectColumns,
  spendAddSql,
  spendFromRow,
} from '../resume-rows.js';
import type {
  DigestQuery,
  DriveStep,
  Invalidation,
  ItemCommit,
  OutputRecord,
  ResumeStore,
  RunItem,
  RunPatch,
  RunRecord,
  SpendDelta,
  StepSpend,
  StoredOutput,
} from '../resume-store.js';
import { columnValues, insertSql, positionalParameter, selectList, updateSql } from '../sql.js';
import { inTransaction, queryRows } from './pool.js';
import { openSchemaPool, type PostgresStoreOptions } from './schema-pool.js';

/** Hashes as `bytea`: `decode(…, 'hex')` on write, `encode(…, 'hex')` (lowercase; NULL for NULL) on read. */
const HASHES: HashSql = {
  fromHex: (value) => `decode(${value}, 'hex')`,
  toHex: (column) => `encode(${column}, 'hex')`,
};

/**
 * The element type of a column's array in a bulk INSERT, by record key; `text` when not named (a
 * hash too: it is bound as hex and decoded in the statement).
 */
const ARRAY_TYPES: Readonly<Record<string, string>> = {
  durationMs: 'float8',
  inputTokens: 'int8',
  outputTokens: 'int8',
  createdAt: 'timestamptz',
  cached: 'boolean',
  tries: 'int4',
  updatedAt: 'timestamptz',
};

/**
 * `INSERT INTO table (columns) SELECT … FROM unnest($1::type[], …)`: one row per array index, the
 * arrays bound in the columns' order (`columnArrays`), hashes decoded.
 */
function bulkInsertSql(table: string, columns: readonly Column[]): string {
  const names = columns.map(({ column }) => column).join(', ');
  const arrays = columns.map(({ key }, index) => `$${index + 1}::${ARRAY_TYPES[key] ?? 'text'}[]`).join(', ');
  const values = columns
    .map(({ column, hash }) => (hash === undefined ? `given.${column}` : HASHES.fromHex(`given.${column}`)))
    .join(', ');
  return `INSERT INTO ${table} (${names}) SELECT ${values} FROM unnest(${arrays}) AS given (${names})`;
}

/** Rows of parameters (each in column order) as one array per column: what bulkInsertSql binds. */
function columnArrays(rows: readonly (readonly unknown[])[], width: number): unknown[][] {
  return Array.from({ length: width }, (_, column) => rows.map((row) => row[column]));
}

/** Orders entries by their key, in code unit order: the order rows are locked in. */
function byKey<T>(entries: Iterable<readonly [string, T]>): T[] {
  return [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value);
}

/**
 * openPostgresResumeStore connects to the database at `url` (a `postgres://` URL) and applies the
 * missing migrations to its schema (schema-pool.ts: the Store, the ResumeStore and the EffectLedger
 * share the schema, and any of them may open it first). Rejects when the server does not answer
 * within the connect timeout, or the schema name is not a plain lowercase identifier. The caller owns
 * the store and closes it.
 */
export async function openPostgresResumeStore(url: string, options: PostgresStoreOptions = {}): Promise<ResumeStore> {
  const { pool, schema } = await openSchemaPool(url, options);
  return new PostgresResumeStore(pool, schema);
}

class PostgresResumeStore implements ResumeStore {
  readonly #pool: pg.Pool;
  #ended: Promise<void> | undefined;
  readonly #insertRun: string;
  readonly #getRun: string;
  readonly #lockRun: string;
  readonly #updateRun: string;
  readonly #listRuns: string;
  readonly #listWorkflowRuns: string;
  readonly #findRuns: string;
  readonly #getOutputs: string;
  readonly #getOutputRecords: string;
  readonly #latestOutputs: string;
  readonly #digestsOf: string;
  readonly #runDigests: string;
  readonly #stepDigests: string;
  readonly #insertOutputs: string;
  readonly #upsertRunItems: string;
  readonly #listRunItems: string;
  readonly #listStepItems: string;
  readonly #insertInvalidation: string;
  readonly #listInvalidations: string;
  readonly #insertDriveStep: string;
  readonly #lastDrive: string;
  readonly #addSpend: string;
  readonly #listSpend: string;

  constructor(pool: pg.Pool, schema: string) {
    this.#pool = pool;
    const runsTable = `${schema}.workflow_runs`;
    const runs = `SELECT ${selectList(RUN_COLUMNS)} FROM ${runsTable}`;
    const newestFirst = 'ORDER BY created_at DESC, id DESC';
    const outputSelect = selectColumns(OUTPUT_COLUMNS, HASHES);
    const outputs = `SELECT ${outputSelect} FROM ${schema}.step_outputs`;
    const runItems = `SELECT ${selectColumns(RUN_ITEM_COLUMNS, HASHES)} FROM ${schema}.run_items`;
    this.#insertRun = insertSql(runsTable, RUN_COLUMNS, positionalParameter);
    this.#getRun = `${runs} WHERE id = $1`;
    this.#lockRun = `${runs} WHERE id = $1 FOR NO KEY UPDATE`;
    this.#updateRun = updateSql(runsTable, RUN_COLUMNS, ['id'], positionalParameter);
    this.#listRuns = `${runs} ${newestFirst}`;
    this.#listWorkflowRuns = `${runs} WHERE workflow = $1 ${newestFirst}`;
    this.#findRuns = `SELECT id FROM ${runsTable} WHERE id = ANY ($1::text[])`;
    // The caller's list, hex text that is not a hash left out first (decode would refuse it), as one
    // array bound; a fingerprint asked twice is found once.
    const asked = `fingerprint IN (SELECT ${HASHES.fromHex('asked')} FROM unnest($1::text[]) AS asked)`;
    const digestSelect = selectColumns(DIGEST_COLUMNS, HASHES);
    this.#getOutputs = `${outputs} WHERE ${asked}`;
    this.#getOutputRecords = `SELECT ${selectColumns(OUTPUT_RECORD_COLUMNS, HASHES)} FROM ${schema}.step_outputs
      WHERE ${asked}`;
    this.#digestsOf = `SELECT ${digestSelect} FROM ${schema}.step_outputs WHERE ${asked}`;
    // The run's done items in key order (the primary key's, in "C" collation), each joined with its output.
    const runDigests = `SELECT ${digestSelect} FROM ${schema}.run_items
      JOIN ${schema}.step_outputs ON step_outputs.fingerprint = run_items.fingerprint
      WHERE run_items.run = $1 AND run_items.status = 'done'`;
    this.#runDigests = `${runDigests} ORDER BY run_items.step, run_items.item`;
    this.#stepDigests = `${runDigests} AND run_items.step = $2 ORDER BY run_items.item`;
    // The newest of each item: the first row of each item once its rows are sorted newest first. The
    // names are qualified so they mean the stored columns, not the select list's hex of the same name.
    this.#latestOutputs = `SELECT DISTINCT ON (step_outputs.item) ${outputSelect} FROM ${schema}.step_outputs
      WHERE workflow = $1 AND step = $2
      ORDER BY step_outputs.item, step_outputs.created_at DESC, step_outputs.fingerprint DESC`;
    this.#insertOutputs = `${bulkInsertSql(`${schema}.step_outputs`, OUTPUT_COLUMNS)} ${OUTPUT_CONFLICT}`;
    this.#upsertRunItems = `${bulkInsertSql(`${schema}.run_items`, RUN_ITEM_COLUMNS)} ${RUN_ITEM_CONFLICT}`;
    this.#listRunItems = `${runItems} WHERE run = $1 ORDER BY step, item`;
    this.#listStepItems = `${runItems} WHERE run = $1 AND step = $2 ORDER BY item`;
    this.#insertInvalidation = `INSERT INTO ${schema}.invalidations (run, step, reason, at)
      SELECT $1, $2, $3, $4::timestamptz WHERE EXISTS (SELECT 1 FROM ${runsTable} WHERE id = $1)`;
    this.#listInvalidations = `SELECT ${selectList(INVALIDATION_COLUMNS)} FROM ${schema}.invalidations
      WHERE run = $1 ORDER BY at, step`;
    const spendTable = `${schema}.run_spend`;
    this.#insertDriveStep = insertSql(spendTable, SPEND_COLUMNS, positionalParameter);
    this.#lastDrive = `SELECT coalesce(max(drive), 0)::int AS drive FROM ${spendTable} WHERE run = $1`;
    const added = Object.keys(SPEND_ADDED).length;
    this.#addSpend = `UPDATE ${spendTable} SET ${spendAddSql(positionalParameter)}
      WHERE run = $${added + 1} AND drive = $${added + 2} AND step = $${added + 3}`;
    // started_at is read as text by the pool's parser (pool.ts), as every timestamptz.
    this.#listSpend = `SELECT ${selectList(SPEND_COLUMNS)} FROM ${spendTable} WHERE run = ANY ($1::text[])
      ORDER BY run, drive, position`;
  }

  async createRun(run: RunRecord): Promise<void> {
    await this.#pool.query(this.#insertRun, columnValues(RUN_COLUMNS, runToRow(run)));
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const [row] = await queryRows(this.#pool, this.#getRun, [id]);
    return row === undefined ? undefined : runFromRow(row);
  }

  async updateRun(id: string, patch: RunPatch): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      const { rows } = await client.query(this.#lockRun, [id]);
      await client.query(this.#updateRun, columnValues(RUN_COLUMNS, patchedRunRow(id, rows[0], patch)));
    });
  }

  async listRuns(query: { readonly workflow?: string } = {}): Promise<RunRecord[]> {
    const rows =
      query.workflow === undefined
        ? await queryRows(this.#pool, this.#listRuns)
        : await queryRows(this.#pool, this.#listWorkflowRuns, [query.workflow]);
    return rows.map(runFromRow);
  }

  async getOutputs(fingerprints: readonly string[]): Promise<Map<string, StoredOutput>> {
    return outputsBy('fingerprint', await queryRows(this.#pool, this.#getOutputs, [fingerprints.filter(isSha256Hex)]));
  }

  async getOutputRecords(fingerprints: readonly string[]): Promise<Map<string, OutputRecord>> {
    return recordsBy(await queryRows(this.#pool, this.#getOutputRecords, [fingerprints.filter(isSha256Hex)]));
  }

  async outputDigests(query: DigestQuery): Promise<Map<string, string>> {
    if ('fingerprints' in query) {
      return digestsBy(await queryRows(this.#pool, this.#digestsOf, [query.fingerprints.filter(isSha256Hex)]));
    }
    const { run, step } = query;
    return digestsBy(
      step === undefined
        ? await queryRows(this.#pool, this.#runDigests, [run])
        : await queryRows(this.#pool, this.#stepDigests, [run, step]),
    );
  }

  async latestOutputs(workflow: string, step: string): Promise<Map<string, StoredOutput>> {
    return outputsBy('item', await queryRows(this.#pool, this.#latestOutputs, [workflow, step]));
  }

  async commitItems(commits: readonly ItemCommit[], spend: readonly SpendDelta[] = []): Promise<void> {
    const outputs = new Map<string, unknown[]>();
    const items = new Map<string, unknown[]>();
    for (const { item, output, texts } of commits) {
      if (output !== undefined && !outputs.has(output.fingerprint)) {
        outputs.set(output.fingerprint, outputParams(output, texts));
      }
      // Keyed as JSON, so no text inside a name can make two keys one.
      items.set(JSON.stringify([item.run, item.step, item.item]), runItemParams(item));
    }
    const runs = [...new Set(commits.map(({ item }) => item.run))];
    const sums = mergeSpend(spend);
    await inTransaction(this.#pool, async (client) => {
      const known = new Set((await client.query<{ id: string }>(this.#findRuns, [runs])).rows.map(({ id }) => id));
      const unknown = runs.find((run) => !known.has(run));
      if (unknown !== undefined) throw new NotFoundError(`no workflow run ${unknown}`);
      if (outputs.size > 0) {
        await client.query(this.#insertOutputs, columnArrays(byKey(outputs), OUTPUT_COLUMNS.length));
      }
      if (items.size > 0) {
        await client.query(this.#upsertRunItems, columnArrays(byKey(items), RUN_ITEM_COLUMNS.length));
      }
      for (const sum of sums) {
        const figures = Object.keys(SPEND_ADDED).map((key) => sum[key as keyof typeof SPEND_ADDED]);
        const { rowCount } = await client.query(this.#addSpend, [...figures, sum.run, sum.drive, sum.step]);
        if (rowCount !== 1) {
          throw new NotFoundError(`no drive ${sum.drive} of workflow run ${sum.run} with a step ${sum.step}`);
        }
      }
    });
  }

  async startDrive(run: string, steps: readonly DriveStep[], at: string): Promise<number> {
    return inTransaction(this.#pool, async (client) => {
      const { rows } = await client.query(this.#lockRun, [run]);
      if (rows.length === 0) throw new NotFoundError(`no workflow run ${run}`);
      const last = await client.query<{ drive: number }>(this.#lastDrive, [run]);
      const drive = (last.rows[0]?.drive ?? 0) + 1;
      for (const [position, step] of steps.entries()) {
        await client.query(
          this.#insertDriveStep,
          columnValues(SPEND_COLUMNS, driveStepRow(run, drive, position, step, at)),
        );
      }
      return drive;
    });
  }

  async listSpend(runs: readonly string[]): Promise<StepSpend[]> {
    return (await queryRows(this.#pool, this.#listSpend, [runs])).map(spendFromRow);
  }

  async invalidate(invalidation: Invalidation): Promise<void> {
    const { run, step, reason, at } = invalidation;
    const { rowCount } = await this.#pool.query(this.#insertInvalidation, [run, step, reason, at]);
    if (rowCount === 0) throw new NotFoundError(`no workflow run ${run}`);
  }

  async listInvalidations(run: string): Promise<Invalidation[]> {
    return (await queryRows(this.#pool, this.#listInvalidations, [run])).map(invalidationFromRow);
  }

  async listRunItems(run: string, step?: string): Promise<RunItem[]> {
    const rows =
      step === undefined
        ? await queryRows(this.#pool, this.#listRunItems, [run])
        : await queryRows(this.#pool, this.#listStepItems, [run, step]);
    return rows.map(runItemFromRow);
  }

  /** Ends the pool, once: calls under way finish, calls after it reject (pg's pool refuses them). */
  async close(): Promise<void> {
    this.#ended ??= this.#pool.end();
    await this.#ended;
  }
}
