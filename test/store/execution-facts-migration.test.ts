/**
 * The migration that adds an execution's pull request URL and turn count keeps an existing database
 * working: a database of the version before it opens, its executions read without either (not
 * recorded, never guessed), and both can be recorded afterwards.
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
import type { Store } from '../../src/store/store.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL, testSchemas } from './postgres.js';
import { execution, task } from './records.js';

/** How many migrations come before the one that adds `pull_request_url`. */
const versionBefore = (migrations: readonly string[]) =>
  migrations.findIndex((step) => step.includes('pull_request_url'));

const FACTS = { pullRequestUrl: 'https://github.com/acme/app/pull/3', turnCount: 2 };

/** The execution made before the upgrade reads as it was, without the new fields; they can be set. */
async function expectUpgraded(store: Store): Promise<void> {
  const read = await store.getExecution(execution.id);
  expect(read).toStrictEqual(execution);
  expect(read).not.toHaveProperty('pullRequestUrl');
  expect(read).not.toHaveProperty('turnCount');
  await store.updateExecution(execution.id, FACTS);
  expect(await store.getExecution(execution.id)).toStrictEqual({ ...execution, ...FACTS });
}

/** The columns an execution had before the migration, in `execution`'s order, and its values. */
function oldColumns(): { names: string[]; values: unknown[] } {
  const keys = Object.keys(execution) as (keyof typeof execution)[];
  return {
    names: keys.map((key) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)),
    values: keys.map((key) => execution[key]),
  };
}

describe('the execution facts migration (SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'harmflow-execution-facts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('upgrades a database of the version before, keeping its executions', async () => {
    const file = join(dir, 'harmflow.db');
    const version = versionBefore(SQLITE_MIGRATIONS);
    const old = new Database(file);
    for (const migration of SQLITE_MIGRATIONS.slice(0, version)) old.exec(migration);
    old.pragma(`user_version = ${version}`);
    old
      .prepare('INSERT INTO tasks VALUES (?, ?, ?, ?)')
      .run(task.id, task.name, JSON.stringify(task.definition), task.createdAt);
    const { names, values } = oldColumns();
    old
      .prepare(`INSERT INTO executions (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`)
      .run(...values);
    old.close();

    const upgraded = openSqliteStore(file);
    try {
      await expectUpgraded(upgraded);
    } finally {
      await upgraded.close();
    }
  });
});

describe.runIf(POSTGRES_AVAILABLE)('the execution facts migration (PostgreSQL)', () => {
  const schemas = testSchemas();

  it('upgrades a schema of the version before, keeping its executions', async () => {
    const schema = schemas.newSchema();
    const { admin } = schemas;
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(
      `CREATE TABLE ${schema}.${MIGRATIONS_TABLE} (version integer PRIMARY KEY, applied_at timestamptz)`,
    );
    const steps = POSTGRES_MIGRATIONS.slice(0, versionBefore(POSTGRES_MIGRATIONS));
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
    const { names, values } = oldColumns();
    await admin.query(
      `INSERT INTO ${schema}.executions (${names.join(', ')}) VALUES (${names.map((_, at) => `$${at + 1}`).join(', ')})`,
      values,
    );

    const upgraded = await openPostgresStore(TEST_POSTGRES_URL, { schema });
    try {
      await expectUpgraded(upgraded);
    } finally {
      await upgraded.close();
    }
  });
});
