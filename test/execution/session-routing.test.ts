/**
 * Session routing as the views show it (src/execution/session-routing.ts): the harness sessions an
 * execution's attempts ran in — an attempt that resumed a session joins it — the attempt running,
 * and where the next follow-up goes, from the store's rows and context.json's entries.
 */
import { describe, expect, it } from 'vitest';
import type { ExecutionState, Outcome } from '../../src/core/outcome.js';
import type { AttemptContext } from '../../src/execution/context-schema.js';
import { type RoutingInput, sessionRouting } from '../../src/execution/session-routing.js';
import type { AttemptRecord } from '../../src/store/store.js';

const ID = '01jf3k9x7q2m4n6p8r0s2t4v6w';

interface Ran {
  readonly harness: string;
  readonly outcome?: Outcome;
  readonly sessionId?: string;
  readonly resumedSession?: string;
  readonly turns?: readonly string[];
  /** Ended, but context.json has no entry for it (the process stopped in between). */
  readonly rowOnly?: boolean;
}

/** The store rows and context entries of attempts 1…n as `ran` says they ran. */
function input(state: ExecutionState, ran: readonly Ran[]): RoutingInput {
  const attempts: AttemptRecord[] = ran.map((attempt, at) => ({
    execution: ID,
    number: at + 1,
    harness: attempt.harness,
    simulated: true,
    startedAt: '2026-12-03T10:00:00.000Z',
    ...(attempt.outcome !== undefined && { outcome: attempt.outcome, endedAt: '2026-12-03T10:01:00.000Z' }),
    ...(attempt.sessionId !== undefined && { sessionId: attempt.sessionId }),
  }));
  const context: AttemptContext[] = ran.flatMap((attempt, at) =>
    attempt.outcome === undefined || attempt.rowOnly
      ? []
      : [
          {
            number: at + 1,
            harness: attempt.harness,
            outcome: attempt.outcome,
            startedAt: '2026-12-03T10:00:00.000Z',
            endedAt: '2026-12-03T10:01:00.000Z',
            workItems: [],
            ...(attempt.sessionId !== undefined && { sessionId: attempt.sessionId }),
            ...(attempt.resumedSession !== undefined && { resumedSession: attempt.resumedSession, sessionHome: 1 }),
            ...(attempt.turns !== undefined && { turns: [...attempt.turns] }),
          },
        ],
  );
  return { execution: { id: ID, state }, attempts, context };
}

