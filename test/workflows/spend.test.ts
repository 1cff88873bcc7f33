/**
 * What a run spends (issue 23 item 2): every try of every item a drive computes counts — a retried
 * item's failed tries, a failed item's refused answer, an item out of tries — per step and per drive,
 * summed over the start and each resume, with dollars at each drive's prices and beside each drive's
 * plan; a figure nobody reported is unknown, never zero. A fake provider on a fake clock makes every
 * figure exact: each call takes 1 s.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ResumeStore } from '../../src/store/resume-store.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import type { ModelProvider, ModelRequest, WorkflowDefinition } from '../../src/workflows/define.js';
import { TransientError } from '../../src/workflows/errors.js';
import { planResume } from '../../src/workflows/plan.js';
import { resumeRun, startRun, type WorkflowEvent, type WorkflowOptions } from '../../src/workflows/run.js';
import { planEstimate, summarizeSpend } from '../../src/workflows/spend.js';

let store: ResumeStore;
beforeEach(() => {
  store = openSqliteResumeStore(':memory:');
});
afterEach(async () => {
  await store.close();
});

const START = Date.parse('2026-11-02T09:00:00.000Z');
/** $1,000 a million input tokens and $10,000 a million output tokens: 100 in and 20 out cost $0.30. */
const PRICES = { m1: { inputPerMTok: 1000, outputPerMTok: 10_000 } };

/** A clock that only the model moves: each call takes 1 s. */
class Clock {
  ms = START;
  readonly now = () => this.ms;
}

/**
 * A model step `label` (one item at a time, so each try's time is its own) over c1…c4, version
 * `version` in its prompt so a new version changes every output, and a code step `total` reading it.
 */
function labelled(version: string): WorkflowDefinition {
  return {
    name: 'labels',
    source: () => ['c1', 'c2', 'c3', 'c4'],
    steps: [
      {
        kind: 'model',
        name: 'label',
        version,
        items: 'source',
        model: { provider: 'fake', name: 'm1' },
        prompt: ({ key }) => `label ${key} v${version}`,
        output: z.strictObject({ label: z.string() }),
        concurrency: 1,
        estimate: { secondsPerItem: 1, inputTokens: 100, outputTokens: 20 },
      },
      {
        kind: 'code',
        name: 'total',
        version: '1',
        items: 'source',
        reads: [{ step: 'label', items: 'same' }],
        run: ({ key, inputs }) => `${key}: ${(inputs.label?.[key] as { label: string } | undefined)?.label}`,
      },
    ],
  };
}

/** Answers `{"label": prompt}` with 100 tokens in and 20 out, after `script` had its say about the call. */
class FakeModel implements ModelProvider {
  readonly calls: string[] = [];
  constructor(
    private readonly clock: Clock,
    private readonly script: (prompt: string, call: number) => string | undefined = () => undefined,
  ) {}
  async complete(request: ModelRequest) {
    this.clock.ms += 1000;
    this.calls.push(request.prompt);
    const call = this.calls.filter((prompt) => prompt === request.prompt).length;
    const text = this.script(request.prompt, call) ?? JSON.stringify({ label: request.prompt });
    return { text, inputTokens: 100, outputTokens: 20 };
  }
}

function options(clock: Clock, model: ModelProvider, extra: Partial<WorkflowOptions> = {}): WorkflowOptions {
  return {
    store,
    providers: { fake: model },
    prices: PRICES,
    now: clock.now,
    sleep: async () => {},
    random: () => 0,
    ...extra,
  };
}

