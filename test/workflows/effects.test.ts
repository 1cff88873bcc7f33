import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EffectLedger } from '../../src/store/effect-ledger.js';
import type { Json } from '../../src/store/resume-store.js';
import { openSqliteEffectLedger } from '../../src/store/sqlite/effect-ledger.js';
import {
  EffectNotPerformedError,
  effectFailure,
  type PerformEffectOptions,
  performEffect,
  type Reconciliation,
} from '../../src/workflows/effects.js';
import { classifyError, DefectError, TransientError } from '../../src/workflows/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'harmflow-effects-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = 'statement:c-1:2026-10';
const NOW = Date.UTC(2026, 10, 3, 9, 0);

/** An error with a Node-style `code`, as the network stack throws. */
function codeError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:25`), { code });
}

/** An error with an HTTP `status`, as SDKs throw. */
function statusError(status: number): Error {
  return Object.assign(new Error(`HTTP ${status}`), { status });
}

/** A fake provider: counts its sends per key, and fails the way it is told to. */
class Provider {
  readonly sent: string[] = [];
  failWith: unknown;

  readonly send = async (key: string): Promise<Json> => {
    if (this.failWith !== undefined) throw this.failWith;
    this.sent.push(key);
    return { messageId: `m-${this.sent.length}` };
  };
}

let files = 0;
let file: string;
let ledgers: EffectLedger[];
let ledger: EffectLedger;
let provider: Provider;

const open = (): EffectLedger => {
  const next = openSqliteEffectLedger(file);
  ledgers.push(next);
  return next;
};

const options = (fields: Partial<PerformEffectOptions> = {}): PerformEffectOptions => ({
  ledger,
  key: KEY,
  workflow: 'statements',
  run: 'r-1',
  step: 'send',
  item: 'c-1',
  effect: provider.send,
  now: () => NOW,
  ...fields,
});

/** Claims KEY with a ledger that then closes, as a killed process leaves it. */
async function orphan(): Promise<void> {
  const gone = open();
  expect(
    (await gone.claim({ key: KEY, workflow: 'statements', run: 'r-0', step: 'send', item: 'c-1', at: 't' })).claimed,
  ).toBe(true);
  await gone.close();
}

/** A reconcile that answers `answer` and counts its calls. */
function reconciler(answer: () => Promise<Reconciliation | undefined>) {
  const calls: string[] = [];
  return {
    calls,
    reconcile: async (key: string) => {
      calls.push(key);
      return answer();
    },
  };
}

beforeEach(() => {
  file = join(dir, `${++files}`, 'harmflow.db');
  ledgers = [];
  ledger = open();
  provider = new Provider();
});

afterEach(async () => {
  for (const each of ledgers) await each.close();
});

describe('performEffect: a new key', () => {
  it('claims it durably before the effect runs, passes the key, and records the result', async () => {
    const seenByEffect: unknown[] = [];
    const outcome = await performEffect(
      options({
        effect: async (key) => {
          const raw = new Database(file, { readonly: true });
          try {
            seenByEffect.push(raw.prepare('SELECT state, holder FROM effects WHERE key = ?').get(key));
          } finally {
            raw.close();
          }
          return provider.send(key);
        },
      }),
    );
    expect(seenByEffect).toEqual([{ state: 'claimed', holder: ledger.holder }]);
    expect(outcome).toStrictEqual({ status: 'done', key: KEY, result: { messageId: 'm-1' }, performed: true });
    expect(provider.sent).toEqual([KEY]);
    expect(await ledger.get(KEY)).toStrictEqual({
      key: KEY,
      workflow: 'statements',
      run: 'r-1',
      step: 'send',
      item: 'c-1',
      holder: ledger.holder,
      claims: 1,
      createdAt: new Date(NOW).toISOString(),
      updatedAt: new Date(NOW).toISOString(),
      state: 'done',
      result: { messageId: 'm-1' },
    });
  });

  it('stores a result that is not JSON as its JSON value, and undefined as null', async () => {
    const date = new Date(NOW);
    const dated = await performEffect(
      options({ key: 'k-date', effect: async () => ({ at: date }) as unknown as Json }),
    );
    expect(dated).toMatchObject({ status: 'done', result: { at: date.toISOString() } });
    const none = await performEffect(options({ key: 'k-none', effect: async () => undefined as unknown as Json }));
    expect(none).toMatchObject({ status: 'done', result: null, performed: true });
    expect(await ledger.get('k-none')).toMatchObject({ state: 'done', result: null });
  });
});

describe('performEffect: a key the ledger holds', () => {
  it('returns a done effect’s stored result without performing it again, from any holder', async () => {
    await performEffect(options());
    const again = await performEffect(options({ run: 'r-2' }));
    const elsewhere = await performEffect(options({ ledger: open(), run: 'r-3' }));
    for (const outcome of [again, elsewhere]) {
      expect(outcome).toStrictEqual({ status: 'done', key: KEY, result: { messageId: 'm-1' }, performed: false });
    }
    expect(provider.sent).toEqual([KEY]);
  });

  it('reports a claim another live holder is performing as in-flight, calling nothing', async () => {
    const other = open();
    await other.claim({ key: KEY, workflow: 'statements', run: 'r-0', step: 'send', item: 'c-1', at: 't' });
    const { calls, reconcile } = reconciler(async () => ({ notDone: true }));
    expect(await performEffect(options({ reconcile }))).toStrictEqual({
      status: 'in-flight',
      key: KEY,
      holder: other.holder,
    });
    expect(provider.sent).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('performs a key once when the same ledger is asked for it twice at once', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = options({
      effect: async (key) => {
        await gate;
        return provider.send(key);
      },
    });
    const first = performEffect(slow);
    const second = await performEffect(slow);
    release();
    expect(second).toStrictEqual({ status: 'in-flight', key: KEY, holder: ledger.holder });
    expect(await first).toMatchObject({ status: 'done', performed: true });
    expect(provider.sent).toEqual([KEY]);
  });

  it('performs each of 20 keys once when two holders race for all of them', async () => {
    const other = open();
    const keys = Array.from({ length: 20 }, (_, index) => `ticket:${index}`);
    const outcomes = await Promise.all(
      keys.flatMap((key) => [performEffect(options({ key })), performEffect(options({ key, ledger: other }))]),
    );
    expect([...provider.sent].sort()).toEqual([...keys].sort());
    expect(outcomes.filter((outcome) => outcome.status === 'done' && outcome.performed)).toHaveLength(20);
  });
});

describe('performEffect: a claim whose holder ended (unknown)', () => {
  beforeEach(orphan);

  it('without reconcile: reports unknown and leaves the record as it is', async () => {
    const before = await ledger.get(KEY);
    const outcome = await performEffect(options());
    expect(outcome).toMatchObject({ status: 'unknown', key: KEY });
    expect(outcome.status === 'unknown' && outcome.reason).toContain('ended before recording the outcome');
    expect(provider.sent).toEqual([]);
    expect(await ledger.get(KEY)).toStrictEqual(before);
  });

  it('reconciled done: records the reconciled result, settled by reconcile, and does not perform', async () => {
    const { calls, reconcile } = reconciler(async () => ({ done: { foundIn: 'outbox' } }));
    const outcome = await performEffect(options({ reconcile }));
    expect(outcome).toStrictEqual({
      status: 'done',
      key: KEY,
      result: { foundIn: 'outbox' },
      performed: false,
      reconciled: 'done',
    });
    expect(calls).toEqual([KEY]);
    expect(provider.sent).toEqual([]);
    expect(await ledger.get(KEY)).toMatchObject({
      state: 'done',
      result: { foundIn: 'outbox' },
      settledBy: 'reconcile',
      holder: ledger.holder,
      claims: 2,
      run: 'r-1',
    });
  });

  it('reconciled not done: performs it once, under the key', async () => {
    const { reconcile } = reconciler(async () => ({ notDone: true }));
    const outcome = await performEffect(options({ reconcile }));
    expect(outcome).toStrictEqual({
      status: 'done',
      key: KEY,
      result: { messageId: 'm-1' },
      performed: true,
      reconciled: 'notDone',
    });
    expect(provider.sent).toEqual([KEY]);
    const record = await ledger.get(KEY);
    expect(record).toMatchObject({ state: 'done', claims: 2 });
    expect(record).not.toHaveProperty('settledBy');
  });

  it('reconcile unsure, failing or answering nonsense: stays unknown, says so once, and never performs', async () => {
    const answers: (() => Promise<Reconciliation | undefined>)[] = [
      async () => undefined,
      async () => {
        throw new Error('mail log unreachable');
      },
      async () => ({}) as Reconciliation,
      async () => ({ notDone: false }) as unknown as Reconciliation,
    ];
    for (const answer of answers) {
      const outcome = await performEffect(options({ reconcile: reconciler(answer).reconcile }));
      expect(outcome).toMatchObject({ status: 'unknown', reconciled: 'unsure' });
    }
    expect(provider.sent).toEqual([]);
    const record = await ledger.get(KEY);
    expect(record).toMatchObject({ state: 'unknown', claims: 5 });
    const reason = record?.state === 'unknown' ? record.reason : '';
    expect(reason.match(/reconcile could not tell/g)).toHaveLength(1);
    expect(reason).toContain('ended before recording the outcome');

    const failing = await performEffect(
      options({
        reconcile: async () => {
          throw new Error('mail log unreachable');
        },
      }),
    );
    expect(failing.status === 'unknown' && failing.reason).toContain('reconcile failed: mail log unreachable');
  });
});

describe('performEffect: an error from the effect', () => {
  it.each([
    ['DefectError', new DefectError('invalid address')],
    ['HTTP 400', statusError(400)],
    ['HTTP 422', statusError(422)],
    ['a zod error', z.string().safeParse(1).error],
  ])('refused (%s): failed, returned, and performed again on a later call', async (_name, error) => {
    provider.failWith = error;
    const outcome = await performEffect(options());
    expect(outcome).toMatchObject({ status: 'failed', key: KEY });
    expect(await ledger.get(KEY)).toMatchObject({ state: 'failed' });
    provider.failWith = undefined;
    expect(await performEffect(options())).toMatchObject({ status: 'done', performed: true });
    expect(provider.sent).toEqual([KEY]);
    expect(await ledger.get(KEY)).toMatchObject({ state: 'done', claims: 2 });
  });

  it.each([
    ['ECONNREFUSED', codeError('ECONNREFUSED'), 'transient'],
    ['EAI_AGAIN', codeError('EAI_AGAIN'), 'transient'],
    ['ENOTFOUND', codeError('ENOTFOUND'), 'defect'],
    ['HTTP 429', statusError(429), 'transient'],
    ['HTTP 408', statusError(408), 'transient'],
    ['EffectNotPerformedError', new EffectNotPerformedError('quota check failed'), 'transient'],
    [
      'fetch failed, caused by ECONNREFUSED',
      new TypeError('fetch failed', { cause: codeError('ECONNREFUSED') }),
      'transient',
    ],
  ])(
    'not performed (%s): failed, rethrown for the retry policy, performed on the retry',
    async (_name, error, kind) => {
      provider.failWith = error;
      const thrown = await performEffect(options()).catch((caught: unknown) => caught);
      expect(thrown).toBe(error);
      expect(classifyError(thrown).kind).toBe(kind);
      expect(await ledger.get(KEY)).toMatchObject({ state: 'failed' });
      provider.failWith = undefined;
      expect(await performEffect(options())).toMatchObject({ status: 'done', performed: true });
      expect(provider.sent).toEqual([KEY]);
    },
  );

  it.each([
    ['ECONNRESET', codeError('ECONNRESET')],
    ['ETIMEDOUT', codeError('ETIMEDOUT')],
    ['HTTP 503', statusError(503)],
    ['HTTP 409', statusError(409)],
    ['TransientError overloaded', new TransientError('overloaded', { status: 529 })],
    ['TransientError without a status', new TransientError('socket hang up')],
    ['an error nobody recognises', new TypeError('cannot read properties of undefined')],
    ['a thrown string', 'boom'],
    [
      'HTTP 500, whatever its cause says',
      Object.assign(new Error('HTTP 500', { cause: new DefectError('x') }), { status: 500 }),
    ],
  ])('ambiguous (%s): unknown, returned, and never performed without a reconcile', async (_name, error) => {
    provider.failWith = error;
    const outcome = await performEffect(options());
    expect(outcome).toMatchObject({ status: 'unknown', key: KEY });
    expect(outcome.status === 'unknown' && outcome.reason).toContain('may have happened');
    const record = await ledger.get(KEY);
    expect(record).toMatchObject({ state: 'unknown', holder: ledger.holder });
    provider.failWith = undefined;
    expect(await performEffect(options())).toMatchObject({ status: 'unknown' });
    expect(provider.sent).toEqual([]);
    expect(await ledger.get(KEY)).toStrictEqual(record);
  });

  it('an ambiguous failure is reconciled on a later call', async () => {
    provider.failWith = codeError('ECONNRESET');
    await performEffect(options());
    provider.failWith = undefined;
    const { calls, reconcile } = reconciler(async () => ({ done: { foundIn: 'provider log' } }));
    expect(await performEffect(options({ reconcile }))).toMatchObject({
      status: 'done',
      performed: false,
      reconciled: 'done',
    });
    expect(calls).toEqual([KEY]);
    expect(provider.sent).toEqual([]);
  });
});

describe('effectFailure', () => {
  it('lets the first link of the cause chain that says something decide', () => {
    expect(effectFailure(new DefectError('bad request', { cause: codeError('ECONNRESET') }))).toBe('refused');
    expect(effectFailure(new Error('send failed', { cause: statusError(400) }))).toBe('refused');
    expect(
      effectFailure(new Error('send failed', { cause: new Error('deeper', { cause: codeError('ENETUNREACH') }) })),
    ).toBe('not-performed');
    expect(effectFailure(Object.assign(new Error('x'), { statusCode: 429 }))).toBe('not-performed');
    expect(effectFailure(Object.assign(new Error('x'), { status: 200 }))).toBe('ambiguous');
    expect(effectFailure(null)).toBe('ambiguous');
  });
});
