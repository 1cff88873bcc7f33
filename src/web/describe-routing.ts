/**
 * An execution's session routing in words (the `routing` of `GET /api/executions/:id`, built by
 * src/execution/session-routing.ts; docs/service.md, "Session routing"): one line per harness
 * session, one for the attempt running, one for where the next follow-up goes. Shared by
 * `harmflow show` and the Workbench's Summary, so both say the same.
 */

/** One harness session of the routing, as the API sends it. */
export interface RoutedSession {
  readonly harness: string;
  readonly sessionId?: string;
  readonly attempts: readonly number[];
  readonly turns?: readonly string[];
  readonly resumedFrom?: string;
}

export type NextFollowUp =
  | { readonly kind: 'resume'; readonly harness: string; readonly sessionId: string; readonly attempt: number }
  | { readonly kind: 'fresh' | 'waits' | 'refused'; readonly reason: string };

export interface SessionRouting {
  readonly execution: string;
  readonly sessions: readonly RoutedSession[];
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
