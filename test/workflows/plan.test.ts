import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NotFoundError, UsageError } from '../../src/core/errors.js';
import type { ResumeStore } from '../../src/store/resume-store.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import type {
  Estimate,
  Json,
  ModelProvider,
  ModelRequest,
  ModelStep,
  Read,
  RunView,
  WorkflowDefinition,
} from '../../src/workflows/define.js';
import { TransientError } from '../../src/workflows/errors.js';
import { type Plan, type PlanOptions, planExitCode, planResume, type StepPlan } from '../../src/workflows/plan.js';
import { resumeRun, startRun, type WorkflowOptions } from '../../src/workflows/run.js';

let store: ResumeStore;
beforeEach(() => {
  store = openSqliteResumeStore(':memory:');
});
afterEach(async () => {
  await store.close();
});

const START = Date.parse('2026-11-01T09:00:00Z');
/** $3 and $15 per million tokens in and out: the prices of the case. */
const PRICES = { 'stand-in-1': { inputPerMTok: 3, outputPerMTok: 15 } };

/**
 * A deterministic stand-in model: each call reports that it took `seconds(prompt)` and
 * `tokens(prompt)`; `fail(prompt)` makes it answer "overloaded" or a defect.
 */
class StandIn implements ModelProvider {
  fail: (prompt: string) => 'overloaded' | 'defect' | undefined = () => undefined;
  constructor(
    private readonly seconds: (prompt: string) => number,
    private readonly tokens: (prompt: string) => readonly [number, number],
  ) {}
  async complete(request: ModelRequest) {
    const failure = this.fail(request.prompt);
    if (failure === 'overloaded') throw new TransientError('529 overloaded', { status: 529 });
    const [inputTokens, outputTokens] = this.tokens(request.prompt);
    const text = failure === 'defect' ? 'not json' : JSON.stringify({ text: request.prompt });
    return { text, inputTokens, outputTokens, durationMs: this.seconds(request.prompt) * 1000 };
  }
}

const Answer = z.object({ text: z.string() }) as z.ZodType<Json>;

function modelStep(name: string, version: string, reads: readonly Read[], estimate: Estimate): ModelStep {
  return {
    kind: 'model',
    name,
    version,
    items: 'source',
    concurrency: 1,
    reads,
    model: { provider: 'stand-in', name: 'stand-in-1' },
    prompt: ({ key, inputs }) => `${name} ${key} ${JSON.stringify(inputs)}`,
    output: Answer,
    estimate,
  };
}

const CUSTOMERS = Array.from({ length: 10 }, (_, index) => `c${String(index + 1).padStart(2, '0')}`);

/**
 * A small statement pipeline: `amounts` (code), `labels` (model), `totals` (code, from both),
 * `letter` (model, from the totals) and `check` (model, the letter against the totals).
 */
function pipeline(versions: { labels?: string; letter?: string } = {}): WorkflowDefinition {
  return {
    name: 'statements',
    params: { month: '2026-10' },
    source: () => CUSTOMERS,
    steps: [
      {
        kind: 'code',
        name: 'amounts',
        version: '1',
        items: 'source',
        params: ['month'],
        run: ({ key }) => [key.length, -1],
      },
      {
        ...modelStep('labels', versions.labels ?? '1', [{ step: 'amounts', items: 'same' }], LABELS),
        concurrency: 2,
      },
      {
        kind: 'code',
        name: 'totals',
        version: '1',
        items: 'source',
        reads: [
          { step: 'amounts', items: 'same' },
          { step: 'labels', items: 'same' },
        ],
        run: ({ key, inputs }) => ({ key, labels: inputs.labels?.[key] ?? null }),
        estimate: { secondsPerItem: 0.36 },
      },
      modelStep('letter', versions.letter ?? '1', [{ step: 'totals', items: 'same' }], LETTER),
      modelStep(
        'check',
        '1',
        [
          { step: 'letter', items: 'same' },
          { step: 'totals', items: 'same' },
        ],
        CHECK,
      ),
    ],
  };
}
const LABELS: Estimate = { secondsPerItem: 36, inputTokens: 5000, outputTokens: 1000 };
const LETTER: Estimate = { secondsPerItem: 3.6, inputTokens: 3000, outputTokens: 400 };
const CHECK: Estimate = { secondsPerItem: 4.5, inputTokens: 4000, outputTokens: 100 };

