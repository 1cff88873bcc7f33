/**
 * The timeline's lines for the session service's records: each turn's delivery, the queue, the
 * restart and a cancel read as one line in the timeline's columns, in the describer's words
 * (src/web/describe-event.ts; every type's are in test/web/describe-event-kinds.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { formatRecord } from '../../src/cli/timeline.js';
import type { EventData, EventRecord, EventType } from '../../src/events/schema.js';

function record<T extends EventType>(type: T, data: EventData<T>, attempt?: number): EventRecord {
  return {
    ts: '2026-03-01T12:34:56.789Z',
    execution: '01m8kskfjw0wm52qqt0d1rjh58',
    source: 'executor',
    type,
    data,
    ...(attempt !== undefined && { attempt, harness: 'claude-code' }),
  } as EventRecord;
}

describe('formatRecord for the service records', () => {
  const cases: [string, EventRecord, string][] = [
    [
      'a queued message',
      record('message.queued', { turn: 't2', text: 'also update the changelog', queued: 1 }),
      '12:34:56.789  execution        message.queued      t2 queued (1 waiting): also update the changelog',
    ],
    [
      'a first delivery',
      record('turn.started', { turn: 't1', text: 'Add formatDate.', delivery: 'first' }, 1),
      '12:34:56.789  #1 claude-code   turn.started        t1 (first delivery): Add formatDate.',
    ],
    [
      'a follow-up in the resumed session',
      record(
        'turn.started',
        {
          turn: 't2',
          text: 'Run the tests.',
          delivery: 'first',
          resumedSession: '9858e5f0-9069-43b8-bd54-4cb3523a73f4',
        },
        2,
      ),
      '12:34:56.789  #2 claude-code   turn.started        t2 (first delivery, resumes session 9858e5f0): Run the tests.',
    ],
    [
      'a turn handed on after a switch',
      record('turn.started', { turn: 't1', text: 'Add formatDate.', delivery: 'handoff' }, 2),
      '12:34:56.789  #2 claude-code   turn.started        t1 (handed on after a switch): Add formatDate.',
    ],
    [
      'a redelivery',
      record('turn.started', { turn: 't1', text: 'Add formatDate.', delivery: 'redelivered' }, 2),
      '12:34:56.789  #2 claude-code   turn.started        t1 (delivered again after a restart): Add formatDate.',
    ],
    [
      'the redelivery marker',
      record('turn.redelivered', { turn: 't1', reason: 'HarmFlow restarted while this turn ran' }, 2),
      '12:34:56.789  #2 claude-code   turn.redelivered    t1 delivered again: HarmFlow restarted while this turn ran',
    ],
    [
      'a turn that ended',
      record('turn.ended', { turn: 't2', outcome: 'completed', durationMs: 3125 }, 2),
      '12:34:56.789  #2 claude-code   turn.ended          t2 ended: completed after 3.1 s',
    ],
    [
      'a restart with an attempt left open',
      record('execution.resumed', { reason: 'restart', openAttempt: 1 }),
      '12:34:56.789  execution        execution.resumed   carried on after a restart; attempt 1 was left open',
    ],
    [
      'a restart between attempts',
      record('execution.resumed', { reason: 'restart' }),
      '12:34:56.789  execution        execution.resumed   carried on after a restart',
    ],
    [
      'a cancel',
      record('cancel.requested', { budgetMs: 2000 }),
      '12:34:56.789  execution        cancel.requested    cancel asked; the harness has 2 s to stop',
    ],
    [
      'a switch asked by hand',
      record('switch.requested', { harness: 'codex', model: 'gpt-5.5', by: 'cli (alice)', reason: 'credit left' }),
      '12:34:56.789  execution        switch.requested    cli (alice) asks to switch to codex (gpt-5.5): credit left',
    ],
    [
      'the switch by hand carried out',
      record(
        'failover',
        {
          from: 'claude-code',
          to: 'codex',
          reason: 'switched',
          switchNumber: 0,
          maxSwitches: 1,
          toIndex: 1,
          hand: { harness: 'codex', model: 'gpt-5.5', like: 1 },
          requestedBy: 'cli (alice)',
          note: 'credit left',
        },
        1,
      ),
      '════════ 12:34:56.789  SWITCH claude-code → codex (gpt-5.5) (asked by cli (alice): credit left; switch 0 of 1) ════════',
    ],
    [
      'a switch before the limit',
      record(
        'failover',
        {
          from: 'claude-code',
          to: 'codex',
          reason: 'switched',
          switchNumber: 1,
          maxSwitches: 1,
          toIndex: 1,
          utilization: 0.96,
          threshold: 0.95,
        },
        1,
      ),
      '════════ 12:34:56.789  SWITCH claude-code → codex (96% of its limit used, switchAtUtilization 95%; switch 1 of 1) ════════',
    ],
    [
      'a near-limit skip',
      record('harness.skipped', { harness: 'claude-code', utilization: 0.97, threshold: 0.95 }),
      '12:34:56.789  execution        harness.skipped     claude-code skipped: 97% of its limit used (switchAtUtilization 95%)',
    ],
    [
      'a wait ended by a switch',
      record('wait.ended', { harness: 'claude-code', reason: 'switched' }),
      '12:34:56.789  execution        wait.ended          a switch by hand ends the wait',
    ],
  ];
  for (const [what, input, line] of cases) {
    it(`prints ${what}`, () => {
      expect(formatRecord(input)).toBe(line);
    });
  }
});
