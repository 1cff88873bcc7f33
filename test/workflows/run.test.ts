import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ResumeStore } from '../../src/store/resume-store.js';
import { openSqliteEffectLedger } from '../../src/store/sqlite/effect-ledger.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import type {
  CodeStep,
  ItemInput,
  Json,
  ModelProvider,
  ModelRequest,
  WorkflowDefinition,
} from '../../src/workflows/define.js';
import { DefectError, TransientError } from '../../src/workflows/errors.js';
import { planExitCode, planResume } from '../../src/workflows/plan.js';
import { resumeRun, startRun, type WorkflowEvent, type WorkflowOptions } from '../../src/workflows/run.js';
import { WorkflowDefinitionError } from '../../src/workflows/validate.js';

let store: ResumeStore;
beforeEach(() => {
  store = openSqliteResumeStore(':memory:');
});
afterEach(async () => {
  await store.close();
});

const CUSTOMERS = ['c1', 'c2', 'c3', 'c4'];
const noSleep = { sleep: async () => {}, random: () => 0 };

/** Counts the calls of each step, so a test can tell computed from reused. */
class Calls {
  readonly counts = new Map<string, string[]>();
  note(step: string, key: string): void {
    this.counts.set(step, [...(this.counts.get(step) ?? []), key]);
  }
  of(step: string): string[] {
    return this.counts.get(step) ?? [];
  }
}

/**
 * A small statement pipeline: `amounts` per customer (one of them a refund), `labels` that version 1
 * gets wrong for refunds, `totals` from the labels, `letter` from the totals.
 */
function pipeline(calls: Calls, labelsVersion: '1' | '2'): WorkflowDefinition {
  const amounts: Record<string, number[]> = { c1: [10, 20], c2: [5, -5], c3: [7], c4: [1, 2, 3] };
  const step = (definition: Omit<CodeStep, 'kind'>): CodeStep => ({ kind: 'code', ...definition });
  return {
    name: 'statements',
    params: { month: '2026-10' },
    source: () => CUSTOMERS,
    steps: [
      step({
        name: 'amounts',
        version: '1',
        items: 'source',
        params: ['month'],
        run: ({ key }) => {
          calls.note('amounts', key);
          return amounts[key] ?? [];
        },
      }),
      step({
        name: 'labels',
        version: labelsVersion,
        items: 'source',
        reads: [{ step: 'amounts', items: 'same' }],
        run: ({ key, inputs }) => {
          calls.note('labels', key);
          const list = inputs.amounts?.[key] as number[];
          // Version 1 labels a refund (a negative amount) as a purchase; version 2 fixes it.
          return list.map((amount) => (amount < 0 && labelsVersion === '2' ? 'refund' : 'purchase'));
        },
      }),
      step({
        name: 'totals',
        version: '1',
        items: 'source',
        reads: [
          { step: 'amounts', items: 'same' },
          { step: 'labels', items: 'same' },
        ],
        run: ({ key, inputs }) => {
          calls.note('totals', key);
          const list = inputs.amounts?.[key] as number[];
          const labels = inputs.labels?.[key] as string[];
          const purchases = list
            .filter((_, index) => labels[index] === 'purchase')
            .reduce((a, b) => a + Math.abs(b), 0);
          return { purchases, items: list.length };
        },
      }),
      step({
        name: 'letter',
        version: '1',
        items: 'source',
        reads: [{ step: 'totals', items: 'same' }],
        run: ({ key, inputs }) => {
          calls.note('letter', key);
          const totals = inputs.totals?.[key] as { purchases: number };
          return `Dear ${key}, you bought ${totals.purchases}.`;
        },
      }),
    ],
  };
}

function options(extra: Partial<WorkflowOptions> = {}): WorkflowOptions {
  return { store, ...noSleep, ...extra };
}

