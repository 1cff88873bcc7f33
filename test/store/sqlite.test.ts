import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/sqlite/migrations.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { QuotaRecord } from '../../src/store/store.js';
import { describeStoreConformance } from './conformance.js';
import { attempt, execution, quota, task } from './records.js';

const dir = mkdtempSync(join(tmpdir(), 'harmflow-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const newFile = () => join(dir, `${++files}`, 'harmflow.db');

describeStoreConformance('sqlite file', async () => openSqliteStore(newFile()));
describeStoreConformance('sqlite :memory:', async () => openSqliteStore(':memory:'));

describe('openSqliteStore', () => {
  it('keeps its data across close and reopen, in WAL mode at the current schema version', async () => {
    const file = newFile();
    const first = openSqliteStore(file);
    await first.insertTask(task);
    await first.insertExecution(execution);
    await first.insertAttempt(attempt);
    await first.close();

    const second = openSqliteStore(file);
    try {
      expect(await second.getTask(task.id)).toStrictEqual(task);
      expect(await second.getExecution(execution.id)).toStrictEqual(execution);
      expect(await second.listAttempts(execution.id)).toStrictEqual([attempt]);
      await second.updateExecution(execution.id, { state: 'succeeded' });
    } finally {
      await second.close();
    }

    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(1);
      expect(raw.prepare('SELECT state FROM executions').get()).toEqual({ state: 'succeeded' });
    } finally {
      raw.close();
    }
  });

  it('enforces foreign keys on every connection it opens', async () => {
    const file = newFile();
    await openSqliteStore(file).close();
    const store = openSqliteStore(file);
    try {
      await expect(store.insertExecution({ ...execution, taskId: 'missing' })).rejects.toThrow(/FOREIGN KEY/);
    } finally {
      await store.close();
    }
  });

  it('refuses a database written by a newer schema, naming both versions', async () => {
    const file = newFile();
    await openSqliteStore(file).close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => openSqliteStore(file)).toThrow(
      `schema version ${SCHEMA_VERSION + 1}; this HarmFlow knows versions up to ${SCHEMA_VERSION}`,
    );
  });

  it('shares one database between two open stores (two connections) without losing writes', async () => {
    const file = newFile();
    const a = openSqliteStore(file);
    const b = openSqliteStore(file);
    try {
      await a.insertTask(task);
      await b.insertExecution(execution);
      await a.updateExecution(execution.id, { attemptCount: 2 });
      await b.updateExecution(execution.id, { message: 'from b' });
      expect(await a.getExecution(execution.id)).toStrictEqual({ ...execution, attemptCount: 2, message: 'from b' });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('upgrades a database of schema version 8, before the quota registry, and keeps its executions', async () => {
    const file = newFile();
    mkdirSync(dirname(file), { recursive: true });
    const v8 = new Database(file);
    for (const migration of MIGRATIONS.slice(0, 8)) v8.exec(migration);
    v8.pragma('user_version = 8');
    v8.prepare('INSERT INTO tasks VALUES (?, ?, ?, ?)').run(
      task.id,
      task.name,
      JSON.stringify(task.definition),
      task.createdAt,
    );
    v8.close();

    const store = openSqliteStore(file);
    try {
      expect(await store.getTask(task.id)).toStrictEqual(task);
      expect(await store.listQuotas()).toEqual([]);
      await store.putQuota(quota);
      expect(await store.listQuotas()).toStrictEqual([quota]);
    } finally {
      await store.close();
    }
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    } finally {
      raw.close();
    }
  });

  it('refuses quota rows that break the schema, whoever writes them', async () => {
    const file = newFile();
    await openSqliteStore(file).close();
    const raw = new Database(file);
    try {
      const insert = raw.prepare(
        'INSERT INTO quotas (harness, account, state, utilization, source, attempt, observed_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      );
      const at = quota.observedAt;
      expect(() => insert.run('codex', '', 'unknown', null, 'rate_limit', null, at)).toThrow(/CHECK constraint failed/);
      expect(() => insert.run('codex', '', 'warning', 1.5, 'rate_limit', null, at)).toThrow(/CHECK constraint failed/);
      expect(() => insert.run('codex', '', 'warning', -0.1, 'rate_limit', null, at)).toThrow(/CHECK constraint failed/);
      expect(() => insert.run('codex', '', 'ok', null, 'attempt.ended', 0, at)).toThrow(/CHECK constraint failed/);
      expect(() => insert.run('codex', '', 'ok', 'most', 'attempt.ended', null, at)).toThrow(/cannot store TEXT/);
      expect(raw.prepare('SELECT count(*) AS rows FROM quotas').get()).toEqual({ rows: 0 });
    } finally {
      raw.close();
    }
    const store = openSqliteStore(file);
    try {
      await expect(store.putQuota({ ...quota, state: 'gone' as QuotaRecord['state'] })).rejects.toThrow(
        /CHECK constraint failed/,
      );
      expect(await store.listQuotas()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
