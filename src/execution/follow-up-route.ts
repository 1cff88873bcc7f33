/**
 * Which harness session the next follow-up turn goes on in: the one rule of session routing. An
 * execution is the stable session the user sees; each attempt runs one real harness session. The
 * next turn resumes the session of the attempt that ran last when that attempt's last turn completed
 * and its harness reported a session id; otherwise it starts a new attempt (a fresh harness session,
 * given the handoff), and the route says why. Pure: the engine follows it (a reopen in engine.ts, the
 * next turn of a running attempt in drive.ts), and the views show it (session-routing.ts), so what
 * they show is what happens.
 */
import type { Outcome } from '../core/outcome.js';

/** What the rule reads of the attempt that ran last (a context.json entry, a store row, a running attempt). */
export interface LastSession {
  readonly number: number;
  readonly harness: string;
  /** How its last turn ended. */
  readonly outcome: Outcome;
  /** The harness session it ran in, as its harness's stream reported it (or the one it resumed). */
  readonly sessionId?: string | undefined;
  /** The attempt whose private home holds that session, when it is not the attempt's own. */
  readonly sessionHome?: number | undefined;
}

/**
 * Where the next follow-up goes: `resume` the session of attempt `attempt` on `harness` (the CLI's
 * own resume: `--resume`, `exec resume`, `-s`), run with the private home of attempt `home`, where
 * the CLI keeps it; or `fresh`, a new attempt with the handoff, for `reason`.
 */
export type FollowUpRoute =
  | {
      readonly kind: 'resume';
      readonly harness: string;
      readonly sessionId: string;
      readonly attempt: number;
      readonly home: number;
    }
  | { readonly kind: 'fresh'; readonly reason: string };

/** The route of the next follow-up after `last` (undefined: no attempt has ended yet). */
export function followUpRoute(last: LastSession | undefined): FollowUpRoute {
  if (last === undefined) return { kind: 'fresh', reason: 'no attempt has ended yet' };
  if (last.outcome !== 'completed') {
    return { kind: 'fresh', reason: `attempt ${last.number} (${last.harness}) ended ${last.outcome}` };
  }
  if (last.sessionId === undefined) return { kind: 'fresh', reason: `${last.harness} reported no session to resume` };
  return {
    kind: 'resume',
    harness: last.harness,
    sessionId: last.sessionId,
    attempt: last.number,
    home: last.sessionHome ?? last.number,
  };
}
