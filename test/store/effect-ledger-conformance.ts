/**
 * The EffectLedger conformance suite: every adapter runs it (sqlite-effect-ledger.test.ts,
 * postgres-effect-ledger.test.ts). `storage` makes a new, empty storage per test; its `open` may be
 * called several times, each call a new ledger — a new holder — over that same storage. The suite
 * closes every ledger it opens (closing one is how a test ends a holder).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../src/core/errors.js';
import type { EffectClaim, EffectLedger, EffectRecord } from '../../src/store/effect-ledger.js';
import type { Json } from '../../src/store/resume-store.js';
import { at } from './resume-conformance.js';

export interface LedgerStorage {
  open(): EffectLedger | Promise<EffectLedger>;
}

/** A claim of `key` by run `r-1`, step `send`, item `c-1` unless told, at minute 0 unless told. */
export function claimOf(key: string, fields: Partial<Omit<EffectClaim, 'key'>> = {}): EffectClaim {
  return { key, workflow: 'statements', run: 'r-1', step: 'send', item: 'c-1', at: at(0), ...fields };
}

/** The record a first claim by `holder` makes. */
export function claimedRecord(claim: EffectClaim, holder: string): EffectRecord {
  return {
    key: claim.key,
    workflow: claim.workflow,
    run: claim.run,
    step: claim.step,
    item: claim.item,
    holder,
    claims: 1,
    createdAt: claim.at,
    updatedAt: claim.at,
    state: 'claimed',
  };
}

const KEY = 'statement:c-1:2026-10';

