/**
 * The rule of session routing (src/execution/follow-up-route.ts): which harness session the next
 * follow-up goes on in, or why it starts a new one. The engine follows it (a reopen, the next turn
 * of a running attempt) and the views show it; test/service/reopen.test.ts holds the engine to it end
 * to end.
 */
import { describe, expect, it } from 'vitest';
import { type FollowUpRoute, followUpRoute, type LastSession } from '../../src/execution/follow-up-route.js';

describe('followUpRoute', () => {
  const cases: [string, LastSession | undefined, FollowUpRoute][] = [
    [
      'the same harness resumes its own session, in its own home',
      { number: 1, harness: 'claude-code', outcome: 'completed', sessionId: 's-1' },
      { kind: 'resume', harness: 'claude-code', sessionId: 's-1', attempt: 1, home: 1 },
    ],
    [
      'an attempt that itself resumed a session hands on the home that holds it',
      { number: 3, harness: 'codex', outcome: 'completed', sessionId: 's-2', sessionHome: 2 },
      { kind: 'resume', harness: 'codex', sessionId: 's-2', attempt: 3, home: 2 },
    ],
    [
      'after a failover, the next harness: its session, not the first one',
      { number: 2, harness: 'codex', outcome: 'completed', sessionId: 'thread-2' },
      { kind: 'resume', harness: 'codex', sessionId: 'thread-2', attempt: 2, home: 2 },
    ],
    [
      'a harness that cannot resume: its attempt ran out of quota',
      { number: 1, harness: 'claude-code', outcome: 'quota_exhausted', sessionId: 's-1' },
      { kind: 'fresh', reason: 'attempt 1 (claude-code) ended quota_exhausted' },
    ],
    [
      'a harness that cannot resume: its attempt crashed with the process that drove it',
      { number: 4, harness: 'gemini', outcome: 'crashed', sessionId: 'g-4' },
      { kind: 'fresh', reason: 'attempt 4 (gemini) ended crashed' },
    ],
    [
      'no session id seen: a new session, with the handoff',
      { number: 1, harness: 'opencode', outcome: 'completed' },
      { kind: 'fresh', reason: 'opencode reported no session to resume' },
    ],
    ['no attempt ended yet', undefined, { kind: 'fresh', reason: 'no attempt has ended yet' }],
  ];
  it.each(cases)('%s', (_, last, route) => {
    expect(followUpRoute(last)).toEqual(route);
  });
});