/** The stand-in for `pipeline`: 2 s and 1,000/100 tokens a call (unlike the estimates, to tell them apart). */
function standIn(): StandIn {
  return new StandIn(
    () => 2,
    () => [1000, 100],
  );
}

function runOptions(model: StandIn, extra: Partial<WorkflowOptions> = {}): WorkflowOptions {
  return {
    store,
    providers: { 'stand-in': model },
    sleep: async () => {},
    random: () => 0,
    // A clock that stands still: code steps measure 0 s, model calls the duration the stand-in reports.
    now: () => START,
    ...extra,
  };
}

async function plan(definition: WorkflowDefinition, run: string, options: Partial<PlanOptions> = {}): Promise<Plan> {
  return planResume(definition, { store, run, prices: PRICES, now: () => START, ...options });
}

function stepOf(result: Plan, name: string): StepPlan {
  const found = result.steps.find((step) => step.step === name);
  if (found === undefined) throw new Error(`no step ${name} in the plan`);
  return found;
}

/** [step, cached, will run, may run] for every step. */
function counts(result: Plan): [string, number, number, number][] {
  return result.steps.map((step) => [step.step, step.cached, step.willRun.items, step.mayRun]);
}

describe('planResume: what a resume would do', () => {
  it('finds nothing to do after a successful run', async () => {
    const model = standIn();
    const { run } = await startRun(pipeline(), runOptions(model));
    expect(run.state).toBe('succeeded');
    const result = await plan(pipeline(), run.id);
    expect(counts(result)).toEqual([
      ['amounts', 10, 0, 0],
      ['labels', 10, 0, 0],
      ['totals', 10, 0, 0],
      ['letter', 10, 0, 0],
      ['check', 10, 0, 0],
    ]);
    expect(result.total).toMatchObject({ usd: 0, hours: 0, certain: { usd: 0, hours: 0 } });
    expect(planExitCode(result)).toBe(0);
  });

  it('a version bump reruns that step; what reads it may run; assumed changes make them will-run', async () => {
    const model = standIn();
    const { run } = await startRun(pipeline(), runOptions(model));

    const bumped = await plan(pipeline({ labels: '2' }), run.id);
    expect(counts(bumped)).toEqual([
      ['amounts', 10, 0, 0],
      ['labels', 0, 10, 0],
      ['totals', 0, 0, 10],
      ['letter', 0, 0, 10],
      ['check', 0, 0, 10],
    ]);
    expect(stepOf(bumped, 'labels').willRun.reasons).toEqual({ version: 10 });
    expect(planExitCode(bumped)).toBe(14);

    // Three totals come out different: their letters and checks will run, the rest stay (early cutoff).
    const assumed = await plan(pipeline({ labels: '2' }), run.id, { assumeChanged: { totals: 3 } });
    expect(counts(assumed)).toEqual([
      ['amounts', 10, 0, 0],
      ['labels', 0, 10, 0],
      ['totals', 0, 3, 7],
      ['letter', 7, 3, 0],
      ['check', 7, 3, 0],
    ]);
    expect(stepOf(assumed, 'totals')).toMatchObject({ assumedChanged: 3, willRun: { reasons: { upstream: 3 } } });
    expect(stepOf(assumed, 'letter')).toMatchObject({ estimated: true, willRun: { reasons: { upstream: 3 } } });
    expect(stepOf(assumed, 'labels').estimated).toBe(false);

    // None changes: everything below the fixed step keeps its output.
    const none = await plan(pipeline({ labels: '2' }), run.id, { assumeChanged: { labels: 0 } });
    expect(counts(none).slice(2)).toEqual([
      ['totals', 10, 0, 0],
      ['letter', 10, 0, 0],
      ['check', 10, 0, 0],
    ]);
  });

  it('invalidating a step reruns all its items; an assumption past what may change is refused', async () => {
    const model = standIn();
    const { run } = await startRun(pipeline(), runOptions(model));
    const result = await plan(pipeline(), run.id, { invalidate: ['letter'] });
    expect(counts(result).slice(3)).toEqual([
      ['letter', 0, 10, 0],
      ['check', 0, 0, 10],
    ]);
    expect(stepOf(result, 'letter').willRun.reasons).toEqual({ invalidated: 10 });
    await expect(plan(pipeline(), run.id, { assumeChanged: { totals: 1 } })).rejects.toThrow(
      /assume-changed totals=1: only 0 of its items/,
    );
    await expect(plan(pipeline(), run.id, { invalidate: ['nope'] })).rejects.toThrow(UsageError);
    await expect(plan(pipeline(), 'no-such-run')).rejects.toThrow(NotFoundError);
  });

  it('after a crash and a defect: unfinished items are new, the failed one failed, its reader new', async () => {
    const model = standIn();
    model.fail = (prompt) =>
      prompt.startsWith('letter c02') ? 'defect' : prompt.startsWith('check c05') ? 'overloaded' : undefined;
    const { run } = await startRun(pipeline(), runOptions(model, { retry: { runBudget: 0 } }));
    expect(run.message).toMatch(/^crashed at check item c05/);
    const result = await plan(pipeline(), run.id);
    expect(counts(result)).toEqual([
      ['amounts', 10, 0, 0],
      ['labels', 10, 0, 0],
      ['totals', 10, 0, 0],
      ['letter', 9, 1, 0],
      ['check', 3, 7, 0],
    ]);
    expect(stepOf(result, 'letter').willRun.reasons).toEqual({ failed: 1 });
    // c02's check never ran (its letter failed), c05 crashed, c06–c10 never started.
    expect(stepOf(result, 'check').willRun.reasons).toEqual({ new: 7 });
  });
});