export function describeEffectLedgerConformance(
  name: string,
  storage: () => LedgerStorage | Promise<LedgerStorage>,
): void {
  describe(`EffectLedger conformance: ${name}`, () => {
    let opened: EffectLedger[];
    let source: LedgerStorage;
    let ledger: EffectLedger;

    const open = async (): Promise<EffectLedger> => {
      const next = await source.open();
      opened.push(next);
      return next;
    };

    /** Claims KEY with a ledger that then closes: a claim whose holder ended. */
    const orphan = async (claim = claimOf(KEY)): Promise<string> => {
      const gone = await open();
      expect((await gone.claim(claim)).claimed).toBe(true);
      await gone.close();
      return gone.holder;
    };

    beforeEach(async () => {
      opened = [];
      source = await storage();
      ledger = await open();
    });

    afterEach(async () => {
      for (const each of opened) await each.close();
    });

    describe('claim', () => {
      it('claims a new key: its record has only the required fields, held by this ledger', async () => {
        const claim = claimOf(KEY);
        const answer = await ledger.claim(claim);
        expect(answer).toStrictEqual({ claimed: true, record: claimedRecord(claim, ledger.holder) });
        const read = await ledger.get(KEY);
        expect(read).toStrictEqual(claimedRecord(claim, ledger.holder));
        expect(Object.keys(read ?? {}).sort()).toEqual(Object.keys(claimedRecord(claim, 'h')).sort());
      });

      it('gives a distinct holder id to each ledger', async () => {
        const other = await open();
        expect(other.holder).not.toBe(ledger.holder);
        expect(other.holder).not.toBe('');
      });

      it('does not claim a key twice, and leaves the record as it was', async () => {
        const first = claimOf(KEY);
        await ledger.claim(first);
        const again = await ledger.claim(claimOf(KEY, { run: 'r-2', at: at(5) }));
        expect(again).toStrictEqual({ claimed: false, existing: claimedRecord(first, ledger.holder) });
        expect(await ledger.get(KEY)).toStrictEqual(claimedRecord(first, ledger.holder));
      });

      it('reports another live holder’s claim as claimed by it', async () => {
        const other = await open();
        await other.claim(claimOf(KEY));
        const answer = await ledger.claim(claimOf(KEY, { run: 'r-2' }));
        expect(answer).toStrictEqual({ claimed: false, existing: claimedRecord(claimOf(KEY), other.holder) });
      });

      it('reports a claim whose holder ended as unknown, keeping its fields', async () => {
        const holder = await orphan();
        const answer = await ledger.claim(claimOf(KEY, { run: 'r-2' }));
        expect(answer.claimed).toBe(false);
        const existing = answer.claimed ? undefined : answer.existing;
        expect(existing).toMatchObject({ ...claimedRecord(claimOf(KEY), holder), state: 'unknown' });
        expect(existing?.state === 'unknown' && existing.reason).toContain(holder);
        expect(await ledger.get(KEY)).toStrictEqual(existing);
      });

      it('claims each key once when two holders race for the same 50 keys', async () => {
        const other = await open();
        const keys = Array.from({ length: 50 }, (_, index) => `ticket:${index}`);
        const answers = await Promise.all(
          keys.flatMap((key) => [ledger.claim(claimOf(key)), other.claim(claimOf(key, { run: 'r-2' }))]),
        );
        expect(answers.filter((answer) => answer.claimed)).toHaveLength(50);
        const holders = await Promise.all(keys.map(async (key) => (await ledger.get(key))?.holder));
        for (const [index, key] of keys.entries()) {
          const winner = answers[index * 2]?.claimed ? ledger.holder : other.holder;
          expect(holders[index], key).toBe(winner);
        }
      });
    });

    describe('settle', () => {
      beforeEach(async () => {
        await ledger.claim(claimOf(KEY));
      });

      it('records done with its result, failed with its error, unknown with its reason', async () => {
        const base = claimedRecord(claimOf(KEY), ledger.holder);
        const done = await ledger.settle(KEY, { state: 'done', result: { messageId: 'm-1' } }, at(1));
        const expected = { ...base, state: 'done', result: { messageId: 'm-1' }, updatedAt: at(1) };
        expect(done).toStrictEqual(expected);
        expect(await ledger.get(KEY)).toStrictEqual(expected);

        await ledger.claim(claimOf('k-failed'));
        await ledger.settle('k-failed', { state: 'failed', error: 'HTTP 400: invalid address' }, at(2));
        expect(await ledger.get('k-failed')).toStrictEqual({
          ...claimedRecord(claimOf('k-failed'), ledger.holder),
          state: 'failed',
          error: 'HTTP 400: invalid address',
          updatedAt: at(2),
        });

        await ledger.claim(claimOf('k-unknown'));
        await ledger.settle('k-unknown', { state: 'unknown', reason: 'ECONNRESET after sending' }, at(3));
        expect(await ledger.get('k-unknown')).toStrictEqual({
          ...claimedRecord(claimOf('k-unknown'), ledger.holder),
          state: 'unknown',
          reason: 'ECONNRESET after sending',
          updatedAt: at(3),
        });
      });

      it('keeps any JSON value as a result', async () => {
        const values: Json[] = [null, 0, -1.5e-7, false, '', 'é "q" \n', [], {}, [1, [2, { deep: [null] }]]];
        for (const [index, result] of values.entries()) {
          await ledger.claim(claimOf(`k-${index}`));
          await ledger.settle(`k-${index}`, { state: 'done', result }, at(1));
        }
        const read = await Promise.all(values.map((_, index) => ledger.get(`k-${index}`)));
        expect(read.map((record) => record?.state === 'done' && record.result)).toStrictEqual(values);
      });

      it('names who settled it when told', async () => {
        const read = await ledger.settle(KEY, { state: 'done', result: 'seen in the outbox' }, at(1), 'reconcile');
        expect(read).toMatchObject({ state: 'done', settledBy: 'reconcile' });
        expect(await ledger.get(KEY)).toStrictEqual(read);
      });

      it('refuses what this holder does not hold: settled, another’s, missing', async () => {
        await ledger.settle(KEY, { state: 'done', result: 1 }, at(1));
        await expect(ledger.settle(KEY, { state: 'failed', error: 'x' }, at(2))).rejects.toBeInstanceOf(ConflictError);
        const other = await open();
        await other.claim(claimOf('k-other'));
        await expect(ledger.settle('k-other', { state: 'done', result: 1 }, at(2))).rejects.toBeInstanceOf(
          ConflictError,
        );
        await expect(ledger.settle('k-none', { state: 'done', result: 1 }, at(2))).rejects.toBeInstanceOf(
          NotFoundError,
        );
        expect(await ledger.get(KEY)).toMatchObject({ state: 'done', result: 1, updatedAt: at(1) });
        expect(await ledger.get('k-other')).toStrictEqual(claimedRecord(claimOf('k-other'), other.holder));
        expect(await ledger.get('k-none')).toBeUndefined();
      });

      it('refuses a claim this holder made once its holder is taken over', async () => {
        await ledger.settle(KEY, { state: 'unknown', reason: 'timeout' }, at(1));
        const other = await open();
        const seen = await ledger.get(KEY);
        expect((await other.reclaim(claimOf(KEY, { at: at(2) }), seen as EffectRecord)).claimed).toBe(true);
        await expect(ledger.settle(KEY, { state: 'done', result: 1 }, at(3))).rejects.toBeInstanceOf(ConflictError);
      });
    });

    describe('reclaim', () => {
      it('takes over a claim whose holder ended: held here, one more claim, the new run', async () => {
        const gone = await orphan();
        const seen = (await ledger.get(KEY)) as EffectRecord;
        const claim = claimOf(KEY, { run: 'r-2', item: 'c-1b', at: at(7) });
        const answer = await ledger.reclaim(claim, seen);
        const expected: EffectRecord = {
          ...claimedRecord(claim, ledger.holder),
          claims: 2,
          createdAt: at(0),
          updatedAt: at(7),
        };
        expect(answer).toStrictEqual({ claimed: true, record: expected });
        expect(await ledger.get(KEY)).toStrictEqual(expected);
        expect(gone).not.toBe(ledger.holder);
      });

      it('takes over a stored unknown and a failed one, clearing the reason, error and settledBy', async () => {
        await ledger.claim(claimOf(KEY));
        await ledger.settle(KEY, { state: 'unknown', reason: 'timeout' }, at(1));
        await ledger.claim(claimOf('k-failed'));
        await ledger.settle('k-failed', { state: 'failed', error: 'ECONNREFUSED' }, at(1), 'reconcile');
        const other = await open();
        for (const key of [KEY, 'k-failed']) {
          const answer = await other.reclaim(claimOf(key, { at: at(4) }), (await other.get(key)) as EffectRecord);
          const expected = { ...claimedRecord(claimOf(key), other.holder), claims: 2, updatedAt: at(4) };
          expect(answer).toStrictEqual({ claimed: true, record: expected });
          expect(await other.get(key)).toStrictEqual(expected);
        }
      });

      it('refuses a done one and a live claim, returning them as they are', async () => {
        await ledger.claim(claimOf(KEY));
        const live = (await ledger.get(KEY)) as EffectRecord;
        const other = await open();
        expect(await other.reclaim(claimOf(KEY), live)).toStrictEqual({ claimed: false, existing: live });
        await ledger.claim(claimOf('k-done'));
        const done = await ledger.settle('k-done', { state: 'done', result: 1 }, at(1));
        expect(await other.reclaim(claimOf('k-done'), done)).toStrictEqual({ claimed: false, existing: done });
        expect(await ledger.reclaim(claimOf('k-done'), done)).toStrictEqual({ claimed: false, existing: done });
      });

      it('refuses a record that changed since it was seen', async () => {
        await orphan();
        const seen = (await ledger.get(KEY)) as EffectRecord;
        const first = await open();
        const taken = await first.reclaim(claimOf(KEY, { at: at(2) }), seen);
        expect(taken.claimed).toBe(true);
        await first.settle(KEY, { state: 'unknown', reason: 'timeout' }, at(3));
        // Unknown again, as when `seen` was read, but claimed once more since: `seen` is stale.
        const late = await ledger.reclaim(claimOf(KEY, { at: at(4) }), seen);
        expect(late.claimed).toBe(false);
        expect(late.claimed ? undefined : late.existing).toMatchObject({ state: 'unknown', claims: 2 });
      });

      it('lets only one of two holders racing for the same record take it', async () => {
        await orphan();
        const seen = (await ledger.get(KEY)) as EffectRecord;
        const other = await open();
        const answers = await Promise.all([
          ledger.reclaim(claimOf(KEY, { run: 'r-a' }), seen),
          other.reclaim(claimOf(KEY, { run: 'r-b' }), seen),
        ]);
        expect(answers.filter((answer) => answer.claimed)).toHaveLength(1);
        expect(await ledger.get(KEY)).toMatchObject({ state: 'claimed', claims: 2 });
      });

      it('rejects with NotFoundError for a key never claimed', async () => {
        await ledger.claim(claimOf(KEY));
        await ledger.settle(KEY, { state: 'failed', error: 'refused' }, at(1));
        const seen = (await ledger.get(KEY)) as EffectRecord;
        await expect(ledger.reclaim(claimOf('k-none'), { ...seen, key: 'k-none' })).rejects.toBeInstanceOf(
          NotFoundError,
        );
      });
    });

    describe('resolve', () => {
      it('settles a claim whose holder ended, and a stored unknown, naming who did', async () => {
        const holder = await orphan();
        const done = await ledger.resolve(KEY, { state: 'done', result: { checked: 'mail log' } }, 'alice', at(9));
        const expected: EffectRecord = {
          ...claimedRecord(claimOf(KEY), holder),
          state: 'done',
          result: { checked: 'mail log' },
          settledBy: 'alice',
          updatedAt: at(9),
        };
        expect(done).toStrictEqual(expected);
        expect(await ledger.get(KEY)).toStrictEqual(expected);

        await ledger.claim(claimOf('k-2'));
        await ledger.settle('k-2', { state: 'unknown', reason: 'timeout' }, at(1));
        await ledger.resolve('k-2', { state: 'failed', error: 'not in the mail log' }, 'bob', at(9));
        expect(await ledger.get('k-2')).toMatchObject({
          state: 'failed',
          error: 'not in the mail log',
          settledBy: 'bob',
        });
      });

      it('settles a failed one as done', async () => {
        await ledger.claim(claimOf(KEY));
        await ledger.settle(KEY, { state: 'failed', error: 'HTTP 400' }, at(1));
        await ledger.resolve(KEY, { state: 'done', result: 'sent by hand' }, 'alice', at(2));
        expect(await ledger.get(KEY)).toMatchObject({ state: 'done', result: 'sent by hand', settledBy: 'alice' });
      });

      it('refuses a done one, a live claim, and a key never claimed', async () => {
        await ledger.claim(claimOf(KEY));
        await ledger.claim(claimOf('k-done'));
        await ledger.settle('k-done', { state: 'done', result: 1 }, at(1));
        const person = await open();
        await expect(person.resolve(KEY, { state: 'done', result: 1 }, 'alice', at(2))).rejects.toBeInstanceOf(
          ConflictError,
        );
        await expect(person.resolve('k-done', { state: 'failed', error: 'x' }, 'alice', at(2))).rejects.toBeInstanceOf(
          ConflictError,
        );
        await expect(person.resolve('k-none', { state: 'done', result: 1 }, 'alice', at(2))).rejects.toBeInstanceOf(
          NotFoundError,
        );
        expect(await person.get(KEY)).toStrictEqual(claimedRecord(claimOf(KEY), ledger.holder));
        expect(await person.get('k-done')).toMatchObject({ state: 'done', result: 1 });
      });
    });

    describe('get and list', () => {
      it('returns undefined for a key never claimed', async () => {
        await ledger.claim(claimOf(KEY));
        expect(await ledger.get('statement:c-2:2026-10')).toBeUndefined();
      });

      it('lists in key order, by run, workflow, step and state as reported', async () => {
        const gone = await open();
        await gone.claim(claimOf('k-orphan', { run: 'r-1' }));
        await gone.close();
        await ledger.claim(claimOf('k-live', { run: 'r-2' }));
        await ledger.claim(claimOf('k-done', { run: 'r-1' }));
        await ledger.settle('k-done', { state: 'done', result: 1 }, at(1));
        await ledger.claim(claimOf('k-failed', { run: 'r-2', workflow: 'tickets', step: 'open' }));
        await ledger.settle('k-failed', { state: 'failed', error: 'refused' }, at(1));
        await ledger.claim(claimOf('k-stored-unknown', { run: 'r-1' }));
        await ledger.settle('k-stored-unknown', { state: 'unknown', reason: 'timeout' }, at(1));

        const keys = (records: readonly EffectRecord[]) => records.map((record) => record.key);
        expect(keys(await ledger.list())).toEqual(['k-done', 'k-failed', 'k-live', 'k-orphan', 'k-stored-unknown']);
        expect(keys(await ledger.list({ run: 'r-1' }))).toEqual(['k-done', 'k-orphan', 'k-stored-unknown']);
        expect(keys(await ledger.list({ state: 'unknown' }))).toEqual(['k-orphan', 'k-stored-unknown']);
        expect(keys(await ledger.list({ state: 'claimed' }))).toEqual(['k-live']);
        expect(keys(await ledger.list({ state: 'failed', run: 'r-2' }))).toEqual(['k-failed']);
        expect(keys(await ledger.list({ workflow: 'tickets' }))).toEqual(['k-failed']);
        expect(keys(await ledger.list({ workflow: 'statements', step: 'send', state: 'done' }))).toEqual(['k-done']);
        expect(keys(await ledger.list({ step: 'open', run: 'r-1' }))).toEqual([]);
        expect(keys(await ledger.list({ state: 'done', run: 'r-2' }))).toEqual([]);
        expect(await ledger.list({ run: 'r-3' })).toEqual([]);
        expect(await ledger.list({ state: 'done' })).toStrictEqual([await ledger.get('k-done')]);
      });
    });

    describe('lifetime', () => {
      it('keeps every record across close and reopen', async () => {
        await ledger.claim(claimOf(KEY));
        const done = await ledger.settle(KEY, { state: 'done', result: { messageId: 'm-1' } }, at(1));
        await ledger.claim(claimOf('k-failed'));
        const failed = await ledger.settle('k-failed', { state: 'failed', error: 'HTTP 400' }, at(1));
        await ledger.close();
        const again = await open();
        expect(await again.get(KEY)).toStrictEqual(done);
        expect(await again.get('k-failed')).toStrictEqual(failed);
      });

      it('close is idempotent, and calls after it reject', async () => {
        await ledger.claim(claimOf(KEY));
        await ledger.close();
        await ledger.close();
        await expect(ledger.claim(claimOf('k-2'))).rejects.toThrow();
        await expect(ledger.get(KEY)).rejects.toThrow();
        await expect(ledger.list()).rejects.toThrow();
        await expect(ledger.settle(KEY, { state: 'done', result: 1 }, at(1))).rejects.toThrow();
        await expect(ledger.resolve(KEY, { state: 'done', result: 1 }, 'alice', at(1))).rejects.toThrow();
        const other = await open();
        expect((await other.get(KEY))?.state).toBe('unknown');
      });
    });
  });
}
