/**
 * The list screens' columns for a width (src/tui/list-columns.ts), the cells they show
 * (src/tui/rows.ts), the split of a wide terminal (src/tui/preview-lines.ts) and the status under
 * the table (src/tui/status-lines.ts), as pure functions.
 */
import { describe, expect, it } from 'vitest';
import { columnsFor, MARKER_WIDTH, TASK_MIN } from '../../src/tui/list-columns.js';
import { SPLIT_MIN_WIDTH, splitWidths } from '../../src/tui/preview-lines.js';
import { formatElapsed, type ListedExecution, wideCellsOf } from '../../src/tui/rows.js';
import { statusLines } from '../../src/tui/status-lines.js';
import { executionRecord } from './fake-service.js';

/** The columns' titles, `TASK` for the task's. */
function titles(screen: 'executions' | 'history', width: number): string[] {
  return columnsFor(screen, width).map((column) => (column === 'task' ? 'TASK' : column.title));
}

/** What the columns leave the task in `width`. */
function taskWidth(screen: 'executions' | 'history', width: number): number {
  const fixed = columnsFor(screen, width).reduce((sum, column) => sum + (column === 'task' ? 0 : column.width), 0);
  return width - MARKER_WIDTH - fixed;
}

describe('the list screens’ columns', () => {
  it('are those of 80 columns at 80, the task keeping the rest', () => {
    expect(titles('executions', 80)).toEqual(['ID', 'TASK', 'STATE', 'HARNESS', 'ATT', 'AGE']);
    expect(taskWidth('executions', 80)).toBe(TASK_MIN + 2);
  });

  it('add elapsed, tokens, cost, reset time, turns, pull request and owner as the width allows, the task keeping its minimum', () => {
    expect(titles('executions', 100)).toEqual(['ID', 'TASK', 'STATE', 'HARNESS', 'ATT', 'AGE', 'ELAPSED', 'TOKENS']);
    const upToResets = ['ID', 'TASK', 'STATE', 'HARNESS', 'ATT', 'AGE', 'ELAPSED', 'TOKENS', 'COST', 'RESETS'];
    expect(titles('executions', 120)).toEqual(upToResets);
    expect(titles('executions', 140)).toEqual([...upToResets, 'TURNS', 'PR']);
    const all = [...upToResets, 'TURNS', 'PR', 'OWNER'];
    expect(titles('executions', 160)).toEqual(all);
    expect(titles('executions', 200)).toEqual(all);
    for (const width of [80, 90, 100, 110, 120, 140, 160, 200])
      expect(taskWidth('executions', width)).toBeGreaterThanOrEqual(TASK_MIN);
    expect(taskWidth('executions', 200)).toBe(taskWidth('executions', 160) + 40);
  });

  it('show no reset time and no owner on History: an ended execution waits for nothing, and nobody drives it', () => {
    expect(titles('history', 200)).toEqual([
      'ID',
      'TASK',
      'OUTCOME',
      'HARNESSES',
      'ATT',
      'AGE',
      'ELAPSED',
      'TOKENS',
      'COST',
      'TURNS',
      'PR',
    ]);
  });
});

describe('a row’s cells', () => {
  const now = Date.parse('2026-12-03T12:00:00Z');
  const row = (overrides: Partial<ListedExecution>): ListedExecution => ({
    ...executionRecord({ id: '01jf3k9x7q2m4n6p8r0s2t4v6w', taskName: 'fix-login' }),
    attempts: [],
    ...overrides,
  });

  it('say – for what no attempt reported, and before the start', () => {
    const { startedAt: _, ...queued } = row({ state: 'queued' });
    const cells = wideCellsOf(queued, now);
    expect([cells.elapsed, cells.tokens, cells.cost, cells.resets]).toEqual(['–', '–', '–', '–']);
  });

  it('sum tokens and cost over the attempts, and time from start to end', () => {
    const attempt = { execution: '01jf3k9x7q2m4n6p8r0s2t4v6w', simulated: false, startedAt: '2026-12-03T10:00:00Z' };
    const cells = wideCellsOf(
      row({
        state: 'succeeded',
        startedAt: '2026-12-03T10:00:00Z',
        endedAt: '2026-12-03T10:04:05Z',
        attempts: [
          { ...attempt, number: 1, harness: 'claude-code', inputTokens: 1000, outputTokens: 500, costUsd: 0.1 },
          { ...attempt, number: 2, harness: 'codex', outputTokens: 20 },
        ],
      }),
      now,
    );
    expect([cells.elapsed, cells.tokens, cells.cost, cells.resets]).toEqual(['4m05s', '1.5k', '$0.10', '–']);
  });

  it('show the turns, the pull request by its number, and who drives it; – for what is not known', () => {
    const known = wideCellsOf(
      row({
        turnCount: 3,
        pullRequestUrl: 'https://github.com/acme/app/pull/42',
        owner: { pid: 4242, host: 'build-1', alive: true },
      }),
      now,
    );
    expect([known.turns, known.pr, known.owner]).toEqual(['3', '#42', '4242@build-1']);
    const stale = wideCellsOf(row({ owner: { pid: 4242, alive: false } }), now);
    expect([stale.turns, stale.pr, stale.owner]).toEqual(['–', '–', '4242 (gone)']);
  });

  it('format a duration in its two largest units', () => {
    expect([45_000, 245_000, 3_725_000, 273_600_000].map(formatElapsed)).toEqual(['45s', '4m05s', '1h02m', '3d04h']);
  });
});

describe('the split of a wide terminal', () => {
  it('keeps the whole width for the list below 160 columns, and gives the preview 80 from there', () => {
    expect(SPLIT_MIN_WIDTH).toBe(160);
    expect(splitWidths(159)).toEqual({ list: 159, preview: 0 });
    expect(splitWidths(160)).toEqual({ list: 80, preview: 80 });
    expect(splitWidths(200)).toEqual({ list: 120, preview: 80 });
  });
});

describe('the status under a list', () => {
  it('wraps the unreachable service’s hint within 80 columns, whole', () => {
    const message =
      'no HarmFlow service at http://127.0.0.1:4780 (start one with `harmflow serve`, or give its URL: --url or HARMFLOW_URL)';
    const lines = statusLines({ error: message, editing: false, filter: '', screen: 'executions' }, 80);
    expect(lines.length).toBe(2);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
    expect(lines.join(' ')).toBe(`Cannot reach the service: ${message}`);
  });

  it('cuts an error longer than three lines, and keeps the other statuses to one', () => {
    const lines = statusLines({ error: 'word '.repeat(100), editing: false, filter: '', screen: 'history' }, 80);
    expect(lines.length).toBe(3);
    expect(lines[2]?.endsWith('…')).toBe(true);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
    expect(statusLines({ error: undefined, editing: false, filter: 'fix', screen: 'history' }, 80)).toEqual([
      '/ fix  (Esc clears)',
    ]);
  });
});
