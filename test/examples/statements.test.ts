import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  customerKeys,
  generateMonth,
  LARGE_REFUND_CENTS,
  NOVAPAY,
  type Transaction,
} from '../../examples/statements/data.mjs';
import { sentKeys } from '../../examples/statements/mailer.mjs';
import { StandInModel } from '../../examples/statements/model.mjs';
import { build } from '../../examples/statements/workflow.mjs';
import type { EffectLedger } from '../../src/store/effect-ledger.js';
import type { ResumeStore, RunItem } from '../../src/store/resume-store.js';
import { openSqliteEffectLedger } from '../../src/store/sqlite/effect-ledger.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import { approve, pendingReviews } from '../../src/workflows/review.js';
import { type RunResult, resumeRun, startRun, type WorkflowOptions } from '../../src/workflows/run.js';

const MONTH = '2026-10';
/** The first run crashes at this customer; it checked the ones before it. */
const CRASH_AT = 'c-1412';

const transactions = generateMonth(MONTH);

/** The customers with at least one NovaPay refund, and those of them with one of $500 or more. */
function novaPayRefunds(list: readonly Transaction[]): { all: Set<string>; large: Set<string> } {
  const all = new Set<string>();
  const large = new Set<string>();
  for (const line of list) {
    if (line.network !== NOVAPAY || line.kind !== 'refund') continue;
    all.add(line.customer);
    if (line.amount >= LARGE_REFUND_CENTS) large.add(line.customer);
  }
  return { all, large };
}

const refunds = novaPayRefunds(transactions);
/**
 * The statements the fix changes: every customer with a NovaPay refund but the 15 after c-1412 with
 * a large one, whose narrative (worked out from the raw transactions) comes out the same and which
 * the first run never checked.
 */
const changedStatements = new Set(
  [...refunds.all].filter((customer) => customer < CRASH_AT || !refunds.large.has(customer)),
);

describe('the statements data', () => {
  it('is the same every time', () => {
    const digest = createHash('sha256').update(JSON.stringify(transactions)).digest('hex');
    expect(digest).toBe('923dd85985c1762d133877cb7d09da350f10f6f46920b6bc4f612def3b2ac2f0');
    expect(generateMonth(MONTH)).toEqual(transactions);
  });

  it('has 2,000 customers of 60 transactions in the month, 200 with NovaPay refunds, 37 large ones before c-1412', () => {
    expect(customerKeys()).toHaveLength(2000);
    expect(transactions).toHaveLength(120_000);
    expect(new Set(transactions.map((line) => line.id)).size).toBe(120_000);
    const perCustomer = new Map<string, number>();
    for (const line of transactions) perCustomer.set(line.customer, (perCustomer.get(line.customer) ?? 0) + 1);
    expect([...perCustomer.keys()].sort()).toEqual(customerKeys());
    expect(new Set(perCustomer.values())).toEqual(new Set([60]));
    expect(transactions.every((line) => line.date.startsWith(`${MONTH}-`))).toBe(true);

    expect(refunds.all.size).toBe(200);
    expect([...refunds.large].filter((customer) => customer < CRASH_AT)).toHaveLength(37);
    expect([...refunds.all].filter((customer) => customer >= CRASH_AT)).toHaveLength(59);
    // Only NovaPay refunds are ever large: nothing else makes a narrative read the raw transactions.
    const otherLarge = transactions.filter(
      (line) => line.kind === 'refund' && line.network !== NOVAPAY && line.amount >= LARGE_REFUND_CENTS,
    );
    expect(otherLarge).toEqual([]);
  });
});

