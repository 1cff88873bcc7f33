/**
 * `harmflow workflow why`: the provenance of a run's item — its chain of inputs, an upstream that
 * changed or failed since it was read, a failed item explained from what is stored (never guessed) —
 * on a small code pipeline and on the statements example's first run, through `explainItem` and
 * through the built CLI.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { customerKeys } from '../../examples/statements/data.mjs';
import { StandInModel } from '../../examples/statements/model.mjs';
import {
  categoriseStep,
  factCheckStep,
  MODEL,
  narrativeStep,
  pullStep,
  totalsStep,
} from '../../examples/statements/steps.mjs';
import { explainItem, type WhyInput, type WhyNode } from '../../src/cli/workflow-why.js';
import { explainFailures, type FailureReport } from '../../src/cli/workflow-why-failed.js';
import { formatFailures } from '../../src/cli/workflow-why-failed-format.js';
import { formatWhy } from '../../src/cli/workflow-why-format.js';
import type { ResumeStore } from '../../src/store/resume-store.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import type { CodeStep, WorkflowDefinition } from '../../src/workflows/define.js';
import { TransientError } from '../../src/workflows/errors.js';
import { resumeRun, startRun } from '../../src/workflows/run.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
const noSleep = { sleep: async () => {}, random: () => 0 };

let home: string;
let store: ResumeStore;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'harmflow-why-'));
  store = openSqliteResumeStore(join(home, 'harmflow.db'));
});
afterEach(async () => {
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

function cli(...args: string[]) {
  return spawnSync(process.execPath, [BIN, 'workflow', ...args, '--home', home], { encoding: 'utf8', timeout: 60_000 });
}

/** What the pipeline's `totals` step does for customer c2. */
type TotalsC2 = 'ok' | 'transient' | 'defect';

/**
 * amounts → labels → totals → letter, per customer. Labels version 1 takes c2's refund (a negative
 * amount) for a purchase, version 2 does not; `totalsC2` makes totals fail for c2.
 */
function pipeline(options: {
  name?: string;
  labels: '1' | '2';
  totalsVersion?: string;
  totalsC2?: TotalsC2;
}): WorkflowDefinition {
  const amounts: Record<string, number[]> = { c1: [10, 20], c2: [15, -5], c3: [7] };
  const step = (definition: Omit<CodeStep, 'kind'>): CodeStep => ({ kind: 'code', ...definition });
  return {
    name: options.name ?? 'letters',
    params: { month: '2026-10' },
    source: () => Object.keys(amounts),
    steps: [
      step({ name: 'amounts', version: '1', items: 'source', params: ['month'], run: ({ key }) => amounts[key] ?? [] }),
      step({
        name: 'labels',
        version: options.labels,
        items: 'source',
        reads: [{ step: 'amounts', items: 'same' }],
        run: ({ key, inputs }) =>
          ((inputs.amounts?.[key] ?? []) as number[]).map((amount) =>
            amount < 0 && options.labels === '2' ? 'refund' : 'purchase',
          ),
      }),
      step({
        name: 'totals',
        version: options.totalsVersion ?? '1',
        items: 'source',
        reads: [
          { step: 'amounts', items: 'same' },
          { step: 'labels', items: 'same' },
        ],
        run: ({ key, inputs }) => {
          if (key === 'c2' && options.totalsC2 === 'transient') throw new TransientError('503 unavailable');
          if (key === 'c2' && options.totalsC2 === 'defect') throw new Error('totals: a refund is not a purchase');
          const list = inputs.amounts?.[key] as number[];
          const labels = inputs.labels?.[key] as string[];
          return { purchases: list.filter((_, index) => labels[index] === 'purchase').reduce((a, b) => a + b, 0) };
        },
      }),
      step({
        name: 'letter',
        version: '1',
        items: 'source',
        reads: [{ step: 'totals', items: 'same' }],
        run: ({ key, inputs }) =>
          `Dear ${key}, you bought ${((inputs.totals?.[key] ?? {}) as { purchases?: number }).purchases}.`,
      }),
    ],
  };
}

