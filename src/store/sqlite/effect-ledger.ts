/**
 * The SQLite EffectLedger: the `effects` table of migration 3, in the same database file as the Store
 * and the ResumeStore (`HARMFLOW_HOME/harmflow.db`) but on a connection of its own, run with
 * `synchronous = FULL`. Each open ledger is a holder: it holds a lock file (holder-lock.ts) in
 * `effect-holders/` beside the database while it is open, and a claim whose holder's lock is free is
 * reported `unknown`. With `:memory:`, the fake the tests use: no other process can see the database,
 * so a claim by any other holder is `unknown`.
 *
 * better-sqlite3 is synchronous: each method does its work at once and returns a settled Promise, so
 * a claim is committed (and synced) before its Promise resolves. Transitions that read before they
 * write (reclaim, settle, resolve) run in IMMEDIATE transactions, which take the write lock first, so
 * a holder in another process cannot slip in between.
 */
import { dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { NotFoundError } from '../../core/errors.js';
import { newExecutionId } from '../../core/ids.js';
import type {
  ClaimResult,
  EffectClaim,
  EffectLedger,
  EffectQuery,
  EffectRecord,
  Settlement,
} from '../effect-ledger.js';
import { EFFECT_COLUMNS, effectFromRow, effectToRow } from '../effect-rows.js';
import { checkReclaim, claimedRecord, reclaimed, reported, resolved, settled } from '../effect-transitions.js';
import { insertSql, selectList, updateSql } from '../sql.js';
import { HolderLock, holderIsLive } from './holder-lock.js';
import { openDatabase } from './open.js';

/** The directory of the holders' lock files, beside the database. */
export const HOLDERS_DIR = 'effect-holders';

/**
 * `synchronous = FULL` on the ledger's connection, where the ResumeStore's runs NORMAL. Under WAL,
 * NORMAL appends a commit to the WAL without an fsync (the WAL is synced at checkpoints), so a power
 * loss or an OS crash may drop the last commits — for step outputs that costs recomputing them. For the
 * ledger it would cost a statement sent twice: the effect ran after its claim "committed", the claim
 * vanished with the power, and the resume claims the key anew and sends again. FULL syncs the WAL at
 * every commit, so a claim that returned is on disk before the effect runs; a `done` too, so a settled
 * effect is not reported `unknown` after a power loss. The price is one fsync per claim and per
 * settlement, paid on this connection only (the pragma is per connection): the same file's other
 * connections keep their own level. Measured on the 2-core dev machine (ext4), one-row commits:
 * ≈5,000 a second under FULL against ≈60,000 under NORMAL — 0.2 ms a claim, 0.8 s for 2,000
 * statements claimed and settled, nothing beside sending them.
 */
const SYNCHRONOUS = 'FULL';

/**
 * openSqliteEffectLedger opens (creating it, its directory and its tables if needed) the database at
 * `file`, or a private in-memory one for `:memory:` (open.ts: WAL, the busy timeout, foreign keys,
 * missing migrations), with `synchronous = FULL`, and takes this holder's lock. The caller owns the
 * ledger and closes it, after every effect it claimed has settled.
 */
export function openSqliteEffectLedger(file: string): EffectLedger {
  const memory = file === ':memory:';
  const db = openDatabase(file, SYNCHRONOUS);
  let lock: HolderLock | undefined;
  try {
    const holder = newExecutionId();
    const holders = memory ? undefined : join(dirname(file), HOLDERS_DIR);
    if (holders !== undefined) lock = HolderLock.acquire(holders, holder);
    return new SqliteEffectLedger(db, holder, holders, lock);
  } catch (error) {
    lock?.release();
    db.close();
    throw error;
  }
}

class SqliteEffectLedger implements EffectLedger {
  readonly holder: string;
  readonly #db: Database.Database;
  /** The lock files' directory; undefined in memory, where every other holder has ended. */
  readonly #holders: string | undefined;
  readonly #lock: HolderLock | undefined;
  /** Holders found ended: they never come back, so they are not checked twice. */
  readonly #ended = new Set<string>();
  readonly #insert: Database.Statement;
  readonly #get: Database.Statement;
  readonly #update: Database.Statement;
  readonly #list: Database.Statement;
  readonly #reclaim: (claim: EffectClaim, seen: EffectRecord) => ClaimResult;
  readonly #settle: (key: string, settlement: Settlement, at: string, by: string | undefined) => EffectRecord;
  readonly #resolve: (key: string, settlement: Settlement, by: string, at: string) => EffectRecord;

  constructor(db: Database.Database, holder: string, holders: string | undefined, lock: HolderLock | undefined) {
    this.#db = db;
    this.holder = holder;
    this.#holders = holders;
    this.#lock = lock;
    const select = `SELECT ${selectList(EFFECT_COLUMNS)} FROM effects`;
    this.#insert = db.prepare(`${insertSql('effects', EFFECT_COLUMNS)} ON CONFLICT (key) DO NOTHING`);
    this.#get = db.prepare(`${select} WHERE key = ?`);
    this.#update = db.prepare(updateSql('effects', EFFECT_COLUMNS, ['key']));
    // One statement for every query: a filter left NULL matches all. `claimed` rows are read for an
    // `unknown` query too: a claimed row whose holder ended is reported unknown.
    this.#list = db.prepare(
      `${select} WHERE (@run IS NULL OR run = @run)
         AND (@workflow IS NULL OR workflow = @workflow) AND (@step IS NULL OR step = @step)
         AND (@state IS NULL OR state = @state OR (@state = 'unknown' AND state = 'claimed'))
       ORDER BY key`,
    );

    this.#reclaim = db.transaction((claim: EffectClaim, seen: EffectRecord): ClaimResult => {
      checkReclaim(claim, seen);
      const answer = reclaimed(this.#read(claim.key), claim, seen, this.holder);
      if (answer.claimed) this.#write(answer.record);
      return answer;
    }).immediate;

    this.#settle = db.transaction((key: string, settlement: Settlement, at: string, by: string | undefined) =>
      this.#write(settled(this.#read(key), this.holder, settlement, at, by)),
    ).immediate;

    this.#resolve = db.transaction((key: string, settlement: Settlement, by: string, at: string) =>
      this.#write(resolved(this.#read(key), settlement, by, at)),
    ).immediate;
  }

  async claim(claim: EffectClaim): Promise<ClaimResult> {
    const record = claimedRecord(claim, this.holder, 1, claim.at);
    if (this.#insert.run(effectToRow(record)).changes === 1) return { claimed: true, record };
    return { claimed: false, existing: this.#read(claim.key) };
  }

  async reclaim(claim: EffectClaim, seen: EffectRecord): Promise<ClaimResult> {
    return this.#reclaim(claim, seen);
  }

  async settle(key: string, settlement: Settlement, at: string, by?: string): Promise<EffectRecord> {
    return this.#settle(key, settlement, at, by);
  }

  async resolve(
    key: string,
    settlement: Exclude<Settlement, { state: 'unknown' }>,
    by: string,
    at: string,
  ): Promise<EffectRecord> {
    return this.#resolve(key, settlement, by, at);
  }

  async get(key: string): Promise<EffectRecord | undefined> {
    const row = this.#get.get(key);
    return row === undefined ? undefined : this.#report(effectFromRow(row));
  }

  async list(query: EffectQuery = {}): Promise<EffectRecord[]> {
    const rows = this.#list.all({
      run: query.run ?? null,
      state: query.state ?? null,
      workflow: query.workflow ?? null,
      step: query.step ?? null,
    });
    const records = rows.map((row) => this.#report(effectFromRow(row)));
    return query.state === undefined ? records : records.filter((record) => record.state === query.state);
  }

  async close(): Promise<void> {
    if (!this.#db.open) return;
    this.#db.close();
    this.#lock?.release();
  }

  /** The record with this key as reported; NotFoundError when there is none. */
  #read(key: string): EffectRecord {
    const row = this.#get.get(key);
    if (row === undefined) throw new NotFoundError(`no effect ${key}`);
    return this.#report(effectFromRow(row));
  }

  /** The stored record as reported: a claim whose holder has ended is `unknown`. */
  #report(stored: EffectRecord): EffectRecord {
    return reported(stored, (holder) => this.#isLive(holder));
  }

  #isLive(holder: string): boolean {
    if (holder === this.holder) return true;
    if (this.#holders === undefined || this.#ended.has(holder)) return false;
    if (holderIsLive(this.#holders, holder)) return true;
    this.#ended.add(holder);
    return false;
  }

  /** Writes `record` over the stored one, and returns it. */
  #write(record: EffectRecord): EffectRecord {
    this.#update.run(effectToRow(record));
    return record;
  }
}