describe('planResume: items from other runs and items not listable yet', () => {
  it('counts what another run stored as cached, and takes reasons from the newest stored output', async () => {
    const first = await startRun(pipeline(), runOptions(standIn()));
    // A second run that stopped after its amounts: only those items are its own.
    const stamp = new Date(START).toISOString();
    const run = { ...first.run, id: 'second', state: 'crashed' as const, createdAt: stamp, updatedAt: stamp };
    await store.createRun(run);
    const amounts = await store.listRunItems(first.run.id, 'amounts');
    await store.commitItems(amounts.map((item) => ({ item: { ...item, run: run.id } })));

    // A resume would reuse the first run's outputs: nothing to compute.
    const same = await plan(pipeline(), run.id);
    expect(counts(same).map(([step, cached]) => [step, cached])).toEqual([
      ['amounts', 10],
      ['labels', 10],
      ['totals', 10],
      ['letter', 10],
      ['check', 10],
    ]);
    expect(planExitCode(same)).toBe(0);

    const bumped = await plan(pipeline({ letter: '2' }), run.id);
    expect(stepOf(bumped, 'letter').willRun.reasons).toEqual({ version: 10 });
  });

  it("says so when a step's items cannot be listed until an upstream output exists", async () => {
    let broken = true;
    const definition: WorkflowDefinition = {
      name: 'listing',
      steps: [
        {
          kind: 'code',
          name: 'list',
          version: '1',
          items: 'single',
          run: () => {
            if (broken) throw new Error('no listing today');
            return ['a', 'b', 'c'];
          },
        },
        {
          kind: 'code',
          name: 'each',
          version: '1',
          items: (run) => run.output('list', 'all') as string[],
          reads: [{ step: 'list', items: 'all' }],
          run: ({ key }) => key.toUpperCase(),
          estimate: { secondsPerItem: 1 },
        },
      ],
    };
    // The run stops where `each` cannot list its items.
    await expect(startRun(definition, { store })).rejects.toThrow(/step list has no output for item all/);
    const [run] = await store.listRuns();
    if (run === undefined) throw new Error('no run stored');
    const result = await plan(definition, run.id);
    expect(stepOf(result, 'list').willRun.reasons).toEqual({ failed: 1 });
    expect(stepOf(result, 'each')).toMatchObject({ items: 0, willRun: { items: 0 } });
    expect(stepOf(result, 'each').notes).toEqual([
      'its items cannot be listed yet (step list has no stored output for item all): none counted (declare estimate.items to count them)',
    ]);
    // With the count declared, the plan counts them, new, and costs them.
    const declared: WorkflowDefinition = {
      ...definition,
      steps: definition.steps.map((step) =>
        step.name === 'each' ? { ...step, estimate: { secondsPerItem: 1, items: 3 } } : step,
      ),
    };
    expect(stepOf(await plan(declared, run.id), 'each')).toMatchObject({
      items: 3,
      willRun: { items: 3, reasons: { new: 3 } },
      estimated: true,
      cost: { hours: 3 / 3600 },
      notes: [
        "its items cannot be listed yet (step list has no stored output for item all): 3 counted from the step's estimate",
      ],
    });

    broken = false;
    await resumeRun(definition, run.id, { store });
    expect(counts(await plan(definition, run.id))).toEqual([
      ['list', 1, 0, 0],
      ['each', 3, 0, 0],
    ]);
  });
});

