/**
 * The live progress of `harmflow workflow run|resume`: its figures (done/total, items per minute,
 * spend, the ETA by the plan's model) from events at a fake clock, and the two outputs — a line
 * redrawn in place on a terminal, throttled, and plain periodic lines in a pipe — with fake timers.
 * The real CLI in both modes is workflow-progress-cli.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DriveProgress,
  formatClock,
  formatDuration,
  formatLiveLine,
  formatProgressLine,
} from '../../src/cli/workflow-progress.js';
import { openProgress, progressMode } from '../../src/cli/workflow-progress-output.js';
import type { StepPlan } from '../../src/workflows/plan.js';
import type { WorkflowEvent } from '../../src/workflows/run.js';

/** A plan's step with what progress reads: kind, model, concurrency, rate and hours. */
function step(
  name: string,
  kind: StepPlan['kind'],
  figures: { seconds: number | null; hours: number | null; concurrency?: number; model?: string; fixed?: number },
): StepPlan {
  const cost = { items: 0, inputTokens: 0, outputTokens: 0, usd: 0, hours: figures.hours };
  return {
    step: name,
    kind,
    ...(figures.model !== undefined && { model: figures.model }),
    items: 0,
    cached: 0,
    willRun: { items: 0, reasons: {} },
    mayRun: 0,
    estimated: false,
    concurrency: figures.concurrency ?? 1,
    rate: {
      samples: 10,
      seconds: figures.seconds,
      secondsFrom: figures.seconds === null ? 'unknown' : 'measured',
      fixedSeconds: figures.fixed ?? 0,
      inputTokens: null,
      outputTokens: null,
      tokensFrom: 'unknown',
    },
    cost,
    certainCost: cost,
    notes: [],
  };
}

const T0 = Date.UTC(2026, 11, 2, 14, 0, 0);
const PRICES = { haiku: { inputPerMTok: 1, outputPerMTok: 5 } };
/** fact-check: 30 s an item, 4 at a time; review (4 h of a person's time, not the drive's); send: 0.5 h. */
const PLAN = {
  steps: [
    step('totals', 'code', { seconds: 1, hours: 0 }),
    step('fact-check', 'model', { seconds: 30, hours: 6.7, concurrency: 4, model: 'haiku' }),
    step('review', 'review', { seconds: 7.2, hours: 4 }),
    step('send', 'effect', { seconds: 1, hours: 0.5 }),
  ],
};
const started: WorkflowEvent = { type: 'step.started', step: 'fact-check', items: 1000, cached: 200 };
const done = (item: string, durationMs = 20_000): WorkflowEvent => ({
  type: 'item.done',
  step: 'fact-check',
  item,
  spent: { tries: 1, durationMs, inputTokens: 1000, outputTokens: 200 },
});

