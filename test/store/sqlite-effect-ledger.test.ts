import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { newExecutionId } from '../../src/core/ids.js';
import { HOLDERS_DIR, openSqliteEffectLedger } from '../../src/store/sqlite/effect-ledger.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/sqlite/migrations.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import { claimedRecord, claimOf, describeEffectLedgerConformance } from './effect-ledger-conformance.js';
import { at, run } from './resume-conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'harmflow-effect-ledger-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const newFile = () => join(dir, `${++files}`, 'harmflow.db');

describeEffectLedgerConformance('sqlite file', () => {
  const file = newFile();
  return { open: () => openSqliteEffectLedger(file) };
});

/** Writes an `effects` row claimed by `holder` straight into the database, as a crashed process left it. */
function writeClaim(file: string, key: string, holder: string): void {
  const raw = new Database(file);
  try {
    raw
      .prepare(
        "INSERT INTO effects VALUES (?, 'statements', 'r-1', 'send', 'c-1', 'claimed', ?, 1, NULL, NULL, NULL, NULL, ?, ?)",
      )
      .run(key, holder, at(0), at(0));
  } finally {
    raw.close();
  }
}

describe('openSqliteEffectLedger', () => {
  it('works in memory, where every other holder has ended', async () => {
    const ledger = openSqliteEffectLedger(':memory:');
    try {
      const claim = claimOf('k-1');
      expect(await ledger.claim(claim)).toStrictEqual({ claimed: true, record: claimedRecord(claim, ledger.holder) });
      await ledger.settle('k-1', { state: 'done', result: 'sent' }, at(1));
      expect(await ledger.list({ state: 'done' })).toHaveLength(1);
    } finally {
      await ledger.close();
    }
  });

  it('holds a lock file while open and deletes it on close', async () => {
    const file = newFile();
    const ledger = openSqliteEffectLedger(file);
    const lock = join(dirname(file), HOLDERS_DIR, `${ledger.holder}.lock`);
    expect(existsSync(lock)).toBe(true);
    await ledger.close();
    expect(existsSync(lock)).toBe(false);
  });

  it('reports unknown a claim whose holder left an unlocked lock file (a killed process), and deletes the file', async () => {
    const file = newFile();
    const ledger = openSqliteEffectLedger(file);
    try {
      const killed = newExecutionId();
      const lock = join(dirname(file), HOLDERS_DIR, `${killed}.lock`);
      writeFileSync(lock, '');
      writeClaim(file, 'k-killed', killed);
      const read = await ledger.get('k-killed');
      expect(read).toMatchObject({ state: 'unknown', holder: killed });
      expect(existsSync(lock)).toBe(false);
      expect(await ledger.get('k-killed')).toStrictEqual(read);
    } finally {
      await ledger.close();
    }
  });

  it('reports unknown a claim whose holder has no lock file, or is not a HarmFlow holder id', async () => {
    const file = newFile();
    const ledger = openSqliteEffectLedger(file);
    try {
      writeClaim(file, 'k-gone', newExecutionId());
      writeClaim(file, 'k-odd', '../../etc/passwd');
      expect((await ledger.list({ state: 'unknown' })).map((record) => record.key)).toEqual(['k-gone', 'k-odd']);
      expect(readdirSync(join(dirname(file), HOLDERS_DIR))).toEqual([`${ledger.holder}.lock`]);
    } finally {
      await ledger.close();
    }
  });

  it('upgrades a database of schema version 2 and keeps its workflow runs', async () => {
    const file = newFile();
    const resume = openSqliteResumeStore(file);
    await resume.createRun(run('r-1'));
    await resume.close();
    const v2 = new Database(file);
    v2.exec(
      'DROP TABLE run_spend; DROP TABLE submit_keys; DROP TABLE quotas; DROP TABLE effects; DROP TABLE invalidations; ALTER TABLE workflow_runs DROP COLUMN module; ALTER TABLE run_items DROP COLUMN replaced; ALTER TABLE executions DROP COLUMN pull_request_url; ALTER TABLE executions DROP COLUMN turn_count',
    );
    v2.pragma('user_version = 2');
    v2.close();

    const ledger = openSqliteEffectLedger(file);
    await ledger.claim(claimOf('k-1'));
    await ledger.close();
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
      expect(raw.prepare('SELECT id FROM workflow_runs').all()).toEqual([{ id: 'r-1' }]);
      expect(raw.prepare('SELECT key, state FROM effects').all()).toEqual([{ key: 'k-1', state: 'claimed' }]);
    } finally {
      raw.close();
    }
  });

  it('shares one database file with an open ResumeStore, each on its own connection', async () => {
    const file = newFile();
    const resume = openSqliteResumeStore(file);
    const ledger = openSqliteEffectLedger(file);
    try {
      await resume.createRun(run('r-1'));
      await ledger.claim(claimOf('k-1'));
      await ledger.settle('k-1', { state: 'done', result: 1 }, at(1));
      expect(await resume.getRun('r-1')).toStrictEqual(run('r-1'));
      expect(await ledger.get('k-1')).toMatchObject({ state: 'done', result: 1 });
    } finally {
      await ledger.close();
      await resume.close();
    }
  });

  it('refuses rows that break the record rules, whoever writes them', async () => {
    const file = newFile();
    await openSqliteEffectLedger(file).close();
    const raw = new Database(file);
    try {
      const insert = raw.prepare(
        "INSERT INTO effects VALUES (?, 'wf', 'r', 's', 'i', ?, 'h', ?, ?, ?, ?, NULL, 't', 't')",
      );
      expect(() => insert.run('', 'claimed', 1, null, null, null)).toThrow(/CHECK/);
      expect(() => insert.run('k', 'sent', 1, null, null, null)).toThrow(/CHECK/);
      expect(() => insert.run('k', 'claimed', 0, null, null, null)).toThrow(/CHECK/);
      expect(() => insert.run('k', 'claimed', 1, '1', null, null)).toThrow(/CHECK/);
      expect(() => insert.run('k', 'done', 1, null, null, null)).toThrow(/CHECK/);
      expect(() => insert.run('k', 'done', 1, 'not json', null, null)).toThrow(/CHECK/);
      expect(() => insert.run('k', 'failed', 1, null, null, 'why')).toThrow(/CHECK/);
      expect(() => insert.run('k', 'unknown', 1, null, null, null)).toThrow(/CHECK/);
      expect(() => insert.run('k', 'claimed', 1.5, null, null, null)).toThrow(/INTEGER/);
      insert.run('k', 'unknown', 1, null, null, 'timeout');
      expect(raw.prepare('SELECT count(*) AS n FROM effects').get()).toEqual({ n: 1 });
    } finally {
      raw.close();
    }
  });
});