describe('sessionRouting', () => {
  it('reopened twice on one harness: one session, resumed by each later attempt', () => {
    const routing = sessionRouting(
      input('succeeded', [
        { harness: 'claude-code', outcome: 'completed', sessionId: 's-1' },
        { harness: 'claude-code', outcome: 'completed', sessionId: 's-1', resumedSession: 's-1' },
        { harness: 'claude-code', outcome: 'completed', sessionId: 's-1', resumedSession: 's-1' },
      ]),
    );
    expect(routing).toEqual({
      execution: ID,
      sessions: [{ harness: 'claude-code', sessionId: 's-1', attempts: [1, 2, 3] }],
      nextFollowUp: { kind: 'resume', harness: 'claude-code', sessionId: 's-1', attempt: 3 },
    });
  });

  it('after a failover: two sessions, and the follow-up resumes the second harness', () => {
    const routing = sessionRouting(
      input('succeeded', [
        { harness: 'claude-code', outcome: 'quota_exhausted', sessionId: 's-1' },
        { harness: 'codex', outcome: 'completed', sessionId: 'thread-2' },
      ]),
    );
    expect(routing.sessions).toEqual([
      { harness: 'claude-code', sessionId: 's-1', attempts: [1] },
      { harness: 'codex', sessionId: 'thread-2', attempts: [2] },
    ]);
    expect(routing.nextFollowUp).toEqual({ kind: 'resume', harness: 'codex', sessionId: 'thread-2', attempt: 2 });
  });

  it('lists the turns each session had, a turn cut off by a switch in both', () => {
    const routing = sessionRouting(
      input('succeeded', [
        { harness: 'claude-code', outcome: 'quota_exhausted', sessionId: 's-1', turns: ['t1'] },
        { harness: 'codex', outcome: 'completed', sessionId: 'thread-2', turns: ['t1', 't2'] },
        { harness: 'codex', outcome: 'completed', sessionId: 'thread-2', resumedSession: 'thread-2', turns: ['t3'] },
      ]),
    );
    expect(routing.sessions).toEqual([
      { harness: 'claude-code', sessionId: 's-1', attempts: [1], turns: ['t1'] },
      { harness: 'codex', sessionId: 'thread-2', attempts: [2, 3], turns: ['t1', 't2', 't3'] },
    ]);
  });

  it('leaves the turns out of a session when one of its attempts does not say which it had', () => {
    const routing = sessionRouting(
      input('succeeded', [
        { harness: 'codex', outcome: 'completed', sessionId: 'thread-1', turns: ['t1'] },
        { harness: 'codex', outcome: 'completed', sessionId: 'thread-1', resumedSession: 'thread-1' },
      ]),
    );
    expect(routing.sessions).toEqual([{ harness: 'codex', sessionId: 'thread-1', attempts: [1, 2] }]);
  });

  it('a resumed session the harness gave a new id: its own entry, saying what it resumed', () => {
    const routing = sessionRouting(
      input('succeeded', [
        { harness: 'claude-code', outcome: 'completed', sessionId: 's-1' },
        { harness: 'claude-code', outcome: 'completed', sessionId: 's-2', resumedSession: 's-1' },
      ]),
    );
    expect(routing.sessions).toEqual([
      { harness: 'claude-code', sessionId: 's-1', attempts: [1] },
      { harness: 'claude-code', sessionId: 's-2', attempts: [2], resumedFrom: 's-1' },
    ]);
    expect(routing.nextFollowUp).toMatchObject({ kind: 'resume', sessionId: 's-2', attempt: 2 });
  });

  it('no session id seen: no id is made up, and the follow-up starts a new session', () => {
    const routing = sessionRouting(input('succeeded', [{ harness: 'opencode', outcome: 'completed' }]));
    expect(routing.sessions).toEqual([{ harness: 'opencode', attempts: [1] }]);
    expect(routing.nextFollowUp).toEqual({ kind: 'fresh', reason: 'opencode reported no session to resume' });
  });

  it('an ended attempt context.json does not have yet is read from its store row', () => {
    const routing = sessionRouting(
      input('succeeded', [{ harness: 'codex', outcome: 'completed', sessionId: 'thread-1', rowOnly: true }]),
    );
    expect(routing.sessions).toEqual([{ harness: 'codex', sessionId: 'thread-1', attempts: [1] }]);
    expect(routing.nextFollowUp).toMatchObject({ kind: 'resume', sessionId: 'thread-1' });
  });

  it('while an attempt runs: it is named, and a follow-up waits for its turn', () => {
    const routing = sessionRouting(
      input('running', [
        { harness: 'claude-code', outcome: 'quota_exhausted', sessionId: 's-1' },
        { harness: 'codex' },
      ]),
    );
    expect(routing.sessions).toEqual([{ harness: 'claude-code', sessionId: 's-1', attempts: [1] }]);
    expect(routing.running).toEqual({ attempt: 2, harness: 'codex' });
    expect(routing.nextFollowUp.kind).toBe('waits');
  });

  it('waiting for a quota reset: a follow-up waits for the turn in flight', () => {
    const routing = sessionRouting(
      input('waiting', [{ harness: 'codex', outcome: 'quota_exhausted', sessionId: 't' }]),
    );
    expect(routing.nextFollowUp).toEqual({
      kind: 'waits',
      reason:
        'the execution is waiting: a follow-up waits for the turn in flight, then goes on in the session that turn ends in',
    });
  });

  it('queued again after a reopen: the follow-up resumes, as the engine will', () => {
    const routing = sessionRouting(
      input('queued', [{ harness: 'codex', outcome: 'completed', sessionId: 'thread-1' }]),
    );
    expect(routing.nextFollowUp).toEqual({ kind: 'resume', harness: 'codex', sessionId: 'thread-1', attempt: 1 });
  });

  it.each(['failed', 'canceled', 'timed_out'] as const)('an execution that ended %s refuses follow-ups', (state) => {
    const routing = sessionRouting(input(state, [{ harness: 'codex', outcome: 'completed', sessionId: 'thread-1' }]));
    expect(routing.nextFollowUp).toEqual({
      kind: 'refused',
      reason: `the execution ended ${state}: it takes no more messages`,
    });
  });
});