describe('DriveProgress', () => {
  it("takes the plan's rate until items complete, then this drive's measured mean; adds the later steps' hours but a review's", () => {
    const progress = new DriveProgress(PLAN, PRICES);
    progress.apply(started, T0);
    // 800 to compute: 200 rounds of 4 × 30 s = 6,000 s, + send's 0.5 h.
    expect(progress.figures(T0)).toEqual({
      step: 'fact-check',
      done: 0,
      failed: 0,
      total: 800,
      perMinute: 0,
      usd: 0,
      etaMs: 6_000_000 + 1_800_000,
      at: T0,
    });
    for (let index = 0; index < 8; index += 1) progress.apply(done(`c-${index}`), T0 + 60_000);
    const figures = progress.figures(T0 + 60_000);
    // 792 left: 198 rounds × 20 s (the measured mean) = 3,960 s, + 1,800 s; 8 × (1,000 × $1 + 200 × $5)/M.
    expect(figures).toMatchObject({ done: 8, total: 800, perMinute: 8, etaMs: 3_960_000 + 1_800_000 });
    expect(figures?.usd).toBeCloseTo(0.016, 10);
    expect(formatProgressLine(figures as NonNullable<typeof figures>)).toBe(
      'fact-check: 8/800 done (1%), 8.0/min, $0.02 so far, ETA 1 h 36 min (15:37 UTC)',
    );
    // Items per minute over the step's elapsed time: 8 in 2 minutes.
    expect(progress.figures(T0 + 120_000)?.perMinute).toBe(4);
  });

  it('counts failures as done, with their spend and duration when the event carries them', () => {
    const progress = new DriveProgress(PLAN, PRICES);
    progress.apply(started, T0);
    progress.apply(done('c-1', 10_000), T0 + 1000);
    const failed = {
      type: 'item.failed',
      step: 'fact-check',
      item: 'c-2',
      error: 'not JSON',
      spent: { tries: 3, durationMs: 30_000, inputTokens: 1000, outputTokens: 200 },
    } as WorkflowEvent;
    progress.apply(failed, T0 + 2000);
    progress.apply({ type: 'item.failed', step: 'fact-check', item: 'c-3', error: 'refused' }, T0 + 2000);
    const figures = progress.figures(T0 + 60_000);
    expect(figures).toMatchObject({ done: 3, failed: 2 });
    // The mean of the two measured durations, 20 s: 797 left = 200 rounds.
    expect(figures?.etaMs).toBe(200 * 20_000 + 1_800_000);
    expect(figures?.usd).toBeCloseTo(0.004, 10);
    expect(formatProgressLine(figures as NonNullable<typeof figures>)).toMatch(
      /^fact-check: 3\/800 done \(0%, 2 failed\)/,
    );
  });

  it('says ? for a model without a price, for items without token figures, and for an ETA nothing supports', () => {
    const unpriced = new DriveProgress(PLAN, {});
    unpriced.apply(started, T0);
    unpriced.apply(done('c-1'), T0 + 1000);
    expect(unpriced.figures(T0 + 1000)?.usd).toBeNull();

    const cluster = new DriveProgress(PLAN, PRICES);
    cluster.apply(started, T0);
    cluster.apply({ type: 'item.done', step: 'fact-check', item: 'c-1', spent: { tries: 1 } }, T0 + 1000);
    // No duration measured: the plan's 30 s stand.
    expect(cluster.figures(T0 + 1000)).toMatchObject({ usd: null, etaMs: 200 * 30_000 + 1_800_000 });

    const unknown = {
      steps: [
        step('ask', 'model', { seconds: null, hours: null, concurrency: 2, model: 'haiku' }),
        step('after', 'code', { seconds: 1, hours: 0.25 }),
      ],
    };
    const progress = new DriveProgress(unknown, PRICES);
    progress.apply({ type: 'step.started', step: 'ask', items: 10, cached: 0 }, T0);
    const before = progress.figures(T0);
    expect(before?.etaMs).toBeNull();
    expect(formatProgressLine(before as NonNullable<typeof before>)).toBe(
      'ask: 0/10 done (0%), 0.0/min, $0.00 so far, ETA ?',
    );
    progress.apply({ ...done('q-1', 4000), step: 'ask' } as WorkflowEvent, T0 + 4000);
    // 9 left, 2 at a time: 5 rounds × 4 s, + the later step's quarter hour.
    expect(progress.figures(T0 + 4000)?.etaMs).toBe(20_000 + 900_000);

    const laterUnknown = {
      steps: [step('a', 'code', { seconds: 1, hours: 0 }), step('b', 'code', { seconds: null, hours: null })],
    };
    const blind = new DriveProgress(laterUnknown, {});
    blind.apply({ type: 'step.started', step: 'a', items: 3, cached: 0 }, T0);
    expect(blind.figures(T0)?.etaMs).toBeNull();
  });

  it("adds a step's fixed seconds until its first item completes", () => {
    const progress = new DriveProgress({ steps: [step('warm', 'code', { seconds: 2, hours: 0, fixed: 60 })] }, {});
    progress.apply({ type: 'step.started', step: 'warm', items: 3, cached: 0 }, T0);
    expect(progress.figures(T0)?.etaMs).toBe(66_000);
    progress.apply({ type: 'item.done', step: 'warm', item: 'a', spent: { tries: 1, durationMs: 2000 } }, T0 + 62_000);
    expect(progress.figures(T0 + 62_000)?.etaMs).toBe(4000);
  });

  it('shows nothing between steps, for a review step, or a step with nothing to compute', () => {
    const progress = new DriveProgress(PLAN, PRICES);
    expect(progress.figures(T0)).toBeUndefined();
    progress.apply({ type: 'step.started', step: 'review', items: 10, cached: 0 }, T0);
    expect(progress.figures(T0)).toBeUndefined();
    progress.apply({ type: 'step.started', step: 'totals', items: 10, cached: 10 }, T0);
    expect(progress.figures(T0)).toBeUndefined();
    progress.apply(started, T0);
    progress.apply(
      {
        type: 'step.ended',
        step: 'fact-check',
        items: 1000,
        computed: 0,
        cached: 200,
        failed: 0,
        blocked: 0,
        awaiting: 0,
      },
      T0,
    );
    expect(progress.figures(T0)).toBeUndefined();
  });
});

