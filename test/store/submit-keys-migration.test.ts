/**
 * The migration that adds submits' idempotency keys keeps an existing database working: a database
 * of the version before it opens, keeps its executions, and takes keyed submissions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_TABLE, MIGRATIONS as POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { ExecutionRecord, Store } from '../../src/store/store.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL, testSchemas } from './postgres.js';
import { execution, task } from './records.js';

const KEY = { key: 'after-the-upgrade', requestHash: 'c'.repeat(64) };

/** How many migrations come before the one that adds `submit_keys`. */
const before = (migrations: readonly string[]) => migrations.findIndex((step) => step.includes('TABLE submit_keys'));
const NEXT_ID = '01jf3kaaaa2m4n6p8r0s2t4v6y';

/** The execution made before the upgrade is there; a keyed submission after it is recorded. */
async function expectUpgraded(store: Store): Promise<void> {
  expect(await store.getExecution(execution.id)).toStrictEqual(execution);
  const next: ExecutionRecord = { ...execution, id: NEXT_ID, taskId: `${NEXT_ID}-task` };
  await store.insertSubmission({ task: { ...task, id: next.taskId }, execution: next }, KEY);
  expect((await store.getSubmitKey(KEY.key))?.execution).toStrictEqual(next);
}

describe('the submit keys migration (SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'harmflow-submit-keys-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('upgrades a database of the version before, keeping its executions', async () => {
    const file = join(dir, 'harmflow.db');
    const version = before(SQLITE_MIGRATIONS);
    const old = new Database(file);
    for (const migration of SQLITE_MIGRATIONS.slice(0, version)) old.exec(migration);
    old.pragma(`user_version = ${version}`);
    old
      .prepare('INSERT INTO tasks VALUES (?, ?, ?, ?)')
      .run(task.id, task.name, JSON.stringify(task.definition), task.createdAt);
    const columns = Object.keys(execution) as (keyof ExecutionRecord)[];
    const names = columns.map((key) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`));
    old
      .prepare(`INSERT INTO executions (${names.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
      .run(...columns.map((key) => execution[key]));
    old.close();

    const upgraded = openSqliteStore(file);
    try {
      await expectUpgraded(upgraded);
    } finally {
      await upgraded.close();
    }
  });
});

describe.runIf(POSTGRES_AVAILABLE)('the submit keys migration (PostgreSQL)', () => {
  const schemas = testSchemas();

  it('upgrades a schema of the version before, keeping its executions', async () => {
    const schema = schemas.newSchema();
    const { admin } = schemas;
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(
      `CREATE TABLE ${schema}.${MIGRATIONS_TABLE} (version integer PRIMARY KEY, applied_at timestamptz)`,
    );
    const steps = POSTGRES_MIGRATIONS.slice(0, before(POSTGRES_MIGRATIONS));
    for (const [index, step] of steps.entries()) {
      await admin.query(`SET search_path TO ${schema}; ${step}; RESET search_path`);
      await admin.query(`INSERT INTO ${schema}.${MIGRATIONS_TABLE} (version) VALUES ($1)`, [index + 1]);
    }
    await admin.query(`INSERT INTO ${schema}.tasks VALUES ($1, $2, $3, $4)`, [
      task.id,
      task.name,
      task.definition,
      task.createdAt,
    ]);
    await admin.query(
      `INSERT INTO ${schema}.executions (id, task_id, task_name, repo, base_ref, base_sha, branch, worktree, run_dir,
        state, created_at, deadline, attempt_count) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
        execution.id,
        execution.taskId,
        execution.taskName,
        execution.repo,
        execution.baseRef,
        execution.baseSha,
        execution.branch,
        execution.worktree,
        execution.runDir,
        execution.state,
        execution.createdAt,
        execution.deadline,
        execution.attemptCount,
      ],
    );

    const upgraded = await openPostgresStore(TEST_POSTGRES_URL, { schema });
    try {
      await expectUpgraded(upgraded);
    } finally {
      await upgraded.close();
    }
  });
});