describe('planResume: dollars, hours, the full rerun, the deadline and the budget', () => {
  it('costs from the estimates until measured history exists, then from the history', async () => {
    const model = standIn();
    model.fail = (prompt) => (prompt.startsWith('labels') ? 'overloaded' : undefined);
    const { run } = await startRun(pipeline(), runOptions(model, { retry: { runBudget: 0 } }));
    expect(run.state).toBe('crashed');

    const fromEstimates = await plan(pipeline(), run.id);
    expect(counts(fromEstimates).map(([step, , willRun]) => [step, willRun])).toEqual([
      ['amounts', 0],
      ['labels', 10],
      ['totals', 10],
      ['letter', 10],
      ['check', 10],
    ]);
    const labels = stepOf(fromEstimates, 'labels');
    expect(labels.rate).toMatchObject({ secondsFrom: 'estimate', tokensFrom: 'estimate', samples: 0 });
    // 10 × (5,000 × $3 + 1,000 × $15) / 1M; 5 rounds of 2 at 36 s.
    expect(labels.cost).toEqual({ items: 10, inputTokens: 50_000, outputTokens: 10_000, usd: 0.3, hours: 0.05 });
    expect(stepOf(fromEstimates, 'totals').cost).toMatchObject({ usd: 0, inputTokens: 0 });
    expect(stepOf(fromEstimates, 'totals').cost.hours).toBeCloseTo(0.001, 10);
    expect(stepOf(fromEstimates, 'letter').cost.usd).toBeCloseTo(0.15, 10);
    expect(stepOf(fromEstimates, 'check').cost.hours).toBeCloseTo(0.0125, 10);
    expect(fromEstimates.total.usd).toBeCloseTo(0.3 + 0.15 + 0.135, 10);
    expect(fromEstimates.total.hours).toBeCloseTo(0.05 + 0.001 + 0.01 + 0.0125, 10);

    // Without a price for its model, a model step's dollars are unknown, not guessed.
    const unpriced = await plan(pipeline(), run.id, { prices: {} });
    expect(stepOf(unpriced, 'labels').cost.usd).toBeNull();
    expect(unpriced.total).toMatchObject({ usd: 0, unknown: { usd: ['labels', 'letter', 'check'], hours: [] } });

    model.fail = () => undefined;
    await resumeRun(pipeline(), run.id, runOptions(model));
    const fromHistory = await plan(pipeline({ letter: '2' }), run.id);
    const letter = stepOf(fromHistory, 'letter');
    expect(letter.rate).toMatchObject({ secondsFrom: 'measured', tokensFrom: 'measured', samples: 10 });
    expect(letter.rate).toMatchObject({ seconds: 2, inputTokens: 1000, outputTokens: 100 });
    // 10 × (1,000 × $3 + 100 × $15) / 1M; 10 calls of 2 s one at a time.
    expect(letter.certainCost.usd).toBeCloseTo(0.045, 10);
    expect(letter.certainCost.hours).toBeCloseTo(20 / 3600, 10);
  });

  it('sets the targeted plan beside a full rerun, against a deadline and a budget', async () => {
    const model = standIn();
    const { run } = await startRun(pipeline(), runOptions(model));
    const fixed = pipeline({ labels: '2' });
    const options = { assumeChanged: { totals: 2 }, deadline: new Date(START + 3600_000) };
    const result = await plan(fixed, run.id, options);
    expect(result.full.from).toBe('labels');
    expect(result.full.steps.map((step) => [step.step, step.cost.items])).toEqual([
      ['labels', 10],
      ['totals', 10],
      ['letter', 10],
      ['check', 10],
    ]);
    // Measured: $0.0045 and 2 s a model call; totals' code measured 0 s.
    expect(result.full.total.usd).toBeCloseTo(3 * 10 * 0.0045, 10);
    expect(result.full.total.hours).toBeCloseTo((5 * 2 + 10 * 2 + 10 * 2) / 3600, 10);
    expect(result.total.usd).toBeCloseTo((10 + 2 + 2) * 0.0045, 10);
    expect(result.total.usd).toBeLessThan(result.full.total.usd);
    expect(result.deadline).toEqual({ at: '2026-11-01T10:00:00.000Z', hoursLeft: 1, fits: true, fullFits: true });
    expect(planExitCode(result)).toBe(14);

    const fromAmounts = await plan(fixed, run.id, { ...options, fullFrom: 'amounts' });
    expect(fromAmounts.full.steps.map((step) => step.step)).toEqual(['amounts', 'labels', 'totals', 'letter', 'check']);

    const late = await plan(fixed, run.id, { ...options, deadline: new Date(START + 10_000) });
    expect(late.deadline).toMatchObject({ fits: false, fullFits: false });
    expect(planExitCode(late)).toBe(15);

    const past = await plan(fixed, run.id, { ...options, deadline: new Date(START - 3600_000) });
    expect(past.deadline?.hoursLeft).toBe(-1);
    expect(planExitCode(past)).toBe(15);

    const poor = await plan(fixed, run.id, { ...options, maxUsd: 0.05 });
    expect(poor.budget).toEqual({ maxUsd: 0.05, fits: false, fullFits: false });
    expect(planExitCode(poor)).toBe(15);
    const enough = await plan(fixed, run.id, { ...options, maxUsd: 0.1 });
    expect(enough.budget).toEqual({ maxUsd: 0.1, fits: true, fullFits: false });
    expect(planExitCode(enough)).toBe(14);
  });
});