describe('a run’s spend', () => {
  it('counts every try of a failed, a retried and a replaced item, per step and over drives, beside the plans', async () => {
    const clock = new Clock();
    // c2's answer does not match the schema (a defect that used its tokens); c3 is overloaded twice,
    // once with no tokens reported and once with the 50 input tokens its provider said it used.
    const first = new FakeModel(clock, (prompt, call) => {
      if (prompt === 'label c2 v1') return '{"label": 7}';
      if (prompt === 'label c3 v1' && call === 1) throw new TransientError('529 overloaded', { status: 529 });
      if (prompt === 'label c3 v1' && call === 2) {
        throw new TransientError('529 overloaded', { status: 529, spent: { inputTokens: 50, outputTokens: 0 } });
      }
      return undefined;
    });
    const events: WorkflowEvent[] = [];
    const planned = planEstimate(await planResume(labelled('1'), { store, prices: PRICES }));
    const started = await startRun(
      labelled('1'),
      options(clock, first, { plan: planned, onEvent: (event) => events.push(event) }),
    );
    expect(started.run.state).toBe('failed');
    const id = started.run.id;

    // The events carry each item's tries: the failed one's refused answer, the retried one's three.
    expect(events.find((event) => event.type === 'item.failed')).toEqual({
      type: 'item.failed',
      step: 'label',
      item: 'c2',
      error: expect.stringMatching(/does not match the output schema/),
      spent: { tries: 1, durationMs: 1000, inputTokens: 100, outputTokens: 20 },
    });
    expect(events.find((event) => event.type === 'item.done' && event.item === 'c3')).toEqual({
      type: 'item.done',
      step: 'label',
      item: 'c3',
      spent: { tries: 3, durationMs: 3000, inputTokens: 150, outputTokens: 20, unreportedTokens: 1 },
    });

    const afterFirst = await store.listSpend([id]);
    expect(afterFirst.map((row) => [row.drive, row.step, row.items, row.failed, row.tries, row.itemMs])).toEqual([
      [1, 'label', 4, 1, 6, 6000],
      [1, 'total', 3, 0, 3, 0],
    ]);
    expect(afterFirst[0]).toMatchObject({
      model: 'm1',
      price: PRICES.m1,
      inputTokens: 450,
      outputTokens: 80,
      unreportedTokens: 1,
      unreportedItems: 0,
      wallMs: 6000,
      planned: { items: 4, inputTokens: 400, outputTokens: 80, usd: 1.2, hours: 4 / 3600 },
    });

    // The fix: version 2 answers every item, replacing the three outputs the run had.
    const fixed = new FakeModel(clock);
    const replan = planEstimate(await planResume(labelled('2'), { store, run: id, prices: PRICES }));
    const resumed = await resumeRun(labelled('2'), id, options(clock, fixed, { plan: replan }));
    expect(resumed.run.state).toBe('succeeded');
    expect(fixed.calls).toHaveLength(4);
    const replaced = await store.listRunItems(id, 'label');
    expect(replaced.filter((item) => item.status === 'done' && item.replaced !== undefined)).toHaveLength(3);

    const summary = summarizeSpend(await store.listSpend([id]));
    expect(summary.drives).toBe(2);
    const [label, total] = summary.steps;
    expect(label).toEqual({
      step: 'label',
      model: 'm1',
      spent: {
        items: 8,
        failed: 1,
        tries: 10,
        // One try of drive 1 reported no tokens: the tokens and dollars are unknown, the rest known.
        inputTokens: null,
        outputTokens: null,
        usd: null,
        itemHours: 10_000 / 3_600_000,
        hours: 10_000 / 3_600_000,
      },
      known: { inputTokens: 850, outputTokens: 160, usd: expect.closeTo(0.85 + 1.6, 9), itemHours: 10_000 / 3_600_000 },
      unknown: ['1 try of a model reported no tokens'],
      planned: {
        latest: { items: 4, inputTokens: 400, outputTokens: 80, usd: expect.closeTo(1.2, 9), hours: 4 / 3600 },
        total: { items: 8, inputTokens: 800, outputTokens: 160, usd: expect.closeTo(2.4, 9), hours: 8 / 3600 },
      },
    });
    expect(total).toMatchObject({
      step: 'total',
      spent: { items: 7, failed: 0, tries: 7, inputTokens: 0, outputTokens: 0, usd: 0 },
      unknown: [],
    });
    expect(summary.total.spent).toMatchObject({ items: 15, tries: 17, usd: null });
    expect(summary.total.known.usd).toBeCloseTo(2.45, 9);
    expect(summary.total.planned.total?.usd).toBeCloseTo(2.4, 9);
  });

  it('counts the tries of an item that ran out of them, and a model without a price as unknown dollars', async () => {
    const clock = new Clock();
    const model = new FakeModel(clock, (prompt) => {
      if (prompt === 'label c2 v1') {
        throw new TransientError('529 overloaded', { status: 529, spent: { inputTokens: 10, outputTokens: 0 } });
      }
      return undefined;
    });
    const crashed = await startRun(labelled('1'), options(clock, model, { prices: {}, retry: { maxTriesPerItem: 3 } }));
    expect(crashed.run.state).toBe('crashed');
    const [label] = await store.listSpend([crashed.run.id]);
    // c1 once, c2 three times out of tries; c3 and c4 never started. Nothing was planned.
    expect(label).toMatchObject({ items: 2, failed: 0, tries: 4, inputTokens: 130, outputTokens: 20, itemMs: 4000 });
    expect(label?.planned).toBeUndefined();
    expect(label?.price).toBeUndefined();
    const summary = summarizeSpend(await store.listSpend([crashed.run.id]));
    expect(summary.steps[0]?.spent).toMatchObject({ inputTokens: 130, outputTokens: 20, usd: null });
    expect(summary.steps[0]?.unknown).toEqual(['no price for model m1 (drive 1)']);
    expect(summary.total.planned).toEqual({ latest: null, total: null });
  });

  it("leaves an agent step's dollars unknown: its executions' model cost is theirs", () => {
    const row = {
      run: 'r',
      drive: 1,
      step: 'fix',
      kind: 'agent' as const,
      position: 0,
      startedAt: new Date(START).toISOString(),
      items: 2,
      failed: 0,
      tries: 2,
      itemMs: 7_200_000,
      inputTokens: 0,
      outputTokens: 0,
      unreportedTokens: 0,
      unreportedItems: 0,
      wallMs: 3_600_000,
    };
    const [fix] = summarizeSpend([row]).steps;
    expect(fix?.spent).toEqual({
      items: 2,
      failed: 0,
      tries: 2,
      inputTokens: 0,
      outputTokens: 0,
      usd: null,
      itemHours: 2,
      hours: 1,
    });
    expect(fix?.unknown).toEqual([
      "2 agent item(s): their executions' model cost is theirs (`harmflow ls`), not counted here",
    ]);
  });

  it('says a run with no spend recorded spent an unknown amount', () => {
    const summary = summarizeSpend([]);
    expect(summary.total.spent.usd).toBeNull();
    expect(summary.total.unknown).toEqual(['no spend recorded: the run is from a HarmFlow that did not record it']);
  });
});
