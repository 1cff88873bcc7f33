import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/core/errors.js';
import { newExecutionId } from '../../src/core/ids.js';
import type { EffectLedger } from '../../src/store/effect-ledger.js';
import { openPostgresEffectLedger } from '../../src/store/postgres/effect-ledger.js';
import { HolderLock } from '../../src/store/postgres/holder-lock.js';
import { performEffect } from '../../src/workflows/effects.js';
import { claimOf, describeEffectLedgerConformance } from './effect-ledger-conformance.js';
import {
  endSessionsNamed,
  POSTGRES_AVAILABLE,
  sessionsNamed,
  TEST_POSTGRES_URL,
  testSchemas,
  urlNamed,
} from './postgres.js';
import { at } from './resume-conformance.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(POSTGRES_AVAILABLE)('PostgreSQL effect ledger', () => {
  const schemas = testSchemas();

  describeEffectLedgerConformance('postgres', () => {
    const schema = schemas.newSchema();
    return { open: () => openPostgresEffectLedger(TEST_POSTGRES_URL, { schema }) };
  });

  /** Runs `test` with `count` ledgers (holders, each with its own pool) open on `schema`, then closes them. */
  async function withLedgers(
    schema: string,
    count: number,
    test: (ledgers: EffectLedger[]) => Promise<void>,
    url = TEST_POSTGRES_URL,
  ): Promise<void> {
    const ledgers = await Promise.all(Array.from({ length: count }, () => openPostgresEffectLedger(url, { schema })));
    try {
      await test(ledgers);
    } finally {
      await Promise.all(ledgers.map((ledger) => ledger.close()));
    }
  }

  /** A fake provider that does not dedupe: it counts how many times each key was performed. */
  function provider(): { performed: Map<string, number>; effect: (key: string) => Promise<{ sent: string }> } {
    const performed = new Map<string, number>();
    return {
      performed,
      effect: async (key) => {
        performed.set(key, (performed.get(key) ?? 0) + 1);
        await sleep(2);
        return { sent: key };
      },
    };
  }

  describe('across holders', () => {
    it('performs each effect once when four holders perform the same 25 effects at once', async () => {
      const schema = schemas.newSchema();
      await withLedgers(schema, 4, async (ledgers) => {
        const { performed, effect } = provider();
        const keys = Array.from({ length: 25 }, (_, index) => `statement:c-${index}:2026-10`);
        const outcomes = await Promise.all(
          ledgers.flatMap((ledger, index) =>
            keys.map((key) =>
              performEffect({
                ledger,
                key,
                workflow: 'statements',
                run: `r-${index}`,
                step: 'send',
                item: key,
                effect,
              }),
            ),
          ),
        );
        expect([...performed.values()]).toEqual(keys.map(() => 1));
        expect(outcomes.filter((outcome) => outcome.status === 'done' && outcome.performed)).toHaveLength(25);
        expect(outcomes.every((outcome) => outcome.status === 'done' || outcome.status === 'in-flight')).toBe(true);
        const [first] = ledgers;
        expect((await first?.list({ state: 'done' }))?.map((record) => record.key)).toEqual([...keys].sort());
      });
    });

    it('keeps a claim live while its holder runs, and ends its lock session with close', async () => {
      const schema = schemas.newSchema();
      const name = `${schema}_holder`;
      await withLedgers(schema, 1, async ([other]) => {
        const holder = await openPostgresEffectLedger(urlNamed(TEST_POSTGRES_URL, name), { schema });
        await holder.claim(claimOf('k-1'));
        // Its pool and its lock: more than one session, the lock held in one of them.
        expect(await sessionsNamed(schemas.admin, name)).toBeGreaterThan(1);
        expect(await other?.get('k-1')).toMatchObject({ state: 'claimed', holder: holder.holder });
        await holder.close();
        expect(await other?.get('k-1')).toMatchObject({ state: 'unknown', holder: holder.holder });
        await expect.poll(() => sessionsNamed(schemas.admin, name), { timeout: 2000 }).toBe(0);
      });
    });
  });

  describe('a holder that dies', () => {
    const KEY = 'statement:c-1:2026-10';

    /** What a test of a dying holder gets: the victim, a survivor beside it, and the victim's death. */
    interface Victim {
      readonly schema: string;
      /** The application_name of the victim's sessions. */
      readonly name: string;
      readonly victim: EffectLedger;
      readonly survivor: EffectLedger;
      /** Ends every session of the victim (its pool's and its lock's), as its process's death would. */
      die(): Promise<void>;
    }

    /** Runs `test` with a victim and a survivor on a new schema, each its own holder; closes both after. */
    async function withVictim(test: (victim: Victim) => Promise<void>): Promise<void> {
      const schema = schemas.newSchema();
      const name = `${schema}_victim`;
      await withLedgers(schema, 1, async ([survivor]) => {
        if (survivor === undefined) throw new Error('a ledger expected');
        const victim = await openPostgresEffectLedger(urlNamed(TEST_POSTGRES_URL, name), { schema });
        try {
          await test({ schema, name, victim, survivor, die: () => endSessionsNamed(schemas.admin, name) });
        } finally {
          await victim.close();
        }
      });
    }

    it('mid-effect leaves its claim unknown to the others, which reconcile and perform it once; its late settle and new claims are refused', async () => {
      await withVictim(async ({ victim, survivor, die }) => {
        expect((await victim.claim(claimOf(KEY))).claimed).toBe(true);
        expect(await survivor.get(KEY)).toMatchObject({ state: 'claimed', holder: victim.holder });

        // Its process dies while the effect runs: every session it had ends, its lock with them.
        await die();
        await expect.poll(async () => (await survivor.get(KEY))?.state, { timeout: 2000 }).toBe('unknown');

        const { performed, effect } = provider();
        const outcome = await performEffect({
          ledger: survivor,
          key: KEY,
          workflow: 'statements',
          run: 'r-2',
          step: 'send',
          item: 'c-1',
          effect,
          reconcile: async () => ({ notDone: true }),
        });
        expect(outcome).toMatchObject({ status: 'done', performed: true, reconciled: 'notDone' });
        expect(performed.get(KEY)).toBe(1);
        expect(await survivor.get(KEY)).toMatchObject({ state: 'done', holder: survivor.holder, claims: 2 });

        // The victim's pool connects again, but the claim is not its own any more, and it holds no lock.
        await expect(victim.settle(KEY, { state: 'done', result: 'late' }, at(5))).rejects.toBeInstanceOf(
          ConflictError,
        );
        await expect(victim.claim(claimOf('k-2'))).rejects.toThrow(/lost its lock/);
        expect(await survivor.get('k-2')).toBeUndefined();
      });
    });

    it('inside its settle transaction, before COMMIT, leaves no false done: the claim reads unknown', async () => {
      await withVictim(async ({ schema, name, victim, survivor, die }) => {
        // A trigger holds every update to `done` once the row is written, until the gate (an advisory
        // lock the test holds) opens: the victim's settle waits inside its transaction.
        await schemas.admin.query(`
          CREATE FUNCTION ${schema}.hold_settlements() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN PERFORM pg_advisory_xact_lock_shared(hashtextextended(TG_TABLE_SCHEMA, 0)); RETURN NEW; END $$;
          CREATE TRIGGER hold_settlements AFTER UPDATE ON ${schema}.effects
            FOR EACH ROW WHEN (NEW.state = 'done') EXECUTE FUNCTION ${schema}.hold_settlements()`);
        const gate = new pg.Client({ connectionString: TEST_POSTGRES_URL });
        await gate.connect();
        try {
          await gate.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [schema]);
          await victim.claim(claimOf(KEY));
          const settling = victim.settle(KEY, { state: 'done', result: { sent: KEY } }, at(1));
          settling.catch(() => {});
          const waiting = `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE application_name = $1 AND wait_event = 'advisory'`;
          await expect.poll(async () => (await schemas.admin.query(waiting, [name])).rows[0].n).toBe(1);

          await die();
          await expect(settling).rejects.toThrow();
          await gate.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [schema]);
          await expect.poll(async () => (await survivor.get(KEY))?.state, { timeout: 2000 }).toBe('unknown');
          expect(await survivor.list({ state: 'done' })).toEqual([]);
          const resolved = await survivor.resolve(KEY, { state: 'failed', error: 'not in the outbox' }, 'alice', at(2));
          expect(resolved).toMatchObject({ state: 'failed', holder: victim.holder, settledBy: 'alice' });
        } finally {
          await gate.end();
        }
      });
    });
  });

  describe('HolderLock', () => {
    it('refuses the lock of a holder id another session holds, and frees it on release', async () => {
      const holder = newExecutionId();
      const lock = await HolderLock.acquire(TEST_POSTGRES_URL, holder);
      await expect(HolderLock.acquire(TEST_POSTGRES_URL, holder)).rejects.toThrow(/held by another session/);
      await Promise.all([lock.release(), lock.release()]);
      await (await HolderLock.acquire(TEST_POSTGRES_URL, holder)).release();
    });
  });

  describe('openPostgresEffectLedger', () => {
    it('refuses sessions that would not commit durably', async () => {
      const url = new URL(TEST_POSTGRES_URL);
      url.searchParams.set('options', '-c synchronous_commit=off');
      await expect(openPostgresEffectLedger(url.toString(), { schema: schemas.newSchema() })).rejects.toThrow(
        /synchronous_commit = off/,
      );
    });

    it('refuses rows that break the record rules, whoever writes them', async () => {
      const schema = schemas.newSchema();
      await withLedgers(schema, 1, async () => {});
      const insert = `INSERT INTO ${schema}.effects VALUES ($1, 'wf', 'r', 's', 'i', $2, 'h', $3, $4, $5, $6, NULL, $7, $7)`;
      const row = (key: string, state: string, claims: number, result: string | null, reason: string | null) => [
        key,
        state,
        claims,
        result,
        null,
        reason,
        at(0),
      ];
      const { admin } = schemas;
      await expect(admin.query(insert, row('', 'claimed', 1, null, null))).rejects.toThrow(/check constraint/);
      await expect(admin.query(insert, row('k', 'sent', 1, null, null))).rejects.toThrow(/check constraint/);
      await expect(admin.query(insert, row('k', 'claimed', 0, null, null))).rejects.toThrow(/check constraint/);
      await expect(admin.query(insert, row('k', 'claimed', 1, '1', null))).rejects.toThrow(/check constraint/);
      await expect(admin.query(insert, row('k', 'done', 1, null, null))).rejects.toThrow(/check constraint/);
      await expect(admin.query(insert, row('k', 'done', 1, 'not json', null))).rejects.toThrow(/json/);
      await expect(admin.query(insert, row('k', 'unknown', 1, null, null))).rejects.toThrow(/check constraint/);
      await expect(admin.query(insert, row('k', 'claimed', 1.5, null, null))).rejects.toThrow(/integer/);
      await admin.query(insert, row('k', 'unknown', 1, null, 'timeout'));
      const counted = await admin.query(`SELECT count(*)::int AS n FROM ${schema}.effects`);
      expect(counted.rows).toEqual([{ n: 1 }]);
    });
  });
});