describe("planResume: the issue's statements case", () => {
  const CUSTOMER_COUNT = 2000;
  const BATCHES = 1200;
  const keyOf = (index: number) => `c${String(index + 1).padStart(4, '0')}`;
  /** The batch holding a customer's transactions, found in what `pull` stored (a selector reading the run). */
  const batchesOf = (customer: string, run: RunView) => {
    const { batches } = run.output('pull', 'all') as { batches: string[] };
    return [batches[Math.floor(((Number(customer.slice(1)) - 1) * batches.length) / CUSTOMER_COUNT)] as string];
  };

  /** The steps 1–5 (review and send are not step kinds yet); one call at a time, as the hours are. */
  function statements(categorise: string): WorkflowDefinition {
    const customers = Array.from({ length: CUSTOMER_COUNT }, (_, index) => keyOf(index));
    return {
      name: 'statements',
      params: { month: '2026-10' },
      source: () => customers,
      steps: [
        {
          kind: 'code',
          name: 'pull',
          version: '1',
          items: 'single',
          params: ['month'],
          run: () => ({ batches: Array.from({ length: BATCHES }, (_, index) => `b${String(index).padStart(4, '0')}`) }),
        },
        {
          ...modelStep('categorise', categorise, [{ step: 'pull', items: 'all' }], {
            secondsPerItem: 9,
            inputTokens: 5000,
            outputTokens: 1000,
          }),
          items: (run) => (run.output('pull', 'all') as { batches: string[] }).batches,
          prompt: ({ key }) => `categorise ${key}`,
        },
        {
          kind: 'code',
          name: 'totals',
          version: '1',
          items: 'source',
          reads: [{ step: 'categorise', items: batchesOf }],
          run: ({ key, inputs }) => ({ key, from: inputs.categorise ?? null }),
        },
        modelStep('narratives', '1', [{ step: 'totals', items: 'same' }], LETTER),
        modelStep(
          'fact-check',
          '1',
          [
            { step: 'narratives', items: 'same' },
            { step: 'totals', items: 'same' },
          ],
          CHECK,
        ),
      ],
    };
  }

  it('invalidate categorise, assume 200 totals change: ≈$49 and ≈4 h against ≈$93 and 7.5 h', async () => {
    const model = new StandIn(
      (prompt) => (prompt.startsWith('categorise') ? 9 : prompt.startsWith('narratives') ? 3.6 : 4.5),
      (prompt) =>
        prompt.startsWith('categorise') ? [5000, 1000] : prompt.startsWith('narratives') ? [3000, 400] : [4000, 100],
    );
    model.fail = (prompt) => (prompt.startsWith('fact-check c1412') ? 'overloaded' : undefined);
    const { run } = await startRun(statements('1'), runOptions(model, { retry: { runBudget: 0 } }));
    expect(run.message).toMatch(/^crashed at fact-check item c1412/);

    const result = await plan(statements('2'), run.id, {
      invalidate: ['categorise'],
      assumeChanged: { totals: 200 },
      deadline: new Date(START + 26 * 3600_000),
    });
    expect(counts(result)).toEqual([
      ['pull', 1, 0, 0],
      ['categorise', 0, 1200, 0],
      ['totals', 0, 200, 1800],
      ['narratives', 1800, 200, 0],
      // The 589 never checked, and the changed ones among the 1,411 checked (200 × 1,411 / 2,000 ≈ 141).
      ['fact-check', 1270, 730, 0],
    ]);
    expect(stepOf(result, 'categorise').willRun.reasons).toEqual({ version: 1200, invalidated: 1200 });
    // An item with two reasons counts under both: 59 of the 589 never checked also read a changed total.
    expect(stepOf(result, 'fact-check').willRun.reasons).toEqual({ new: 589, upstream: 200 });

    const cost = (name: string) => stepOf(result, name).cost;
    expect(cost('categorise').usd).toBeCloseTo(36, 6);
    expect(cost('categorise').hours).toBeCloseTo(3, 6);
    expect(cost('narratives').usd).toBeCloseTo(3, 6);
    expect(cost('narratives').hours).toBeCloseTo(0.2, 6);
    expect(cost('fact-check').usd).toBeCloseTo(9.855, 6);
    expect(cost('fact-check').hours).toBeLessThan(1);
    expect(result.total.usd).toBeCloseTo(48.855, 6);
    expect(result.total.hours).toBeCloseTo(4.1125, 6);

    expect(result.full.from).toBe('categorise');
    expect(result.full.total.usd).toBeCloseTo(93, 6);
    expect(result.full.total.hours).toBeCloseTo(7.5, 6);
    expect(result.deadline).toMatchObject({ hoursLeft: 26, fits: true, fullFits: true });
    expect(planExitCode(result)).toBe(14);
  });
});