/** The input of `node` from (step, item). */
function inputOf(node: WhyNode, step: string, item: string): WhyInput {
  const found = node.source?.inputs
    .flatMap((group) => group.shown)
    .find((input) => input.node.step === step && input.node.item === item);
  if (found === undefined) throw new Error(`${node.step} ${node.item} shows no input ${step} ${item}`);
  return found;
}

describe('workflow why on a small pipeline', () => {
  it('shows the chain of inputs, each as read, to the depth asked', async () => {
    const { run } = await startRun(pipeline({ labels: '1' }), { store, ...noSleep });
    const report = await explainItem(store, run.id, 'letter', 'c2');
    expect(report.output).toBe('Dear c2, you bought 10.');
    expect(report.item.runItem).toMatchObject({ status: 'done', cached: false });
    expect(report.item.source).toMatchObject({ basis: 'output', version: '1', params: {} });

    const totals = inputOf(report.item, 'totals', 'c2');
    expect(totals.now).toBe('as-read');
    expect(totals.node.source?.inputs.map((group) => [group.step, group.count, group.notAsRead])).toEqual([
      ['amounts', 1, 0],
      ['labels', 1, 0],
    ]);
    // Depth 2: the inputs' inputs are listed, but not followed further.
    const labels = inputOf(totals.node, 'labels', 'c2');
    expect(labels).toMatchObject({ now: 'as-read', node: { runItem: { status: 'done' } } });
    expect(labels.node.source).toBeUndefined();
    expect(
      (await explainItem(store, run.id, 'letter', 'c2', { depth: 1 })).item.source?.inputs[0]?.shown[0]?.node.source,
    ).toBeUndefined();
    const deep = await explainItem(store, run.id, 'letter', 'c2', { depth: 3 });
    expect(inputOf(inputOf(deep.item, 'totals', 'c2').node, 'labels', 'c2').node.source?.version).toBe('1');

    const shown = cli('why', run.id, 'letter', 'c2');
    expect(shown.status).toBe(0);
    expect(shown.stdout).toMatch(
      /^letter c2: done, computed \(1 try\), digest [0-9a-f]{12}, fingerprint [0-9a-f]{12}$/m,
    );
    expect(shown.stdout).toMatch(/^ {2}output "Dear c2, you bought 10\."$/m);
    expect(shown.stdout).toMatch(/^ {2}← totals c2: done, computed \(1 try\), digest [0-9a-f]{12} — as read$/m);
    expect(shown.stdout).toMatch(/^ {4}← labels c2: done, computed \(1 try\), digest [0-9a-f]{12} — as read$/m);
    const json = JSON.parse(cli('why', run.id, 'letter', 'c2', '--json').stdout) as { output: unknown; depth: number };
    expect(json).toMatchObject({ output: 'Dear c2, you bought 10.', depth: 2 });
  });

  it('marks an upstream output that changed since the item read it', async () => {
    const { run } = await startRun(pipeline({ labels: '1' }), { store, ...noSleep });
    // The fix relabels c2, then totals c2 keeps failing: the run crashes with letter c2 and totals c2
    // still the ones computed from the old labels.
    const crashed = await resumeRun(pipeline({ labels: '2', totalsC2: 'transient' }), run.id, {
      store,
      ...noSleep,
      retry: { maxTriesPerItem: 1 },
    });
    expect(crashed.run.message).toMatch(/^crashed at totals item c2/);

    const report = await explainItem(store, run.id, 'letter', 'c2');
    const totals = inputOf(report.item, 'totals', 'c2');
    expect(totals.now).toBe('as-read');
    const labels = inputOf(totals.node, 'labels', 'c2');
    expect(labels.now).toBe('changed');
    expect(labels.node.runItem?.status === 'done' && labels.node.runItem.digest).not.toBe(labels.read);
    expect(totals.node.source?.inputs.find((group) => group.step === 'labels')?.notAsRead).toBe(1);
    // c1's labels came out the same under the fix: nothing changed there.
    const c1 = await explainItem(store, run.id, 'totals', 'c1');
    expect(inputOf(c1.item, 'labels', 'c1').now).toBe('as-read');

    const text = formatWhy(report);
    expect(text).toMatch(/^run \w+ of letters: crashed — crashed at totals item c2: 503 unavailable/);
    expect(text).toMatch(
      /^ {4}← labels c2: done, computed \(1 try\), digest ([0-9a-f]{12}) — CHANGED since it was read \(it was (?!\1)[0-9a-f]{12}\)$/m,
    );
  });

  it('explains a failed item from what is stored, and says when that is all it can say', async () => {
    const { run } = await startRun(pipeline({ labels: '1' }), { store, ...noSleep });
    await resumeRun(pipeline({ labels: '2', totalsC2: 'defect' }), run.id, { store, ...noSleep });

    // totals c2 failed on the new labels: its earlier output's components with the run's current
    // inputs give its fingerprint, so what it read is known exactly.
    const failed = await explainItem(store, run.id, 'totals', 'c2');
    expect(failed.item.runItem).toMatchObject({ status: 'failed', error: 'totals: a refund is not a purchase' });
    expect(failed.output).toBeUndefined();
    expect(failed.item.source?.basis).toBe('verified');
    expect(inputOf(failed.item, 'labels', 'c2').now).toBe('as-read');
    expect(formatWhy(failed)).toMatch(
      /^totals c2: FAILED after 1 try: totals: a refund is not a purchase, fingerprint/m,
    );
    expect(formatWhy(failed)).toMatch(
      /^ {2}what it read: its earlier output [0-9a-f]{12} of \S+, with the run's current inputs, hashes to its fingerprint\n {2}version 1 · /m,
    );

    // letter c2 was blocked: the run still points at the letter made from the old totals, which failed since.
    const letter = await explainItem(store, run.id, 'letter', 'c2');
    expect(letter.output).toBe('Dear c2, you bought 10.');
    expect(inputOf(letter.item, 'totals', 'c2').now).toBe('failed');
    expect(formatWhy(letter)).toMatch(
      /^ {2}← totals c2: FAILED after 1 try: totals: a refund is not a purchase — FAILED since [0-9a-f]{12} was read$/m,
    );

    // A new totals version that fails too: the earlier output is of version 1, so it tells what
    // that output read, not what the failure did.
    await resumeRun(pipeline({ labels: '2', totalsVersion: '2', totalsC2: 'defect' }), run.id, { store, ...noSleep });
    const earlier = await explainItem(store, run.id, 'totals', 'c2');
    expect(earlier.item.source).toMatchObject({ basis: 'earlier', version: '1' });
    expect(inputOf(earlier.item, 'labels', 'c2').now).toBe('changed');
    expect(formatWhy(earlier)).toMatch(
      /^ {2}what it read is not known; its earlier output [0-9a-f]{12} of \S+ had\n {2}version 1 · /m,
    );
  });

  it('says so when no output of a failed item was ever stored', async () => {
    const { run } = await startRun(pipeline({ name: 'fresh', labels: '1', totalsC2: 'defect' }), { store, ...noSleep });
    const report = await explainItem(store, run.id, 'totals', 'c2');
    expect(report.item.source).toBeUndefined();
    expect(report.item.note).toBe('it failed and no output of it is stored: what it read is not known');
    expect(formatWhy(report)).toMatch(/\n {2}it failed and no output of it is stored: what it read is not known$/);
  });

  it('answers exit 6 for an unknown run, step or item, and 2 for a bad depth', async () => {
    const { run } = await startRun(pipeline({ labels: '1' }), { store, ...noSleep });
    await expect(explainItem(store, '01jf3kaaaa2m4n6p8r0s2t4v6z', 'letter', 'c2')).rejects.toThrow(/no workflow run/);
    await expect(explainItem(store, run.id, 'letters', 'c2')).rejects.toThrow(
      `run ${run.id} has no items of step letters`,
    );
    const missing = cli('why', run.id, 'letter', 'c9');
    expect(missing.status).toBe(6);
    expect(missing.stderr).toBe(`harmflow: run ${run.id} has no item letter c9\n`);
    expect(cli('why', run.id, 'letter', 'c2', '--depth', 'two').status).toBe(2);
  });
});

