import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../../src/web/records.js';
import { withAttempts } from '../../src/web/records.js';
import { describeWait, followWait, resetNote, resetTime, type Wait } from '../../src/web/wait.js';

const EXECUTION = '01jf3k9x7q2m4n6p8r0s2t4v6w';

function record(type: string, data: Record<string, unknown> = {}): EventRecord {
  return { ts: '2025-03-01T13:00:00.000Z', execution: EXECUTION, source: 'executor', type, data };
}

/** Local noon today, and a reset `minutes` after it: the tests read in the machine's own time zone. */
const NOW = new Date(2025, 2, 1, 12, 0, 0);
const waitIn = (minutes: number, known = true): Wait => ({
  harness: 'claude-code',
  until: new Date(NOW.getTime() + minutes * 60_000).toISOString(),
  known,
});

describe('followWait', () => {
  const waiting = record('quota.waiting', {
    harness: 'claude-code',
    until: '2025-03-01T14:00:00.000Z',
    known: false,
    waitMs: 3_600_000,
  });

  it('opens a wait on quota.waiting, with the harness, the reset and whether it is known', () => {
    expect(followWait(undefined, waiting)).toEqual({
      harness: 'claude-code',
      until: '2025-03-01T14:00:00.000Z',
      known: false,
    });
  });

  it('closes it on wait.ended, the next attempt or the end, and keeps it through anything else', () => {
    const open = followWait(undefined, waiting);
    for (const type of ['message', 'warning', 'message.queued', 'harness.skipped']) {
      expect(followWait(open, record(type)), type).toBe(open);
    }
    for (const type of ['wait.ended', 'attempt.started', 'execution.ended']) {
      expect(followWait(open, record(type)), type).toBeUndefined();
    }
  });

  it('a later quota.waiting replaces the earlier one, and a malformed one changes nothing', () => {
    const first = followWait(undefined, waiting);
    const later = followWait(
      first,
      record('quota.waiting', { harness: 'codex', until: '2025-03-01T15:00:00.000Z', known: true, waitMs: 1 }),
    );
    expect(later).toEqual({ harness: 'codex', until: '2025-03-01T15:00:00.000Z', known: true });
    expect(followWait(first, record('quota.waiting', { harness: 42 }))).toBe(first);
  });

  it('follows a whole log: wait, resume, run out again, wait', () => {
    const log = [
      record('attempt.started'),
      waiting,
      record('wait.ended', { harness: 'claude-code', reason: 'resumed' }),
      record('attempt.started'),
      record('quota.waiting', { harness: 'codex', until: '2025-03-01T16:00:00.000Z', known: true, waitMs: 1 }),
    ];
    const seen = log.map((_, at) => log.slice(0, at + 1).reduce(followWait, undefined as Wait | undefined)?.harness);
    expect(seen).toEqual([undefined, 'claude-code', undefined, undefined, 'codex']);
  });
});

describe('the words for a wait', () => {
  it('give the reset as a local time, with the date only when it is not today', () => {
    expect(resetTime(waitIn(65), NOW)).toBe('13:05');
    // The date's words are the locale's (`Mar 2, 12:05` in English); the day and the time are there.
    expect(resetTime(waitIn(24 * 60 + 5), NOW)).toMatch(/2\D.*12:05$/);
  });

  it('count down to the minute, say when it passed, and mark an estimate', () => {
    expect(resetNote(waitIn(59.5), NOW)).toBe('in 59 min');
    expect(resetNote(waitIn(125), NOW)).toBe('in 2 h 05 min');
    expect(resetNote(waitIn(0.5), NOW)).toBe('in under a minute');
    expect(resetNote(waitIn(-1), NOW)).toBe('reset passed');
    expect(resetNote(waitIn(60, false), NOW)).toBe('in 1 h 00 min, estimated');
  });

  it('describe the wait in one sentence', () => {
    expect(describeWait(waitIn(65), NOW)).toBe('waiting for claude-code, which resets at 13:05 (in 1 h 05 min)');
    expect(describeWait(waitIn(30, false), NOW)).toBe(
      'waiting for claude-code, which resets at 12:30 (in 30 min, estimated)',
    );
  });
});

describe('withAttempts', () => {
  it('gives a listed execution the wait the answer has for it, and the others none', () => {
    const execution = (id: string, state: string) =>
      ({
        id,
        taskName: 't',
        repo: '/r',
        baseRef: 'main',
        baseSha: 'a',
        branch: 'b',
        worktree: '/w',
        state,
        createdAt: '2025-03-01T10:00:00.000Z',
        deadline: '2025-03-01T12:00:00.000Z',
        attemptCount: 1,
      }) as const;
    const wait = { harness: 'claude-code', until: '2025-03-01T11:00:00.000Z', known: true };
    const rows = withAttempts({
      executions: [execution('a', 'waiting'), execution('b', 'running')],
      attempts: { a: [] },
      waits: { a: wait },
    });
    expect(rows.map((row) => [row.id, row.wait, row.attemptsList])).toEqual([
      ['a', wait, []],
      ['b', undefined, []],
    ]);
    expect('wait' in (rows[1] ?? {})).toBe(false);
    expect(withAttempts({ executions: [execution('a', 'waiting')], attempts: {} })[0]?.wait).toBeUndefined();
  });
});