describe('startRun and resumeRun', () => {
  it('computes every item once, then a resume reuses them all', async () => {
    const calls = new Calls();
    const first = await startRun(pipeline(calls, '1'), options());
    expect(first.run.state).toBe('succeeded');
    expect(first.steps.map((step) => [step.step, step.computed, step.cached])).toEqual([
      ['amounts', 4, 0],
      ['labels', 4, 0],
      ['totals', 4, 0],
      ['letter', 4, 0],
    ]);
    const again = await resumeRun(pipeline(calls, '1'), first.run.id, options());
    expect(again.steps.map((step) => step.cached)).toEqual([4, 4, 4, 4]);
    expect(calls.of('letter')).toEqual(CUSTOMERS);
    const items = await store.listRunItems(first.run.id, 'letter');
    expect(items.map((item) => [item.item, item.status])).toEqual(CUSTOMERS.map((key) => [key, 'done']));
  });

  it('remembers the workflow file a resume used, for the next resume by the id alone', async () => {
    const calls = new Calls();
    const first = await startRun(pipeline(calls, '1'), { ...options(), module: '/work/first.mjs' });
    expect((await store.getRun(first.run.id))?.module).toBe('/work/first.mjs');
    const fixed = await resumeRun(pipeline(calls, '2'), first.run.id, { ...options(), module: '/work/fixed.mjs' });
    expect(fixed.run.module).toBe('/work/fixed.mjs');
    expect((await store.getRun(first.run.id))?.module).toBe('/work/fixed.mjs');
    // A resume that names no file keeps the one recorded.
    await resumeRun(pipeline(calls, '2'), first.run.id, options());
    expect((await store.getRun(first.run.id))?.module).toBe('/work/fixed.mjs');
  });

  it('cuts off early: a fixed step recomputes all, but only changed outputs rerun downstream', async () => {
    const calls = new Calls();
    const first = await startRun(pipeline(calls, '1'), options());
    const fixed = new Calls();
    const resumed = await resumeRun(pipeline(fixed, '2'), first.run.id, options());
    expect(resumed.run.state).toBe('succeeded');
    // Every label is computed again (its version changed), but only c2's labels differ, so only c2's
    // totals and letter are computed again.
    expect(fixed.of('amounts')).toEqual([]);
    expect(fixed.of('labels')).toEqual(CUSTOMERS);
    expect(fixed.of('totals')).toEqual(['c2']);
    expect(fixed.of('letter')).toEqual(['c2']);
  });

  it('reverting a change costs nothing: the earlier outputs are still there', async () => {
    const calls = new Calls();
    const first = await startRun(pipeline(calls, '1'), options());
    await resumeRun(pipeline(calls, '2'), first.run.id, options());
    const back = new Calls();
    const reverted = await resumeRun(pipeline(back, '1'), first.run.id, options());
    expect(reverted.steps.map((step) => step.computed)).toEqual([0, 0, 0, 0]);
    expect([...back.counts.keys()]).toEqual([]);
  });

  it('a run with other parameters reuses only what does not read them', async () => {
    const calls = new Calls();
    await startRun(pipeline(calls, '1'), options());
    const other = new Calls();
    const run = await startRun(
      pipeline(other, '1'),
      options({ params: { month: '2026-11' } } as Partial<WorkflowOptions>),
    );
    // `amounts` reads the month: all rerun; their outputs are the same, so nothing below reruns.
    expect(run.steps.map((step) => [step.computed, step.cached])).toEqual([
      [4, 0],
      [0, 4],
      [0, 4],
      [0, 4],
    ]);
  });
});

/** A model provider that answers from a function of the request, counting calls per prompt. */
class ScriptedModel implements ModelProvider {
  readonly prompts: string[] = [];
  constructor(private readonly answer: (request: ModelRequest, call: number) => string) {}
  async complete(request: ModelRequest) {
    this.prompts.push(request.prompt);
    return { text: this.answer(request, this.prompts.length), inputTokens: 100, outputTokens: 10 };
  }
}

/** A model step checking each customer through `provider`, and a code step reporting the verdicts. */
function checked(provider: string): WorkflowDefinition {
  return {
    name: 'checks',
    source: () => CUSTOMERS,
    steps: [
      {
        kind: 'model',
        name: 'check',
        version: '1',
        items: 'source',
        concurrency: 1,
        model: { provider, name: 'stand-in-1' },
        prompt: ({ key }: ItemInput) => `check ${key}`,
        output: z.object({ ok: z.boolean() }) as z.ZodType<Json>,
      },
      {
        kind: 'code',
        name: 'report',
        version: '1',
        items: 'source',
        reads: [{ step: 'check', items: 'same' }],
        run: ({ key, inputs }) => `${key}: ${JSON.stringify(inputs.check?.[key])}`,
      },
    ],
  };
}

