/**
 * An execution's session routing in words (the `routing` of `GET /api/executions/:id`, built by
 * src/execution/session-routing.ts; docs/service.md, "Session routing"): one line per harness
 * session, one for the attempt running, one for where the next follow-up goes. Shared by
 * `harmflow show` and the Workbench's Summary, so both say the same.
 */

/**
 * One harness session the execution's ended attempts ran in. These types are the routing's one
 * definition: src/execution/session-routing.ts builds it, the API sends it, the views word it.
 */
export interface RoutedSession {
  readonly harness: string;
  /** As the harness's stream reported it; absent: the harness reported none. */
  readonly sessionId?: string;
  /** The attempts that ran in it, in order: the first started it, each later one resumed it. */
  readonly attempts: readonly number[];
  /** The turns delivered in it, in order; absent when an attempt's context.json entry does not say. */
  readonly turns?: readonly string[];
  /** The session its first attempt was started with, resuming it, when the harness then reported another id. */
  readonly resumedFrom?: string;
}

/**
 * Where the next follow-up goes: `resume` the session of attempt `attempt`; `fresh`, a new attempt
 * (a new harness session, given the handoff), for `reason`; `waits` for the turn in flight, and goes
 * on in the session that turn ends in; `refused`, the execution has ended and takes no messages.
 */
export type NextFollowUp =
  | { readonly kind: 'resume'; readonly harness: string; readonly sessionId: string; readonly attempt: number }
  | { readonly kind: 'fresh'; readonly reason: string }
  | { readonly kind: 'waits'; readonly reason: string }
  | { readonly kind: 'refused'; readonly reason: string };

export interface SessionRouting {
  /** The execution's id: the session the user sees. */
  readonly execution: string;
  /** The sessions of the ended attempts, in the order they started. */
  readonly sessions: readonly RoutedSession[];
  /** The attempt running now: its session is recorded when it ends. */
  readonly running?: { readonly attempt: number; readonly harness: string };
  readonly nextFollowUp: NextFollowUp;
}

/**
 * `claude-code session 5f1c… — attempt 1, resumed by attempts 3 and 4; turns t1, t2 and t3`; `codex,
 * no session id reported — attempt 2`; `… — attempt 5, which resumed 5f1c…` when the harness gave
 * the resumed session a new id.
 */
export function describeSession(session: RoutedSession): string {
  const [first, ...later] = session.attempts;
  const name =
    session.sessionId === undefined
      ? `${session.harness}, no session id reported`
      : `${session.harness} session ${session.sessionId}`;
  const from = session.resumedFrom === undefined ? '' : `, which resumed ${session.resumedFrom}`;
  const resumedBy =
    later.length === 0 ? '' : `, resumed by ${later.length === 1 ? 'attempt' : 'attempts'} ${words(later)}`;
  const turns =
    session.turns === undefined || session.turns.length === 0
      ? ''
      : `; ${session.turns.length === 1 ? 'turn' : 'turns'} ${words(session.turns)}`;
  return `${name} — attempt ${first ?? '?'}${from}${resumedBy}${turns}`;
}

/** `attempt 6 on codex: its session is recorded when it ends`. */
export function describeRunning(running: NonNullable<SessionRouting['running']>): string {
  return `attempt ${running.attempt} on ${running.harness}: its session is recorded when it ends`;
}

/** Where the next follow-up goes, in one sentence. */
export function describeNextFollowUp(next: NextFollowUp): string {
  switch (next.kind) {
    case 'resume':
      return `resumes ${next.harness} session ${next.sessionId} (attempt ${next.attempt}'s)`;
    case 'fresh':
      return `starts a new harness session, with the handoff: ${next.reason}`;
    case 'waits':
      return next.reason;
    case 'refused':
      return `refused: ${next.reason}`;
  }
}

/** `3`, `3 and 4`, `3, 4 and 5`. */
function words(items: readonly (number | string)[]): string {
  const texts = items.map(String);
  return texts.length <= 1 ? (texts[0] ?? '') : `${texts.slice(0, -1).join(', ')} and ${texts.at(-1)}`;
}