describe('workflow why on the statements example', () => {
  it('points from a fact-check mismatch through totals to the categorise batches', { timeout: 60_000 }, async () => {
    const definition: WorkflowDefinition = {
      name: 'statements',
      params: { month: '2026-10' },
      source: () => customerKeys(),
      steps: [pullStep(), categoriseStep(1), totalsStep(), narrativeStep(), factCheckStep()],
    };
    const providers = { [MODEL.provider]: new StandInModel({ overloadedFrom: 'c-1412' }) };
    const { run } = await startRun(definition, { store, providers, ...noSleep });
    expect(run.message).toMatch(/^crashed at fact-check item c-1412/);

    const checks = await store.listRunItems(run.id, 'fact-check');
    const outputs = await store.getOutputs(checks.map((item) => item.fingerprint));
    const mismatch = checks.find(
      (item) => (outputs.get(item.fingerprint)?.output as { ok?: boolean } | undefined)?.ok === false,
    );
    if (mismatch === undefined) throw new Error('the first run has no mismatch');

    const report = await explainItem(store, run.id, 'fact-check', mismatch.item);
    expect(report.output).toMatchObject({ ok: false, reason: expect.stringMatching(/refunds: the narrative says/) });
    expect(report.item.source?.inputs.map((group) => group.step)).toEqual(['narrative', 'totals']);
    const totals = inputOf(report.item, 'totals', mismatch.item);
    const groups = totals.node.source?.inputs ?? [];
    expect(groups.map((group) => group.step)).toEqual(['categorise', 'pull']);
    const categorise = groups[0];
    expect(categorise?.count).toBeGreaterThan(10);
    expect(categorise?.shown).toHaveLength(10);
    expect(categorise?.notAsRead).toBe(0);
    // The narrative reads the same totals: listed there, followed once.
    expect(inputOf(inputOf(report.item, 'narrative', mismatch.item).node, 'totals', mismatch.item).node.repeated).toBe(
      true,
    );

    const text = formatWhy(report);
    expect(text).toMatch(
      new RegExp(`^ {2}← totals ${mismatch.item}: done, computed \\(1 try\\), digest \\w+ — as read$`, 'm'),
    );
    expect(text).toMatch(/^ {4}← categorise b-\d{4}: done, computed \(1 try\), digest \w+ — as read$/m);
    expect(text).toContain(`    ← categorise: ${(categorise?.count ?? 0) - 10} more, all as read`);

    const crashed = cli('why', run.id, 'fact-check', 'c-1412');
    expect(crashed.status).toBe(6);
    expect(crashed.stderr).toMatch(
      /has no item fact-check c-1412 \(the run is crashed: crashed at fact-check item c-1412/,
    );
  });
});

/**
 * amounts → totals ← rates, then check, per customer: c01 … c05 are in the eu, the rest in the us.
 * The eu rate is wrong unless `fixed`, so the eu customers' checks fail (`{ok: false}`); c20's check
 * throws unless `fixed` (a FAILED item that never had an output: what it read is not known).
 */
function rated(options: { fixed: boolean }): WorkflowDefinition {
  const customers = Array.from({ length: 20 }, (_, index) => `c${String(index + 1).padStart(2, '0')}`);
  const region = (customer: string) => (customers.indexOf(customer) < 5 ? 'eu' : 'us');
  const step = (definition: Omit<CodeStep, 'kind'>): CodeStep => ({ kind: 'code', ...definition });
  return {
    name: 'rated',
    params: {},
    source: () => customers,
    steps: [
      step({ name: 'amounts', version: '1', items: 'source', run: () => 100 }),
      step({
        name: 'rates',
        version: options.fixed ? '2' : '1',
        items: () => ['eu', 'us'],
        run: ({ key }) => (key === 'eu' && !options.fixed ? 0.5 : 0.2),
      }),
      step({
        name: 'totals',
        version: '1',
        items: 'source',
        reads: [
          { step: 'amounts', items: 'same' },
          { step: 'rates', items: (customer) => [region(customer)] },
        ],
        run: ({ key, inputs }) => (inputs.amounts?.[key] as number) * (1 + (inputs.rates?.[region(key)] as number)),
      }),
      step({
        name: 'check',
        version: '1',
        items: 'source',
        reads: [
          { step: 'totals', items: 'same' },
          { step: 'amounts', items: 'same' },
        ],
        run: ({ key, inputs }) => {
          if (key === 'c20' && !options.fixed) throw new Error('check: the totals cannot be read');
          const ok = (inputs.totals?.[key] as number) <= (inputs.amounts?.[key] as number) * 1.3;
          return ok ? { ok } : { ok, reason: 'the total is more than 130% of the amount' };
        },
      }),
    ],
  };
}

describe('workflow why --failed', () => {
  it('finds the one upstream output every failure read and no pass did, with exact counts', async () => {
    const { run } = await startRun(rated({ fixed: false }), { store, ...noSleep });
    const report = await explainFailures(store, run.id, 'check');
    expect(report).toMatchObject({
      items: 20,
      failed: 1,
      verdicts: 5,
      passes: 14,
      unknownReads: 1,
      compared: { failures: 5, passes: 14 },
      examples: ['c01', 'c02', 'c03', 'c04', 'c05', 'c20'],
      // totals c01…c05, amounts c01…c05, rates eu, and each step's version 1.
      tested: 14,
    });
    expect(report.threshold).toBeCloseTo(0.05 / 14, 12);
    expect(report.steps.map((upstream) => [upstream.step, upstream.level, upstream.via])).toEqual([
      ['amounts', 1, ['check', 'totals']],
      ['totals', 1, ['check']],
      ['rates', 2, ['totals']],
    ]);
    const rates = report.steps.find((upstream) => upstream.step === 'rates');
    expect(rates).toMatchObject({ outputs: 2, readByFailures: 1, sharedByFailures: 1, strong: 1 });
    expect(rates?.notAsRead).toBeUndefined();
    expect(rates?.versions).toMatchObject([{ version: '1', failures: 5, passes: 14, chance: 1, strong: false }]);
    const eu = rates?.ranked[0];
    expect(eu).toMatchObject({ kind: 'output', item: 'eu', version: '1', failures: 5, passes: 0, lift: null });
    // 5 of 5 failures among the 5 items that read it, of 19: 1 / C(19, 5).
    expect(eu?.chance).toBeCloseTo(1 / 11_628, 12);
    expect(eu?.expected).toBeCloseTo((5 * 5) / 19, 12);
    expect(eu?.strong).toBe(true);
    // Each failure's own totals are read by it alone: exclusive, but nothing shared.
    expect(report.steps[1]).toMatchObject({ step: 'totals', readByFailures: 5, sharedByFailures: 0, strong: 0 });
    expect(report.verdict).toMatchObject({
      kind: 'separated',
      step: 'rates',
      level: 2,
      best: { item: 'eu' },
      strong: 1,
      failures: 5,
      passes: 0,
      also: [],
    });

    const text = formatFailures(report);
    expect(text).toContain(
      'check: 6 of its 20 items failed — 5 with a failing verdict (ok: false), 1 FAILED: c01, c02, c03, c04, c05, c20\n',
    );
    expect(text).toMatch(
      /^ {2}eu v1 [0-9a-f]{12}: 5 of 5 failures \(1\.3 expected\), 0 of 14 passes — read by no pass, chance 1 in 11,628 — STRONG$/m,
    );
    expect(text).toMatch(
      /^verdict: rates \(level 2\) is the deepest step whose outputs set the failures apart: rates eu v1, read by 5 of 5 failures \(1\.3 expected by chance\) and 0 of 14 passes, has a chance of 1 in 11,628\. Taken together, its one strong output, version or state is read by 5 of 5 failures and 0 of 14 passes; every failure reads one of them\. This is correlation over what was read, not proof of a cause\.$/m,
    );

    const shown = cli('why', run.id, 'check', '--failed');
    expect(shown.status).toBe(0);
    expect(shown.stdout).toBe(`${text}\n`);
    const json = JSON.parse(cli('why', run.id, 'check', '--failed', '--json').stdout) as FailureReport;
    expect(json.verdict).toMatchObject({ kind: 'separated', step: 'rates' });
  });

  it('says so when the step has no failures, and refuses wrong combinations', async () => {
    const { run } = await startRun(rated({ fixed: true }), { store, ...noSleep });
    const none = cli('why', run.id, 'check', '--failed');
    expect(none.status).toBe(0);
    expect(none.stdout).toMatch(
      /\ncheck: none of its 20 items in this run failed \(no FAILED item, no failing verdict\): nothing to compare\n$/,
    );

    const withItem = cli('why', run.id, 'check', 'c01', '--failed');
    expect(withItem.status).toBe(2);
    expect(withItem.stderr).toBe("harmflow: why --failed compares all of check's failures: give no ITEM (c01)\n");
    const neither = cli('why', run.id, 'check');
    expect(neither.status).toBe(2);
    expect(neither.stderr).toMatch(/why RUN STEP ITEM explains one item; why RUN STEP --failed/);
    expect(cli('why', run.id, 'checks', '--failed').status).toBe(6);
    expect(cli('why', '01jf3kaaaa2m4n6p8r0s2t4v6z', 'check', '--failed').status).toBe(6);
  });

  it('on the statements first run: categorise is where failures share outputs, but nothing beyond chance', {
    timeout: 60_000,
  }, async () => {
    const definition: WorkflowDefinition = {
      name: 'statements',
      params: { month: '2026-10' },
      source: () => customerKeys(),
      steps: [pullStep(), categoriseStep(1), totalsStep(), narrativeStep(), factCheckStep()],
    };
    const providers = { [MODEL.provider]: new StandInModel({ overloadedFrom: 'c-1412' }) };
    const { run } = await startRun(definition, { store, providers, ...noSleep });

    const report = await explainFailures(store, run.id, 'fact-check', { shown: 5 });
    expect(report).toMatchObject({ items: 1411, failed: 0, verdicts: 37, passes: 1374, unknownReads: 0 });
    expect(report.steps.map((upstream) => [upstream.step, upstream.level])).toEqual([
      ['narrative', 1],
      ['totals', 1],
      ['pull', 2],
      ['categorise', 2],
    ]);
    // Every failure read version 1 of every step, as every pass did, and all as read.
    for (const upstream of report.steps) {
      expect(upstream.versions).toMatchObject([{ version: '1', failures: 37, passes: 1374 }]);
      expect(upstream.notAsRead).toBeUndefined();
    }
    const categorise = report.steps[3];
    expect(categorise).toMatchObject({ outputs: 1200, strong: 0 });
    // The top batches are read by failures ≈4× as often as by passes, at the rate chance gives the top
    // of 1,200 batches: b-0842 by 8 of the 37 failures where 1.9 are expected.
    expect(categorise?.ranked[0]).toMatchObject({ item: 'b-0842', version: '1', failures: 8, passes: 66 });
    for (const batch of categorise?.ranked ?? []) {
      expect(batch.lift).toBeGreaterThan(3);
      expect(batch.chance).toBeGreaterThan(report.threshold);
    }
    expect(report.verdict).toMatchObject({
      kind: 'not-separated',
      strongest: { step: 'categorise', item: 'b-0842' },
      shared: [{ step: 'categorise', level: 2 }],
    });
    const text = formatFailures(report);
    expect(text).toMatch(
      /^verdict: nothing the failures read sets them apart from the passes beyond chance\. The strongest, categorise b-0842 v1, read by 8 of 37 failures \(1\.9 expected by chance\) and 66 of 1,374 passes, .* The deepest outputs two failures share \(and not every item reads\) are categorise's \(level 2\)/m,
    );
  });
});
