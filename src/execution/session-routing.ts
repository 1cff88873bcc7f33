/**
 * Session routing, made visible: an execution is the stable session the user sees; each attempt ran a
 * real harness session. `sessionRouting` maps the one to the others — which harness sessions the
 * ended attempts ran in (an attempt that resumed a session joins it), the attempt running now, and
 * where the next follow-up goes, by the rule the engine follows (follow-up-route.ts). Pure: it reads
 * the execution's store rows and its context.json entries, and guesses nothing: a session id is the
 * one the harness's stream reported (`session.started`), or the one its attempt was started with,
 * resuming it; absent when neither. `show --json`, the API's execution detail and the Workbench's
 * Summary show it (docs/service.md, "Session routing").
 */
import { type ExecutionState, FINAL_STATES } from '../core/outcome.js';
import type { AttemptRecord } from '../store/store.js';
import type { NextFollowUp, RoutedSession, SessionRouting } from '../web/describe-routing.js';
import type { AttemptContext } from './context-schema.js';
import { followUpRoute, type LastSession } from './follow-up-route.js';

/** The routing's shape is the views' (web/describe-routing.ts, which the Workbench compiles on its own). */
export type { NextFollowUp, RoutedSession, SessionRouting };

export interface RoutingInput {
  readonly execution: { readonly id: string; readonly state: ExecutionState };
  /** The execution's attempt rows, by number (the store's). */
  readonly attempts: readonly AttemptRecord[];
  /** Its context.json entries (ended attempts); an ended attempt missing there is read from its row. */
  readonly context: readonly AttemptContext[];
}

/** The execution's session routing. */
export function sessionRouting({ execution, attempts, context }: RoutingInput): SessionRouting {
  const entries = new Map(context.map((entry) => [entry.number, entry]));
  const ended = attempts.flatMap((row): EndedAttempt[] => {
    const entry = entries.get(row.number);
    if (entry !== undefined) return [entry];
    return row.outcome === undefined ? [] : [{ ...row, outcome: row.outcome }];
  });
  const live = attempts.find((row) => row.endedAt === undefined);
  const running = live && { attempt: live.number, harness: live.harness };
  return {
    execution: execution.id,
    sessions: sessionsOf(ended),
    ...(running !== undefined && { running }),
    nextFollowUp: nextFollowUp(execution.state, running, ended.at(-1)),
  };
}

type EndedAttempt = LastSession & {
  readonly resumedSession?: string | undefined;
  readonly turns?: readonly string[] | undefined;
};

interface SessionEntry {
  harness: string;
  sessionId?: string;
  attempts: number[];
  turns?: string[];
  resumedFrom?: string;
}

function sessionsOf(ended: readonly EndedAttempt[]): RoutedSession[] {
  const sessions: SessionEntry[] = [];
  for (const attempt of ended) {
    const resumed = attempt.resumedSession;
    const joined =
      resumed !== undefined && attempt.sessionId === resumed
        ? sessions.findLast((session) => session.sessionId === resumed && session.harness === attempt.harness)
        : undefined;
    if (joined !== undefined) {
      joined.attempts.push(attempt.number);
      // Turns only when every attempt of the session says which it had.
      if (joined.turns !== undefined && attempt.turns !== undefined) joined.turns.push(...attempt.turns);
      else delete joined.turns;
      continue;
    }
    sessions.push({
      harness: attempt.harness,
      ...(attempt.sessionId !== undefined && { sessionId: attempt.sessionId }),
      attempts: [attempt.number],
      ...(attempt.turns !== undefined && { turns: [...attempt.turns] }),
      ...(resumed !== undefined && resumed !== attempt.sessionId && { resumedFrom: resumed }),
    });
  }
  return sessions;
}

function nextFollowUp(
  state: ExecutionState,
  running: SessionRouting['running'],
  last: EndedAttempt | undefined,
): NextFollowUp {
  if (FINAL_STATES.has(state) && state !== 'succeeded') {
    return { kind: 'refused', reason: `the execution ended ${state}: it takes no more messages` };
  }
  if (running !== undefined) {
    return {
      kind: 'waits',
      reason: `attempt ${running.attempt} (${running.harness}) is running: a follow-up waits for its turn, then goes on in its session if that turn completes`,
    };
  }
  if (state !== 'succeeded' && (last === undefined || last.outcome !== 'completed')) {
    return {
      kind: 'waits',
      reason: `the execution is ${state}: a follow-up waits for the turn in flight, then goes on in the session that turn ends in`,
    };
  }
  const route = followUpRoute(last);
  if (route.kind === 'fresh') return route;
  return { kind: 'resume', harness: route.harness, sessionId: route.sessionId, attempt: route.attempt };
}