describe('formatting', () => {
  it('writes durations, clock times (with the date on another day) and a live line cut to the width', () => {
    expect(formatDuration(20_400)).toBe('20 s');
    expect(formatDuration(59_600)).toBe('1 min');
    expect(formatDuration(17 * 60_000)).toBe('17 min');
    expect(formatDuration(125 * 60_000)).toBe('2 h 05 min');
    expect(formatClock(T0, 32 * 60_000)).toBe('14:32 UTC');
    expect(formatClock(T0, 12 * 3_600_000)).toBe('2026-12-03 02:00 UTC');
    const figures = {
      step: 'fact-check',
      done: 365,
      failed: 0,
      total: 730,
      perMinute: 18.25,
      usd: 4.123,
      etaMs: 17 * 60_000,
      at: T0,
    };
    expect(formatProgressLine(figures)).toBe(
      'fact-check: 365/730 done (50%), 18.3/min, $4.12 so far, ETA 17 min (14:17 UTC)',
    );
    expect(formatLiveLine(figures, 200)).toBe(
      `fact-check ${'█'.repeat(10)}${'░'.repeat(10)} 365/730 done (50%), 18.3/min, $4.12 so far, ETA 17 min (14:17 UTC)`,
    );
    const cut = formatLiveLine(figures, 40);
    expect(cut).toHaveLength(39);
    expect(cut.endsWith('…')).toBe(true);
  });
});

const ERASE_LINE = '\r\x1b[2K';
/** What follows the erase-line sequence `text` starts with; the text marked when it does not start so. */
function afterErase(text: string | undefined): string {
  return text?.startsWith(ERASE_LINE) ? text.slice(ERASE_LINE.length) : `(not erased first) ${text}`;
}

