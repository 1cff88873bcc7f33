import { describe, expect, it } from 'vitest';
import { describeEvent } from '../../src/web/describe-event.js';
import type { EventRecord } from '../../src/web/records.js';

const record = (type: string, data: Record<string, unknown>, harness = 'claude-code', attempt = 1): EventRecord => ({
  ts: '2026-12-01T10:00:00.000Z',
  execution: '01jf3k9x7q2m4n6p8r0s2t4v6w',
  attempt,
  harness,
  source: 'executor',
  type,
  data,
});

describe('describeEvent', () => {
  it('names the harnesses of the switch story', () => {
    expect(describeEvent(record('quota.exhausted', { resetsAt: '2026-12-01T15:00:00Z' }))).toBe(
      'claude-code is out of quota; resets at 2026-12-01T15:00:00Z',
    );
    expect(
      describeEvent(
        record('failover', {
          from: 'claude-code',
          to: 'codex',
          reason: 'quota_exhausted',
          switchNumber: 1,
          maxSwitches: 2,
        }),
      ),
    ).toBe('switch 1/2: claude-code → codex (quota_exhausted)');
    expect(
      describeEvent(
        record('failover', {
          from: 'claude-code',
          to: 'gemini',
          reason: 'switched',
          switchNumber: 0,
          maxSwitches: 2,
          requestedBy: 'workbench',
          note: 'credit left',
        }),
      ),
    ).toBe('switch 0/2: claude-code → gemini (asked by workbench: credit left)');
    expect(
      describeEvent(
        record('failover', {
          from: 'claude-code',
          to: 'codex',
          reason: 'switched',
          switchNumber: 1,
          maxSwitches: 1,
          utilization: 0.96,
          threshold: 0.95,
        }),
      ),
    ).toBe('switch 1/1: claude-code → codex (96% of its limit used, switchAtUtilization 95%)');
    expect(describeEvent(record('switch.requested', { harness: 'gemini', by: 'cli (alice)' }))).toBe(
      'cli (alice) asks to switch to gemini',
    );
    expect(
      describeEvent(record('harness.skipped', { harness: 'claude-code', utilization: 0.97, threshold: 0.95 })),
    ).toBe('claude-code skipped: 97% of its limit used (switchAtUtilization 95%)');
    expect(describeEvent(record('wait.ended', { harness: 'claude-code', reason: 'switched' }))).toBe(
      'a switch by hand ends the wait',
    );
    expect(describeEvent(record('attempt.started', { handoff: true, simulated: true }, 'codex', 2))).toBe(
      'attempt 2 on codex, with the handoff (simulated)',
    );
  });

  it('keeps a long message to one clipped line, and shows an unknown type as its data', () => {
    const line = describeEvent(record('message', { text: `${'word '.repeat(100)}\nend` }));
    expect(line).toHaveLength(160);
    expect(line.endsWith('…')).toBe(true);
    expect(line).not.toContain('\n');
    expect(describeEvent(record('something.new', { a: 1 }))).toBe('{"a":1}');
  });
  it('says in words what the harness and the workspace reported, instead of their JSON', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['session.started', { sessionId: 'c1f7676c', model: 'sonnet' }, 'session c1f7676c on sonnet'],
      [
        'turn.ended',
        { turn: 't1', outcome: 'quota_exhausted', durationMs: 1520 },
        'turn t1 ended: quota_exhausted after 1.5 s',
      ],
      ['result', { ok: false, message: "You've hit your limit" }, "failed: You've hit your limit"],
      ['result', { ok: true }, 'done'],
      ['harness.error', { message: 'session expired', fatal: true }, 'fatal: session expired'],
      [
        'rate_limit',
        { status: 'rejected', utilization: 1, resetsAt: '2026-12-01T15:00:00Z' },
        'rejected, 100% used; resets at 2026-12-01T15:00:00Z',
      ],
      ['retry', { attempt: 2, maxRetries: 5, reason: 'overloaded' }, 'retry 2/5: overloaded'],
      [
        'plan',
        {
          items: [
            { text: 'a', status: 'pending' },
            { text: 'b', status: 'completed' },
          ],
        },
        'plan of 2 item(s)',
      ],
      [
        'workspace.inspected',
        { head: 'a0adf0bcff285dc868a86fd', changedFiles: ['x'], commits: [{ sha: 'a', subject: 's' }], durationMs: 3 },
        'head a0adf0bcff28, 1 commit(s) since the base, 1 uncommitted file(s)',
      ],
      ['context.written', { path: '/somewhere/context.json', attempts: 1 }, 'context.json written (1 attempt(s))'],
      ['execution.reopened', { deadline: 'x', resumedSession: 's1' }, 'reopened by a follow-up, resuming session s1'],
      [
        'execution.resumed',
        { reason: 'restart', openAttempt: 2 },
        'carried on after a restart (attempt 2 was left open)',
      ],
      ['cancel.requested', { budgetMs: 60_000 }, 'cancel asked; the harness has 60.0 s to stop'],
      ['raw', { stream: 'stderr', line: 'warning: x' }, 'stderr: warning: x'],
    ];
    for (const [type, data, line] of cases) expect(describeEvent(record(type, data)), type).toBe(line);
  });
});