describe('the statements workflow through the engine', () => {
  let store: ResumeStore;
  let ledger: EffectLedger;
  let outbox: string;
  let first: RunResult;
  /** Each customer's totals digest after the first run. */
  let firstTotals: Map<string, string>;
  const noSleep: Pick<WorkflowOptions, 'sleep' | 'random'> = { sleep: async () => {}, random: () => 0 };

  /** The done items of `step` in the run, by item key. */
  async function doneItems(run: string, step: string): Promise<Map<string, Extract<RunItem, { status: 'done' }>>> {
    const items = await store.listRunItems(run, step);
    return new Map(items.flatMap((item) => (item.status === 'done' ? [[item.item, item] as const] : [])));
  }

  /** The outputs of the done items of `step` in the run, by item key. */
  async function outputs(run: string, step: string): Promise<Map<string, unknown>> {
    const done = await doneItems(run, step);
    const stored = await store.getOutputs([...done.values()].map((item) => item.fingerprint));
    return new Map([...done].map(([key, item]) => [key, stored.get(item.fingerprint)?.output]));
  }

  beforeAll(async () => {
    store = openSqliteResumeStore(':memory:');
    ledger = openSqliteEffectLedger(':memory:');
    outbox = join(mkdtempSync(join(tmpdir(), 'harmflow-statements-')), 'outbox.jsonl');
    const { workflow, providers } = build({ categoriseVersion: 1, overloaded: true, outbox });
    first = await startRun(workflow, { store, ledger, providers, ...noSleep });
    firstTotals = new Map([...(await doneItems(first.run.id, 'totals'))].map(([key, item]) => [key, item.digest]));
  });
  afterAll(async () => {
    await store.close();
    await ledger.close();
    rmSync(dirname(outbox), { recursive: true, force: true });
  });

  it('first run: crashes at fact-check item c-1412 with 37 mismatches among the 1,411 checked', async () => {
    expect(first.run.state).toBe('crashed');
    expect(first.run.message).toBe('crashed at fact-check item c-1412: 529 overloaded (5 tries)');
    expect(first.steps.map((step) => [step.step, step.computed, step.failed])).toEqual([
      ['pull', 1, 0],
      ['categorise', 1200, 0],
      ['totals', 2000, 0],
      ['narrative', 2000, 0],
      ['fact-check', 1411, 0],
    ]);
    const verdicts = await outputs(first.run.id, 'fact-check');
    expect([...verdicts.keys()]).toEqual(customerKeys().filter((customer) => customer < CRASH_AT));
    const mismatches = [...verdicts].filter(([, verdict]) => (verdict as { ok: boolean }).ok === false);
    expect(mismatches).toHaveLength(37);
    // They are the customers with a large NovaPay refund, and their narratives' figures disagree.
    expect(new Set(mismatches.map(([customer]) => customer))).toEqual(
      new Set([...refunds.large].filter((customer) => customer < CRASH_AT)),
    );
    for (const [, verdict] of mismatches) {
      expect((verdict as { reason: string }).reason).toMatch(
        /^purchases: the narrative says \$[\d,.]+, the totals \$[\d,.]+; refunds: .+; net spend: .+$/,
      );
    }
  });

  it('resumed after the fix: categorise and totals in full, 200 redrafted, 730 checked, all ok; the 185 changed wait for a person', async () => {
    const { workflow, providers } = build({ categoriseVersion: 2, outbox });
    const resumed = await resumeRun(workflow, first.run.id, { store, ledger, providers, ...noSleep });
    expect(resumed.run.state).toBe('waiting');
    expect(resumed.steps.map((step) => [step.step, step.computed, step.cached, step.awaiting])).toEqual([
      ['pull', 0, 1, 0],
      ['categorise', 1200, 0, 0],
      ['totals', 2000, 0, 0],
      ['narrative', 200, 1800, 0],
      ['fact-check', 730, 1270, 0],
      // The rule approves the 1,815 statements that passed and that this run did not change…
      ['review', 1815, 0, 185],
      // …and they go out; the 185 it changed wait for a person.
      ['send', 1815, 0, 0],
    ]);
    expect(new Set(sentKeys(outbox))).toEqual(
      new Set(
        customerKeys().flatMap((customer) =>
          changedStatements.has(customer) ? [] : [`statement:${customer}:${MONTH}`],
        ),
      ),
    );

    // Every batch was labelled again, but only the customers with NovaPay refunds got other totals…
    const totals = await doneItems(first.run.id, 'totals');
    const changed = customerKeys().filter((customer) => totals.get(customer)?.digest !== firstTotals.get(customer));
    expect(new Set(changed)).toEqual(refunds.all);
    // …so only they were redrafted, and checked with the 530 customers the first run never reached.
    const model = providers['stand-in'];
    if (!(model instanceof StandInModel)) throw new Error('the statements provider is not the stand-in');
    expect(new Set(model.callsOf('narrative'))).toEqual(refunds.all);
    const neverChecked = customerKeys().filter((customer) => customer >= CRASH_AT && !refunds.all.has(customer));
    expect(neverChecked).toHaveLength(530);
    expect(new Set(model.callsOf('fact-check'))).toEqual(new Set([...refunds.all, ...neverChecked]));

    const verdicts = await outputs(first.run.id, 'fact-check');
    expect(verdicts.size).toBe(2000);
    expect([...verdicts.values()].filter((verdict) => (verdict as { ok: boolean }).ok !== true)).toEqual([]);
  });

  it('the reviewer sees the 185 changed statements, each a diff with the chain that changed it back to categorise v2', async () => {
    const { workflow } = build({ categoriseVersion: 2, outbox });
    const pending = await pendingReviews(workflow, first.run.id, store);
    expect(new Set(pending.map((item) => item.key))).toEqual(changedStatements);
    type Shown = { statement: string; factCheck: string };
    const flagged = new Set([...refunds.large].filter((customer) => customer < CRASH_AT));
    for (const item of pending) {
      const now = item.shown as Shown;
      const earlier = item.change?.earlier as Shown;
      expect(now.factCheck).toBe('passed');
      if (flagged.has(item.key)) {
        // The 37 the first run flagged: their narrative (worked out from the raw transactions) is
        // the same; what changed is the check, against totals now right.
        expect(earlier).toEqual({ statement: now.statement, factCheck: expect.stringMatching(/^FAILED: purchases: /) });
        expect(item.change?.because).toMatch(
          new RegExp(`^fact-check ${item.key} ← totals ${item.key} ← categorise b-\\d+: version 1 → 2$`),
        );
      } else {
        expect(earlier.statement).not.toBe(now.statement);
        expect(item.change?.because).toMatch(
          new RegExp(`^narrative ${item.key} ← totals ${item.key} ← categorise b-\\d+: version 1 → 2$`),
        );
      }
    }
  });

  it('approved and resumed: the 185 are sent, each statement once, and the run succeeds', async () => {
    const { workflow, providers } = build({ categoriseVersion: 2, outbox });
    const decided = await approve(workflow, first.run.id, store, { keys: 'all', by: 'a reviewer' });
    expect(decided).toHaveLength(185);
    const done = await resumeRun(workflow, first.run.id, { store, ledger, providers, ...noSleep });
    expect(done.run.state).toBe('succeeded');
    expect(done.steps.map((step) => [step.step, step.computed])).toEqual([
      ['pull', 0],
      ['categorise', 0],
      ['totals', 0],
      ['narrative', 0],
      ['fact-check', 0],
      ['review', 0],
      ['send', 185],
    ]);
    expect(sentKeys(outbox)).toHaveLength(2000);
    expect(new Set(sentKeys(outbox)).size).toBe(2000);
  });

  it('a rerun sends nobody twice: nothing changed, nothing is sent', async () => {
    const { workflow, providers } = build({ categoriseVersion: 2, outbox });
    const again = await resumeRun(workflow, first.run.id, { store, ledger, providers, ...noSleep });
    expect(again.run.state).toBe('succeeded');
    expect(again.steps.map((step) => step.computed)).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(sentKeys(outbox)).toHaveLength(2000);
  });
});
