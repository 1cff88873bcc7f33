/**
 * Decides what follows an attempt: success, a switch to the next harness of the chain, or the end
 * of the execution. Pure: every input is given, so each rule is tested on its own.
 */
import type { ExecutionState, Outcome } from '../core/outcome.js';

export interface SwitchInput {
  readonly outcome: Outcome;
  /** Outcomes that switch (quota_exhausted plus the task's `failoverOn`). */
  readonly switchOn: ReadonlySet<Outcome>;
  /** Index in the chain of the harness that just ran. */
  readonly chainIndex: number;
  readonly chainLength: number;
  readonly switchesMade: number;
  readonly maxSwitches: number;
  readonly timeLeftMs: number;
}

export type Decision =
  | { readonly kind: 'switch'; readonly nextIndex: number }
  | {
      readonly kind: 'end';
      readonly state: ExecutionState;
      readonly why: string;
      /** True when only the end of the chain stopped a switch (a wait for a quota reset may still follow). */
      readonly chainEnd?: true;
    };

/** The state an execution ends in when an attempt with this outcome is its last. */
export function finalState(outcome: Outcome): ExecutionState {
  if (outcome === 'completed') return 'succeeded';
  if (outcome === 'timed_out') return 'timed_out';
  if (outcome === 'canceled') return 'canceled';
  return 'failed';
}

/**
 * Decides after an attempt. A `switched` attempt needs only a next harness and time: it was ended
 * before its limit (switchAtUtilization), after the drive checked a switch was left and a link free
 * (a switch asked by hand is carried out by the drive itself and never reaches here). Other automatic
 * switches also need the outcome in `switchOn` and a switch left under `maxSwitches`.
 */
export function decideAfterAttempt(input: SwitchInput): Decision {
  const end = (why: string): Decision => ({ kind: 'end', state: finalState(input.outcome), why });
  if (input.outcome === 'completed') return end('the attempt completed');
  if (input.outcome === 'timed_out') return end('the deadline has passed');
  if (input.outcome === 'canceled') return end('it was canceled');
  const switchedEarly = input.outcome === 'switched';
  if (!switchedEarly && !input.switchOn.has(input.outcome)) return end(`${input.outcome} does not switch harness`);
  if (input.chainIndex + 1 >= input.chainLength) {
    return { kind: 'end', state: finalState(input.outcome), why: 'no harness left in the chain', chainEnd: true };
  }
  if (!switchedEarly && input.switchesMade >= input.maxSwitches) {
    return end(`no switch left (maxSwitches: ${input.maxSwitches})`);
  }
  if (input.timeLeftMs <= 0) return { kind: 'end', state: 'timed_out', why: 'the deadline has passed' };
  return { kind: 'switch', nextIndex: input.chainIndex + 1 };
}
