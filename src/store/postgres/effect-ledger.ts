/**
 * The PostgreSQL EffectLedger: the `effects` table of migration 3 (migrations.ts), in the same
 * PostgreSQL schema as the Store and the ResumeStore, so the workflow's item-steps may run on several
 * machines and each effect is still performed at most once. Each open ledger is a holder: it holds an
 * advisory lock on a connection of its own while it is open (holder-lock.ts), and a claim whose
 * holder's lock is free is reported `unknown`. Its calls run on its own bounded pool (pool.ts), whose
 * sessions commit durably (DURABLE_SESSION). Row mapping and transitions are shared with SQLite
 * (../effect-rows.ts, ../effect-transitions.ts).
 *
 * What SQLite gets from its single writer and lock files, this gets from PostgreSQL:
 * - claim inserts if absent (`ON CONFLICT (key) DO NOTHING`): of any number of holders claiming one
 *   key at once, in any processes, the primary key lets exactly one insert; the others get its record.
 *   The insert commits, durably, before claim resolves.
 * - reclaim, settle and resolve read the record `FOR UPDATE` and write it in one transaction: the row
 *   lock keeps every other holder out from the read to the commit, so two reclaims of one record
 *   cannot both see it free, and a settle cannot cross a takeover.
 * - A crash never leaves a false `done`: a settlement is one transaction, and a holder that dies before
 *   its COMMIT (its process killed, its connection lost) leaves the record as it was, `claimed` by a
 *   holder whose lock is now free, so it reads `unknown` to everyone: reconciled, never repeated
 *   blindly. Its lock goes with its session (holder-lock.ts), whatever killed it.
 * - A holder claims (and reclaims) only while its lock is held: each claim first checks it, so a
 *   ledger whose lock session was lost (a network cut, a server restart) refuses to claim instead of
 *   making claims everyone else reads as `unknown` from the start. Its own claims still settle: whether
 *   someone has taken them over meanwhile is decided under the row lock, as always.
 */
import type pg from 'pg';
import { z } from 'zod';
import { EXIT, HarmflowError, NotFoundError } from '../../core/errors.js';
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
import { columnValues, insertSql, positionalParameter, selectList, updateSql } from '../sql.js';
import { HolderLock, holderIsLive } from './holder-lock.js';
import { inTransaction } from './pool.js';
import { openDurableSchemaPool, type PostgresStoreOptions } from './schema-pool.js';

/**
 * openPostgresEffectLedger connects to the database at `url` (a `postgres://` URL), applies the
 * missing migrations to its schema (schema-pool.ts: shared with the Store and the ResumeStore), and
 * takes this holder's lock. Rejects when the server does not answer within the connect timeout, the
 * schema name is not a plain lowercase identifier, or commits would not be durable. The caller owns
 * the ledger and closes it, after every effect it claimed has settled.
 */
export async function openPostgresEffectLedger(url: string, options: PostgresStoreOptions = {}): Promise<EffectLedger> {
  // Durable, as SQLite's FULL for its ledger: with `off`, a server crash could drop a claim that had
  // returned, the effect having run meanwhile, and a resume would claim and perform it again.
  const { pool, schema } = await openDurableSchemaPool(url, options, 'effect ledgers');
  let lock: HolderLock | undefined;
  try {
    const holder = newExecutionId();
    lock = await HolderLock.acquire(url, holder);
    return new PostgresEffectLedger(pool, schema, holder, lock);
  } catch (error) {
    await lock?.release();
    await pool.end();
    throw error;
  }
}

/** What runs a statement: the pool (a statement of its own) or a transaction's client. */
type Queryable = Pick<pg.PoolClient, 'query'>;

/** The `live` column of a read: whether a `claimed` row's holder still holds its lock (NULL otherwise). */
const Live = z.object({ live: z.boolean().nullable() });
const Held = z.object({ held: z.boolean() });

class PostgresEffectLedger implements EffectLedger {
  readonly holder: string;
  readonly #pool: pg.Pool;
  readonly #lock: HolderLock;
  #closed: Promise<void> | undefined;
  readonly #insert: string;
  readonly #get: string;
  readonly #lockRow: string;
  readonly #update: string;
  readonly #list: string;
  readonly #held: string;

