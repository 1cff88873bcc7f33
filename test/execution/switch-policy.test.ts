import { describe, expect, it } from 'vitest';
import { OUTCOMES, type Outcome } from '../../src/core/outcome.js';
import { decideAfterAttempt, finalState, type SwitchInput } from '../../src/execution/switch-policy.js';

/** An attempt of the first of three harnesses, no switch made yet, one allowed, time left. */
const BASE: SwitchInput = {
  outcome: 'quota_exhausted',
  switchOn: new Set<Outcome>(['quota_exhausted']),
  chainIndex: 0,
  chainLength: 3,
  switchesMade: 0,
  maxSwitches: 1,
  timeLeftMs: 60_000,
};

const decide = (change: Partial<SwitchInput>) => decideAfterAttempt({ ...BASE, ...change });

describe('decideAfterAttempt', () => {
  it('ends in success when the attempt completed, whatever else holds', () => {
    const success = { kind: 'end', state: 'succeeded', why: 'the attempt completed' };
    expect(decide({ outcome: 'completed' })).toStrictEqual(success);
    expect(decide({ outcome: 'completed', switchOn: new Set(['completed' as Outcome]) })).toStrictEqual(success);
    expect(decide({ outcome: 'completed', timeLeftMs: 0 })).toStrictEqual(success);
  });

  it('switches to the next harness on quota_exhausted', () => {
    expect(decide({})).toStrictEqual({ kind: 'switch', nextIndex: 1 });
    expect(decide({ chainIndex: 1, switchesMade: 1, maxSwitches: 2 })).toStrictEqual({ kind: 'switch', nextIndex: 2 });
  });

  it('ends on an outcome that is not in switchOn, in the state that outcome ends in', () => {
    expect(decide({ outcome: 'rate_limited' })).toStrictEqual({
      kind: 'end',
      state: 'failed',
      why: 'rate_limited does not switch harness',
    });
    expect(decide({ outcome: 'canceled' })).toStrictEqual({
      kind: 'end',
      state: 'canceled',
      why: 'it was canceled',
    });
    expect(decide({ outcome: 'timed_out' })).toStrictEqual({
      kind: 'end',
      state: 'timed_out',
      why: 'the deadline has passed',
    });
    expect(decide({ outcome: 'quota_exhausted', switchOn: new Set() })).toStrictEqual({
      kind: 'end',
      state: 'failed',
      why: 'quota_exhausted does not switch harness',
    });
  });

  it('switches on an outcome the task added with failoverOn', () => {
    const switchOn = new Set<Outcome>(['quota_exhausted', 'rate_limited', 'overloaded']);
    expect(decide({ outcome: 'rate_limited', switchOn })).toStrictEqual({ kind: 'switch', nextIndex: 1 });
    expect(decide({ outcome: 'overloaded', switchOn })).toStrictEqual({ kind: 'switch', nextIndex: 1 });
    expect(decide({ outcome: 'auth_failed', switchOn })).toStrictEqual({
      kind: 'end',
      state: 'failed',
      why: 'auth_failed does not switch harness',
    });
  });

  it('ends when no harness is left in the chain, marked as the chain’s end (a quota reset may still be waited for)', () => {
    expect(decide({ chainIndex: 2, maxSwitches: 5 })).toStrictEqual({
      kind: 'end',
      state: 'failed',
      why: 'no harness left in the chain',
      chainEnd: true,
    });
    expect(decide({ chainLength: 1, maxSwitches: 5 })).toStrictEqual({
      kind: 'end',
      state: 'failed',
      why: 'no harness left in the chain',
      chainEnd: true,
    });
  });

  it('ends when maxSwitches are used up, though harnesses are left', () => {
    expect(decide({ switchesMade: 1, maxSwitches: 1, chainIndex: 1 })).toStrictEqual({
      kind: 'end',
      state: 'failed',
      why: 'no switch left (maxSwitches: 1)',
    });
    expect(decide({ maxSwitches: 0 })).toStrictEqual({
      kind: 'end',
      state: 'failed',
      why: 'no switch left (maxSwitches: 0)',
    });
  });

  it('ends timed out when the deadline has passed, instead of switching', () => {
    const timedOut = { kind: 'end', state: 'timed_out', why: 'the deadline has passed' };
    expect(decide({ timeLeftMs: 0 })).toStrictEqual(timedOut);
    expect(decide({ timeLeftMs: -5 })).toStrictEqual(timedOut);
    expect(decide({ outcome: 'switched', timeLeftMs: 0 })).toStrictEqual(timedOut);
    expect(decide({ timeLeftMs: 1 })).toStrictEqual({ kind: 'switch', nextIndex: 1 });
  });

  it('switches by hand regardless of switchOn and maxSwitches, but only to a next harness', () => {
    expect(decide({ outcome: 'switched', switchOn: new Set(), maxSwitches: 0 })).toStrictEqual({
      kind: 'switch',
      nextIndex: 1,
    });
    expect(decide({ outcome: 'switched', switchesMade: 4, maxSwitches: 1, chainIndex: 1 })).toStrictEqual({
      kind: 'switch',
      nextIndex: 2,
    });
    expect(decide({ outcome: 'switched', chainIndex: 2 })).toStrictEqual({
      kind: 'end',
      state: 'failed',
      why: 'no harness left in the chain',
      chainEnd: true,
    });
  });
});

describe('finalState', () => {
  it('maps every outcome to the state an execution ends in', () => {
    const expected: Record<Outcome, string> = {
      completed: 'succeeded',
      quota_exhausted: 'failed',
      rate_limited: 'failed',
      overloaded: 'failed',
      auth_failed: 'failed',
      failed: 'failed',
      timed_out: 'timed_out',
      canceled: 'canceled',
      crashed: 'failed',
      switched: 'failed',
    };
    expect(Object.fromEntries(OUTCOMES.map((outcome) => [outcome, finalState(outcome)]))).toStrictEqual(expected);
  });
});