describe('retries, crashes and defects', () => {
  it('retries transient errors, then crashes resumably when the retry budget is spent', async () => {
    let overloaded = true;
    const model = new ScriptedModel((request) => {
      if (request.prompt === 'check c3' && overloaded) throw new TransientError('529 overloaded', { status: 529 });
      return '{"ok": true}';
    });
    const events: WorkflowEvent[] = [];
    const first = await startRun(
      checked('stand-in'),
      options({ providers: { 'stand-in': model }, retry: { runBudget: 3 }, onEvent: (event) => events.push(event) }),
    );
    expect(first.run.state).toBe('crashed');
    expect(first.run.message).toMatch(
      /^crashed at check item c3: 529 overloaded \(the run's retry budget of 3 retries is spent\)/,
    );
    expect(events.filter((event) => event.type === 'item.retry')).toHaveLength(3);
    // c1 and c2 were committed before the crash; c4 never started.
    expect(model.prompts).toEqual(['check c1', 'check c2', 'check c3', 'check c3', 'check c3', 'check c3']);
    expect((await store.getRun(first.run.id))?.state).toBe('crashed');

    overloaded = false;
    const resumed = await resumeRun(checked('stand-in'), first.run.id, options({ providers: { 'stand-in': model } }));
    expect(resumed.run.state).toBe('succeeded');
    expect(resumed.run.message).toBeUndefined();
    expect((await store.getRun(first.run.id))?.message).toBeUndefined();
    expect(model.prompts.slice(6)).toEqual(['check c3', 'check c4']);
  });

  it('does not retry a defect: the item fails, the others go on, its downstream is blocked', async () => {
    const model = new ScriptedModel((request) => (request.prompt === 'check c2' ? '{"ok": "maybe"}' : '{"ok": true}'));
    const run = await startRun(checked('stand-in'), options({ providers: { 'stand-in': model } }));
    expect(run.run.state).toBe('failed');
    expect(run.run.message).toMatch(
      /1 item\(s\) failed, 1 blocked by a failed upstream item; first: step check item c2: the model's answer does not match the output schema/,
    );
    expect(model.prompts.filter((prompt) => prompt === 'check c2')).toHaveLength(1);
    expect(run.steps.map((step) => [step.step, step.computed, step.failed, step.blocked])).toEqual([
      ['check', 3, 1, 0],
      ['report', 3, 0, 1],
    ]);
    const items = await store.listRunItems(run.run.id, 'check');
    expect(items.find((item) => item.item === 'c2')).toMatchObject({ status: 'failed', tries: 1 });
  });
});

describe('definitions', () => {
  it('refuses a read of a later step, a missing provider and a missing parameter before running anything', async () => {
    const bad: WorkflowDefinition = {
      name: 'bad',
      steps: [
        { kind: 'code', name: 'a', version: '1', items: 'single', reads: [{ step: 'b', items: 'same' }], run: () => 1 },
        { kind: 'code', name: 'b', version: '1', items: 'single', run: () => 2 },
      ],
    };
    await expect(startRun(bad, options())).rejects.toThrow(WorkflowDefinitionError);
    await expect(startRun(bad, options())).rejects.toThrow(/reads "b", which is not an earlier step/);
    await expect(startRun(checked('nowhere'), options())).rejects.toThrow(/model provider "nowhere"/);
    const params: WorkflowDefinition = {
      name: 'params',
      steps: [{ kind: 'code', name: 'a', version: '1', items: 'single', params: ['month'], run: () => 1 }],
    };
    await expect(startRun(params, options())).rejects.toThrow(/parameter "month"/);
    expect(await store.listRuns()).toEqual([]);
  });
});

describe('effect steps', () => {
  /** A letter step (its text from `wording`) and a send step that records each send. */
  function mailing(wording: string, sent: string[], refuse?: string): WorkflowDefinition {
    return {
      name: 'mailing',
      params: { month: '2026-10' },
      source: () => CUSTOMERS,
      steps: [
        { kind: 'code', name: 'letter', version: wording, items: 'source', run: ({ key }) => `${wording} ${key}` },
        {
          kind: 'effect',
          name: 'send',
          version: '1',
          items: 'source',
          params: ['month'],
          reads: [{ step: 'letter', items: 'same' }],
          key: ({ key, params }) => `letter:${key}:${String(params.month)}`,
          perform: async ({ key }, idempotencyKey) => {
            if (key === refuse) throw new DefectError(`mailbox of ${key} does not exist`);
            sent.push(idempotencyKey);
            return { messageId: `m-${sent.length}` };
          },
        },
      ],
    };
  }

  it('sends each item once, and never again when a rerun changes what it would send', async () => {
    const ledger = openSqliteEffectLedger(':memory:');
    try {
      const sent: string[] = [];
      const first = await startRun(mailing('Hello', sent), options({ ledger }));
      expect(first.run.state).toBe('succeeded');
      expect(sent).toEqual(CUSTOMERS.map((key) => `letter:${key}:2026-10`));
      // The plan knows it: the sends would run again, but the ledger has every one done.
      const plan = await planResume(mailing('Dear', sent), { store, run: first.run.id, ledger });
      const sends = plan.steps.find((step) => step.step === 'send');
      expect([(sends?.willRun.items ?? 0) + (sends?.mayRun ?? 0), sends?.alreadyDone, sends?.cost.items]).toEqual([
        4, 4, 0,
      ]);
      const again = await resumeRun(mailing('Dear', sent), first.run.id, options({ ledger }));
      expect(again.steps.map((step) => [step.step, step.computed])).toEqual([
        ['letter', 4],
        ['send', 4],
      ]);
      // The letters changed, so the send items ran again, but the ledger found every key done.
      expect(sent).toHaveLength(4);
      const [output] = (
        await store.getOutputs([(await store.listRunItems(first.run.id, 'send'))[0]?.fingerprint ?? ''])
      ).values();
      expect(output?.output).toEqual({ key: 'letter:c1:2026-10', result: { messageId: 'm-1' } });
      expect((await ledger.list({ state: 'done' })).length).toBe(4);
    } finally {
      await ledger.close();
    }
  });

  it('fails an item whose effect was refused, and needs a ledger to run at all', async () => {
    const ledger = openSqliteEffectLedger(':memory:');
    try {
      const sent: string[] = [];
      const run = await startRun(mailing('Hello', sent, 'c2'), options({ ledger }));
      expect(run.run.state).toBe('failed');
      expect(run.run.message).toMatch(
        /step send item c2: effect letter:c2:2026-10 was refused: mailbox of c2 does not exist/,
      );
      expect(sent).toHaveLength(3);
      expect((await ledger.get('letter:c2:2026-10'))?.state).toBe('failed');
    } finally {
      await ledger.close();
    }
    await expect(startRun(mailing('Hello', []), options())).rejects.toThrow(
      /performs effects, but no effects ledger is open/,
    );
  });
});

describe('invalidations', () => {
  it('recompute an invalidated step on resume; unchanged outputs cut off what reads them', async () => {
    const calls = new Calls();
    const first = await startRun(pipeline(calls, '2'), options());
    await store.invalidate({
      run: first.run.id,
      step: 'labels',
      reason: 'the model misbehaved',
      at: '2026-11-29T10:00:00.000Z',
    });
    const plan = await planResume(pipeline(calls, '2'), { store, run: first.run.id });
    expect(plan.steps.find((step) => step.step === 'labels')?.willRun.reasons).toEqual({ invalidated: 4 });

    const after = new Calls();
    const resumed = await resumeRun(pipeline(after, '2'), first.run.id, options());
    expect(resumed.run.state).toBe('succeeded');
    expect(after.of('labels')).toEqual(CUSTOMERS);
    // The labels came out the same: nothing that reads them ran again.
    expect(after.of('totals')).toEqual([]);
    expect(after.of('letter')).toEqual([]);
    // Once recomputed, the invalidation holds no more work.
    expect((await planResume(pipeline(after, '2'), { store, run: first.run.id })).total.certain.usd).toBe(0);
    expect(planExitCode(await planResume(pipeline(after, '2'), { store, run: first.run.id }))).toBe(0);
  });
});