  constructor(pool: pg.Pool, schema: string, holder: string, lock: HolderLock) {
    this.#pool = pool;
    this.holder = holder;
    this.#lock = lock;
    const table = `${schema}.effects`;
    const select = `SELECT ${selectList(EFFECT_COLUMNS)},
      CASE WHEN state = 'claimed' THEN ${holderIsLive('holder')} END AS "live" FROM ${table}`;
    this.#insert = `${insertSql(table, EFFECT_COLUMNS, positionalParameter)} ON CONFLICT (key) DO NOTHING`;
    this.#get = `${select} WHERE key = $1`;
    // Under READ COMMITTED a row changed by a transaction this one waited for is read (and `live`
    // computed) again in its committed version.
    this.#lockRow = `${select} WHERE key = $1 FOR UPDATE`;
    this.#update = updateSql(table, EFFECT_COLUMNS, ['key'], positionalParameter);
    // One statement for every query: a filter left NULL matches all. `claimed` rows are read for an
    // `unknown` query too: a claimed row whose holder ended is reported unknown.
    this.#list = `${select} WHERE ($1::text IS NULL OR run = $1) AND ($2::text IS NULL OR workflow = $2)
      AND ($3::text IS NULL OR step = $3)
      AND ($4::text IS NULL OR state = $4 OR ($4 = 'unknown' AND state = 'claimed'))
      ORDER BY key`;
    this.#held = `SELECT ${holderIsLive('$1::text')} AS "held"`;
  }

  async claim(claim: EffectClaim): Promise<ClaimResult> {
    const record = claimedRecord(claim, this.holder, 1, claim.at);
    await this.#checkHeld(this.#pool);
    const { rowCount } = await this.#pool.query(this.#insert, columnValues(EFFECT_COLUMNS, effectToRow(record)));
    if (rowCount === 1) return { claimed: true, record };
    return { claimed: false, existing: await this.#read(this.#pool, this.#get, claim.key) };
  }

  async reclaim(claim: EffectClaim, seen: EffectRecord): Promise<ClaimResult> {
    checkReclaim(claim, seen);
    return inTransaction(this.#pool, async (client) => {
      const answer = reclaimed(await this.#read(client, this.#lockRow, claim.key), claim, seen, this.holder);
      if (answer.claimed) {
        await this.#checkHeld(client);
        await this.#write(client, answer.record);
      }
      return answer;
    });
  }

  async settle(key: string, settlement: Settlement, at: string, by?: string): Promise<EffectRecord> {
    return inTransaction(this.#pool, async (client) => {
      const current = await this.#read(client, this.#lockRow, key);
      return this.#write(client, settled(current, this.holder, settlement, at, by));
    });
  }

  async resolve(
    key: string,
    settlement: Exclude<Settlement, { state: 'unknown' }>,
    by: string,
    at: string,
  ): Promise<EffectRecord> {
    return inTransaction(this.#pool, async (client) => {
      const current = await this.#read(client, this.#lockRow, key);
      return this.#write(client, resolved(current, settlement, by, at));
    });
  }

  async get(key: string): Promise<EffectRecord | undefined> {
    const [row] = (await this.#pool.query(this.#get, [key])).rows;
    return row === undefined ? undefined : this.#report(row);
  }

  async list(query: EffectQuery = {}): Promise<EffectRecord[]> {
    const { rows } = await this.#pool.query(this.#list, [
      query.run ?? null,
      query.workflow ?? null,
      query.step ?? null,
      query.state ?? null,
    ]);
    const records = rows.map((row) => this.#report(row));
    return query.state === undefined ? records : records.filter((record) => record.state === query.state);
  }

  /**
   * Ends the pool (waiting for the calls under way), then the lock: this holder has ended, and its
   * unsettled claims read `unknown`. Idempotent; calls after it reject (pg's pool refuses them).
   */
  async close(): Promise<void> {
    this.#closed ??= this.#pool.end().finally(() => this.#lock.release());
    await this.#closed;
  }

  /** The record with this key as reported, read by `statement`; NotFoundError when there is none. */
  async #read(queryable: Queryable, statement: string, key: string): Promise<EffectRecord> {
    const [row] = (await queryable.query(statement, [key])).rows;
    if (row === undefined) throw new NotFoundError(`no effect ${key}`);
    return this.#report(row);
  }

  /** A read row as reported: a claim whose holder has ended is `unknown`; this holder's own are live. */
  #report(row: unknown): EffectRecord {
    const { live } = Live.parse(row);
    return reported(effectFromRow(row), (holder) => holder === this.holder || live === true);
  }

  /** Rejects when this holder's lock is not held any more: its session ended, so it must not claim. */
  async #checkHeld(queryable: Queryable): Promise<void> {
    const [row] = (await queryable.query(this.#held, [this.holder])).rows;
    if (!Held.parse(row).held) {
      throw new HarmflowError(
        `effect ledger holder ${this.holder} lost its lock (its PostgreSQL session ended): it claims nothing more`,
        EXIT.internal,
      );
    }
  }

  /** Writes `record` over the stored one, and returns it. */
  async #write(client: Queryable, record: EffectRecord): Promise<EffectRecord> {
    await client.query(this.#update, columnValues(EFFECT_COLUMNS, effectToRow(record)));
    return record;
  }
}