describe('progress output', () => {
  let written: string[];
  const sink = (isTTY: boolean) => ({
    isTTY,
    columns: 200,
    write: (text: string) => {
      written.push(text);
    },
  });
  beforeEach(() => {
    written = [];
    vi.useFakeTimers({ now: T0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('picks the mode: nothing with --json or --quiet, a live line on a terminal, lines in a pipe or a dumb terminal', () => {
    expect(progressMode({ json: true }, { isTTY: true }, {})).toBe('none');
    expect(progressMode({ quiet: true }, { isTTY: false }, {})).toBe('none');
    expect(progressMode({}, { isTTY: true }, { TERM: 'xterm-256color' })).toBe('live');
    expect(progressMode({}, { isTTY: true }, { TERM: 'dumb' })).toBe('lines');
    expect(progressMode({}, { isTTY: false }, {})).toBe('lines');
  });

  it('in a pipe: the permanent lines, and a plain line every interval while a step computes', () => {
    const output = openProgress({ mode: 'lines', plan: PLAN, prices: PRICES, out: sink(false), everyMs: 30_000 });
    output.onEvent?.(started);
    expect(written).toEqual(['fact-check: 1000 item(s), 200 reused\n']);
    vi.advanceTimersByTime(15_000);
    for (let index = 0; index < 8; index += 1) output.onEvent?.(done(`c-${index}`));
    output.onEvent?.({
      type: 'item.retry',
      step: 'fact-check',
      item: 'c-9',
      tryNumber: 1,
      delayMs: 2000,
      error: '529\x1b[2J',
    });
    vi.advanceTimersByTime(15_000);
    expect(written.slice(1)).toEqual([
      '  retry fact-check c-9: 529\\x1b[2J (try 2 in 2.0 s)\n',
      'fact-check: 8/800 done (1%), 16.0/min, $0.02 so far, ETA 1 h 36 min (15:36 UTC)\n',
    ]);
    output.onEvent?.({
      type: 'step.ended',
      step: 'fact-check',
      items: 1000,
      computed: 8,
      cached: 200,
      failed: 0,
      blocked: 792,
      awaiting: 0,
    });
    vi.advanceTimersByTime(120_000);
    expect(written.slice(3)).toEqual(['fact-check: 8 computed, 200 reused, 0 failed, 792 blocked\n']);
    output.close();
    output.close();
  });

  it('on a terminal: one line redrawn in place, at most every 100 ms, under the permanent lines; erased on close', () => {
    const output = openProgress({ mode: 'live', plan: PLAN, prices: PRICES, out: sink(true), everyMs: 30_000 });
    output.onEvent?.(started);
    expect(written).toEqual([
      'fact-check: 1000 item(s), 200 reused\n',
      expect.stringMatching(/^fact-check [░]{20} 0\/800 done \(0%\), 0\.0\/min, \$0\.00 so far, ETA 2 h 10 min/),
    ]);
    written = [];
    vi.advanceTimersByTime(200);
    output.onEvent?.(done('c-1'));
    output.onEvent?.(done('c-2'));
    output.onEvent?.(done('c-3'));
    // The first is drawn at once; the next two wait for the throttle, then draw together.
    expect(written).toHaveLength(1);
    expect(afterErase(written[0])).toMatch(/^fact-check .* 1\/800 done/);
    vi.advanceTimersByTime(100);
    expect(written).toHaveLength(2);
    expect(afterErase(written[1])).toMatch(/^fact-check .* 3\/800 done/);
    // A permanent line erases the live line, prints, and draws it again below.
    output.onEvent?.({ type: 'item.failed', step: 'fact-check', item: 'c-4', error: 'refused' });
    expect(written.slice(2)).toEqual([
      '\r\x1b[2K  failed fact-check c-4: refused\n',
      expect.stringMatching(/^fact-check .* 4\/800 done \(0%, 1 failed\)/),
    ]);
    // Every second besides, with nothing completing: the rate falls as time passes.
    vi.advanceTimersByTime(700);
    expect(afterErase(written.at(-1))).toMatch(/^fact-check .* 4\/800 done \(0%, 1 failed\), 240\.0\/min/);
    vi.advanceTimersByTime(1000);
    expect(afterErase(written.at(-1))).toMatch(/^fact-check .* 4\/800 done \(0%, 1 failed\), 120\.0\/min/);
    output.close();
    expect(written.at(-1)).toBe('\r\x1b[2K');
    const count = written.length;
    vi.advanceTimersByTime(5000);
    output.onEvent?.(done('c-5'));
    output.close();
    expect(written).toHaveLength(count);
  });

  it('prints nothing in mode none', () => {
    const output = openProgress({ mode: 'none', plan: PLAN, prices: PRICES, out: sink(true), everyMs: 1000 });
    expect(output.onEvent).toBeUndefined();
    output.close();
  });
});
