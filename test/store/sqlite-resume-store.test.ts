import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunItem } from '../../src/store/resume-store.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/sqlite/migrations.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import {
  at,
  computed,
  describeResumeStoreConformance,
  digestFor,
  done,
  failed,
  fp,
  OWNER,
  output,
  run,
} from './resume-conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'harmflow-resume-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const newFile = () => join(dir, `${++files}`, 'harmflow.db');

type DoneItem = Extract<RunItem, { status: 'done' }>;

describeResumeStoreConformance('sqlite :memory:', () => openSqliteResumeStore(':memory:'));
describeResumeStoreConformance('sqlite file', () => openSqliteResumeStore(newFile()));

describe('openSqliteResumeStore', () => {
  it('keeps runs, outputs and run items across close and reopen, in WAL mode at the current version', async () => {
    const file = newFile();
    const first = openSqliteResumeStore(file);
    await first.createRun(run('r-1'));
    await first.commitItems([computed('r-1', output(fp('a'))), { item: failed('r-1', 'review', 'c-1', fp('b')) }]);
    await first.updateRun('r-1', { state: 'crashed', message: 'overloaded', updatedAt: at(9) });
    await first.close();

    const second = openSqliteResumeStore(file);
    try {
      expect(await second.getRun('r-1')).toStrictEqual({
        ...run('r-1'),
        state: 'crashed',
        message: 'overloaded',
        updatedAt: at(9),
      });
      expect((await second.getOutputs([fp('a')])).get(fp('a'))).toStrictEqual(output(fp('a')));
      expect((await second.latestOutputs('invoices', 'extract')).get('c-1')).toStrictEqual(output(fp('a')));
      expect(await second.listRunItems('r-1')).toStrictEqual([
        done('r-1', 'extract', 'c-1', fp('a')),
        failed('r-1', 'review', 'c-1', fp('b')),
      ]);
    } finally {
      await second.close();
    }

    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
    } finally {
      raw.close();
    }
  });

  it('upgrades a database of schema version 1 and keeps what the Store wrote there', async () => {
    const file = newFile();
    mkdirSync(dirname(file), { recursive: true });
    const v1 = new Database(file);
    v1.exec(MIGRATIONS[0] ?? '');
    v1.pragma('user_version = 1');
    v1.prepare("INSERT INTO tasks VALUES ('t-1', 'demo', '{}', ?)").run(at(0));
    v1.close();

    const resume = openSqliteResumeStore(file);
    await resume.createRun(run('r-1'));
    await resume.close();
    const store = openSqliteStore(file);
    try {
      expect(await store.getTask('t-1')).toStrictEqual({ id: 't-1', name: 'demo', definition: {}, createdAt: at(0) });
    } finally {
      await store.close();
    }
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(raw.prepare('SELECT id FROM workflow_runs').all()).toEqual([{ id: 'r-1' }]);
    } finally {
      raw.close();
    }
  });

  it('upgrades a database of schema version 7: its outputs and run items, hex text there, read back the same', async () => {
    const file = newFile();
    mkdirSync(dirname(file), { recursive: true });
    const v7 = new Database(file);
    for (const migration of MIGRATIONS.slice(0, 7)) v7.exec(migration);
    v7.pragma('user_version = 7');
    v7.prepare(
      "INSERT INTO workflow_runs (id, workflow, params, state, created_at, updated_at) VALUES ('r-1', 'invoices', ?, 'running', ?, ?)",
    ).run(JSON.stringify(run('r-1').params), at(0), at(0));
    const older = output(fp('a'), { createdAt: at(1) });
    const newer = output(fp('b'), { createdAt: at(5), value: { net: 2 } });
    const insertOutput = v7.prepare('INSERT INTO step_outputs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    for (const out of [older, newer]) {
      const { durationMs, inputTokens, outputTokens } = out.measured;
      insertOutput.run(
        out.fingerprint,
        out.workflow,
        out.step,
        out.item,
        out.digest,
        JSON.stringify(out.output),
        JSON.stringify(out.components),
        durationMs,
        inputTokens ?? null,
        outputTokens ?? null,
        out.createdAt,
      );
    }
    const redone: RunItem = { ...(done('r-1', 'extract', 'c-1', fp('b')) as DoneItem), replaced: fp('a') };
    const broken = failed('r-1', 'review', 'c-1', fp('c')) as Extract<RunItem, { status: 'failed' }>;
    const insertItem = v7.prepare('INSERT INTO run_items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    insertItem.run('r-1', 'extract', 'c-1', 'done', fp('b'), digestFor(fp('b')), 0, null, 1, at(2), fp('a'));
    insertItem.run('r-1', 'review', 'c-1', 'failed', fp('c'), null, null, broken.error, 3, at(3), null);
    v7.close();

    const store = openSqliteResumeStore(file);
    try {
      expect(await store.getOutputs([fp('a'), fp('b')])).toStrictEqual(
        new Map([
          [fp('a'), older],
          [fp('b'), newer],
        ]),
      );
      expect(await store.latestOutputs('invoices', 'extract')).toStrictEqual(new Map([['c-1', newer]]));
      expect(await store.listRunItems('r-1')).toStrictEqual([redone, broken]);
    } finally {
      await store.close();
    }
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(
        raw.prepare('SELECT DISTINCT typeof(fingerprint) AS type, length(digest) AS bytes FROM step_outputs').all(),
      ).toEqual([{ type: 'blob', bytes: 32 }]);
      expect(raw.prepare("SELECT typeof(replaced) AS type FROM run_items WHERE step = 'extract'").get()).toEqual({
        type: 'blob',
      });
    } finally {
      raw.close();
    }
  });

  it('upgrades a database from before run owners: its runs read back as they were, with no owner', async () => {
    const file = newFile();
    mkdirSync(dirname(file), { recursive: true });
    const owners = MIGRATIONS.findIndex((migration) => migration.includes('owner_pid'));
    const before = new Database(file);
    for (const migration of MIGRATIONS.slice(0, owners)) before.exec(migration);
    before.pragma(`user_version = ${owners}`);
    before
      .prepare(
        "INSERT INTO workflow_runs (id, workflow, params, state, created_at, updated_at) VALUES ('r-1', 'invoices', ?, 'running', ?, ?)",
      )
      .run(JSON.stringify(run('r-1').params), at(0), at(0));
    before.close();

    const store = openSqliteResumeStore(file);
    try {
      expect(await store.getRun('r-1')).toStrictEqual(run('r-1'));
      await store.updateRun('r-1', { owner: OWNER, updatedAt: at(1) });
      expect(await store.getRun('r-1')).toStrictEqual({ ...run('r-1'), owner: OWNER, updatedAt: at(1) });
    } finally {
      await store.close();
    }
  });

  it('refuses rows that break the record rules, whoever writes them', async () => {
    const file = newFile();
    await openSqliteResumeStore(file).close();
    const raw = new Database(file);
    try {
      const insertRun = raw.prepare(
        "INSERT INTO workflow_runs (id, workflow, params, state, message, created_at, updated_at) VALUES (?, 'wf', ?, ?, NULL, 't', 't')",
      );
      expect(() => insertRun.run('r-1', '{}', 'paused')).toThrow(/CHECK/);
      expect(() => insertRun.run('r-2', '[1]', 'running')).toThrow(/CHECK/);
      expect(() => insertRun.run('r-3', '{"month":', 'running')).toThrow(/CHECK/);
      insertRun.run('r-4', '{}', 'running');
      // A run's owner is whole or absent.
      const setOwner = raw.prepare(
        "UPDATE workflow_runs SET owner_pid = ?, owner_host = 'h', owner_start_time = '1', owner_since = ? WHERE id = 'r-4'",
      );
      expect(() => setOwner.run(4242, null)).toThrow(/CHECK/);
      expect(() => setOwner.run(0, 't')).toThrow(/CHECK/);
      setOwner.run(4242, 't');
      // Hashes are their 32 bytes: hex text, or bytes of another length, are refused.
      const hash = Buffer.alloc(32, 0xab);
      const insertOutput = raw.prepare(
        "INSERT INTO step_outputs VALUES (?, 'wf', 's', 'i', ?, '{}', '{}', 1, NULL, NULL, 't')",
      );
      expect(() => insertOutput.run(fp('a'), hash)).toThrow(/BLOB/);
      expect(() => insertOutput.run(Buffer.alloc(31), hash)).toThrow(/CHECK/);
      expect(() => insertOutput.run(hash, Buffer.alloc(33))).toThrow(/CHECK/);
      expect(() => insertOutput.run(null, hash)).toThrow(/NOT NULL/);
      const insertItem = raw.prepare("INSERT INTO run_items VALUES (?, 's', 'i', ?, ?, ?, ?, ?, 1, 't', ?)");
      expect(() => insertItem.run('r-4', 'done', hash, null, 0, null, null)).toThrow(/CHECK/);
      expect(() => insertItem.run('r-4', 'done', hash, hash, 0, 'an error', null)).toThrow(/CHECK/);
      expect(() => insertItem.run('r-4', 'failed', hash, hash, null, 'an error', null)).toThrow(/CHECK/);
      expect(() => insertItem.run('r-4', 'skipped', hash, null, null, 'an error', null)).toThrow(/CHECK/);
      expect(() => insertItem.run('r-4', 'failed', hash, null, null, 'an error', hash)).toThrow(/CHECK/);
      expect(() => insertItem.run('r-4', 'done', hash, hash, 0, null, Buffer.alloc(8))).toThrow(/CHECK/);
      expect(() => insertItem.run('r-4', 'failed', Buffer.alloc(16), null, null, 'an error', null)).toThrow(/CHECK/);
      raw.pragma('foreign_keys = ON');
      expect(() => insertItem.run('no-such-run', 'failed', hash, null, null, 'an error', null)).toThrow(/FOREIGN KEY/);
      insertItem.run('r-4', 'failed', hash, null, null, 'an error', null);
      expect(raw.prepare('SELECT count(*) AS n FROM run_items').get()).toEqual({ n: 1 });
    } finally {
      raw.close();
    }
  });

  it('shares one database file with an open Store, each on its own connection', async () => {
    const file = newFile();
    const store = openSqliteStore(file);
    const resume = openSqliteResumeStore(file);
    try {
      await store.insertTask({ id: 't-1', name: 'demo', definition: {}, createdAt: at(0) });
      await resume.createRun(run('r-1'));
      await resume.commitItems([computed('r-1', output(fp('a')))]);
      expect(await store.getTask('t-1')).toStrictEqual({ id: 't-1', name: 'demo', definition: {}, createdAt: at(0) });
      expect(await resume.listRunItems('r-1')).toStrictEqual([done('r-1', 'extract', 'c-1', fp('a'))]);
    } finally {
      await resume.close();
      await store.close();
    }
  });

  it('rolls back a commit the database refuses midway, after earlier rows were written', async () => {
    const store = openSqliteResumeStore(newFile());
    try {
      await store.createRun(run('r-1'));
      // STRICT refuses a REAL in the INTEGER column `tries`: the third item fails after two were written.
      const refused = { ...done('r-1', 'extract', 'c-3', fp('c')), tries: 1.5 } as RunItem;
      await expect(
        store.commitItems([
          computed('r-1', output(fp('a'), { item: 'c-1' })),
          computed('r-1', output(fp('b'), { item: 'c-2' })),
          { item: refused, output: output(fp('c'), { item: 'c-3' }) },
        ]),
      ).rejects.toThrow(/INTEGER/);
      expect((await store.getOutputs([fp('a'), fp('b'), fp('c')])).size).toBe(0);
      expect(await store.listRunItems('r-1')).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
