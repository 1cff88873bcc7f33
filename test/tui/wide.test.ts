/**
 * The terminal UI in wider terminals, rendered with Ink's test renderer against a loopback fake of
 * the list routes (fake-service.ts) through the CLI's real client: the columns a wider table adds
 * (elapsed, tokens, cost, reset time) at 120 and 200 columns, and the split preview of the selected
 * execution from 160 columns on, following the selection, and not below.
 */
import { cleanup, render } from 'ink-testing-library';
import { createElement } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/cli/client.js';
import { App } from '../../src/tui/app.js';
import { SPLIT_MIN_WIDTH } from '../../src/tui/preview-lines.js';
import { clientSource } from '../../src/tui/source.js';
import { resetTime } from '../../src/web/wait.js';
import { executionRecord, FAKE_TOKEN, type FakeService, startFakeService } from './fake-service.js';
import { frameWhere, KEYS, lineWith, selectedLine } from './frames.js';

const STARTED = new Date(Date.now() - 3_725_000).toISOString();
const RESETS = new Date(Date.now() + 3_600_000).toISOString();
const LIVE = [
  executionRecord({
    id: '01jf3k9x7q2m4n6p8r0s2t4v6w',
    taskName: 'fix-login',
    state: 'running',
    currentHarness: 'codex',
    attemptCount: 2,
    startedAt: STARTED,
  }),
  executionRecord({
    id: '01jf3kaaaa2m4n6p8r0s2t4v6y',
    taskName: 'add-search',
    state: 'waiting',
    currentHarness: 'claude-code',
  }),
  executionRecord({
    id: '01jf3kbbbb2m4n6p8r0s2t4v6z',
    taskName: 'bump-deps-with-a-task-name-far-too-long-for-its-column',
    state: 'queued',
  }),
];
const ATTEMPT = { simulated: true, startedAt: STARTED };

let service: FakeService;
beforeEach(async () => {
  const [login, search] = LIVE.map((row) => row.id) as [string, string];
  service = await startFakeService({
    live: {
      executions: LIVE,
      attempts: {
        [login]: [
          {
            ...ATTEMPT,
            execution: login,
            number: 1,
            harness: 'claude-code',
            outcome: 'quota_exhausted',
            inputTokens: 12_000,
            outputTokens: 300,
            costUsd: 0.5,
          },
          { ...ATTEMPT, execution: login, number: 2, harness: 'codex', inputTokens: 200, costUsd: 0.25 },
        ],
        [search]: [
          {
            ...ATTEMPT,
            execution: search,
            number: 1,
            harness: 'claude-code',
            outcome: 'quota_exhausted',
            resetsAt: RESETS,
          },
        ],
      },
    },
    ended: { executions: [], attempts: {} },
  });
});
afterEach(async () => {
  cleanup();
  await service.close();
});

/**
 * The app `width` columns wide. The test renderer's stdout says it has 100 columns, and Ink lays its
 * output out in the stdout's columns: it is told the width too, as a terminal tells it.
 */
function renderAt(width: number) {
  const source = clientSource(createClient({ url: service.url, token: { token: FAKE_TOKEN, from: 'test' } }));
  const rendered = render(createElement(App, { source, color: false, width, height: 24, pollMs: 50 }));
  Object.defineProperty(rendered.stdout, 'columns', { value: width });
  return rendered;
}

/** Every line of `frame` within `width` columns and 24 lines. */
function expectFits(frame: string, width: number): void {
  for (const line of frame.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(width);
  expect(frame.split('\n').length).toBeLessThanOrEqual(24);
}

describe('harmflow ui in a wider terminal', () => {
  it('keeps 80 columns as they were: no extra column, no preview', async () => {
    const { lastFrame } = renderAt(80);
    const frame = await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    expect(lineWith(frame, 'ID ')).toMatch(/^ {2}ID +TASK +STATE +HARNESS +ATT AGE$/);
    expect(frame).not.toContain('│');
    expectFits(frame, 80);
  });

  it('gives 120 columns to elapsed, tokens, cost and reset time, not to the task', async () => {
    const { lastFrame } = renderAt(120);
    const frame = await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    expect(lineWith(frame, 'ID ')).toMatch(/ID +TASK +STATE +HARNESS +ATT AGE +ELAPSED TOKENS +COST +RESETS$/);
    // 12,000 + 300 + 200 tokens; $0.50 + $0.25; started 1 h 02 min 05 s ago.
    expect(lineWith(frame, 'fix-login')).toMatch(/running +codex +2 +1m +1h02m +12\.5k +\$0\.75 +–$/);
    const reset = resetTime({ harness: 'claude-code', until: RESETS, known: true }, new Date());
    expect(lineWith(frame, 'add-search')).toMatch(
      new RegExp(`waiting +claude-code +1 +1m +1m\\d\\ds +– +– +${reset}$`),
    );
    expect(lineWith(frame, 'bump-deps')).toMatch(/queued +– +1 +1m +1m\d\ds +– +– +–$/);
    // The task keeps what is left: a long name is still cut.
    expect(frame).not.toContain('far-too-long-for-its-column');
    expect(frame).not.toContain('│');
    expectFits(frame, 120);
  });

  it('shows no preview one column short of the split', async () => {
    const { lastFrame } = renderAt(SPLIT_MIN_WIDTH - 1);
    const frame = await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    expect(frame).not.toContain('│');
    expect(frame).not.toContain('01jf3k9x7q2m4n6p8r0s2t4v6w');
    expectFits(frame, SPLIT_MIN_WIDTH - 1);
  });

  it.each([SPLIT_MIN_WIDTH, 200])(
    'splits %i columns: the list, and the selected execution’s summary following the selection',
    async (width) => {
      const { lastFrame, stdin } = renderAt(width);
      let frame = await frameWhere(lastFrame, (text) => text.includes('│ 01jf3k9x7q2m4n6p8r0s2t4v6w · Enter opens it'));
      expect(selectedLine(frame)).toContain('fix-login');
      expect(lineWith(frame, '│ Task')).toMatch(/│ Task +fix-login/);
      expect(lineWith(frame, '│ Chain')).not.toBe('');
      // context.json and the disk come after the frame; this fake has no such routes, and the preview says so.
      frame = await frameWhere(lastFrame, (text) => text.includes('/api/executions/01jf3k9x7q2m4n6p8r0s2t4v6w/disk'));
      // The list's lines stop where the preview's edge starts.
      const edge = lineWith(frame, '│ Task').indexOf('│');
      expect(edge).toBe(width - 80);
      for (const line of frame.split('\n').slice(1, 10)) expect(line.indexOf('│'), line).toBe(edge);
      if (width === 200) expect(lineWith(frame, 'ID ')).toMatch(/AGE +ELAPSED TOKENS +COST +RESETS +│/);
      stdin.write('j');
      frame = await frameWhere(lastFrame, (text) => text.includes('│ 01jf3kaaaa2m4n6p8r0s2t4v6y · Enter opens it'));
      expect(selectedLine(frame)).toContain('add-search');
      expect(lineWith(frame, '│ Task')).toMatch(/│ Task +add-search/);
      expect(frame).toMatch(/│ Waiting for claude-code, which resets at/);
      expectFits(frame, width);
      // Enter opens the execution previewed.
      stdin.write(KEYS.enter);
      frame = await frameWhere(lastFrame, (text) => text.includes('[1 Summary]'));
      expect(frame.split('\n')[0]).toMatch(/^add-search · waiting/);
    },
  );
});
