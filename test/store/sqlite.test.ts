import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/sqlite/migrations.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { AttemptRecord, ExecutionRecord, TaskRecord } from '../../src/store/store.js';
import { describeStoreConformance } from './conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'harmflow-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const newFile = () => join(dir, `${++files}`, 'harmflow.db');

describeStoreConformance('sqlite file', async () => openSqliteStore(newFile()));
describeStoreConformance('sqlite :memory:', async () => openSqliteStore(':memory:'));

const task: TaskRecord = {
  id: 't1',
  name: 'demo',
  definition: { prompt: 'hi' },
  createdAt: '2025-03-01T10:00:00.000Z',
};
const execution: ExecutionRecord = {
  id: '01jf3k9x7q2m4n6p8r0s2t4v6w',
  taskId: 't1',
  taskName: 'demo',
  repo: '/r',
  baseRef: 'main',
  baseSha: 'c'.repeat(40),
  branch: 'harmflow/demo-01jf3k9x7q2m4n6p8r0s2t4v6w',
  worktree: '/w',
  runDir: '/d',
  state: 'running',
  createdAt: '2025-03-01T10:00:00.000Z',
  deadline: '2025-03-01T10:30:00.000Z',
  attemptCount: 1,
};
const attempt: AttemptRecord = {
  execution: execution.id,
  number: 1,
  harness: 'codex',
  simulated: true,
  startedAt: '2025-03-01T10:00:01.000Z',
  exitCode: null,
  signal: 'SIGTERM',
};

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
});
