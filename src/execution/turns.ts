/**
 * Turns: the prompts an execution delivers to its harness sessions, in order. The first turn is the
 * task's prompt; every follow-up message is one more. The engine takes turns from a `TurnSource`
 * and says when each is done; the source decides where they are kept (in memory for `harmflow run`,
 * in the durable `queue.json` for the session service, src/service/queue.ts).
 */

/** One turn: its id (`t1`, `t2`, …, unique in the execution) and the text the user wrote. */
export interface Turn {
  readonly id: string;
  readonly text: string;
  /** True when an earlier process was running this turn when it stopped: it is delivered again. */
  readonly redelivered: boolean;
}

/**
 * Where an execution's turns come from. One engine drives a source at a time. `next()` hands out the
 * turn in flight if there is one (a turn not yet done: after a switch it goes on in the next attempt),
 * else the oldest queued one, which becomes the turn in flight; undefined when nothing is queued.
 * `done(turn)` removes the turn in flight for good once its harness completed it.
 */
export interface TurnSource {
  next(): Turn | undefined;
  done(turn: Turn): void;
  /**
   * For a source that keeps its turns elsewhere (cluster mode: PostgreSQL): resolves once what
   * `next` and `done` changed is durable there. The engine awaits it after each of those calls,
   * before the turn reaches a harness, so no turn starts before the previous one is recorded done.
   * A source whose `next` and `done` are durable when they return has none.
   */
  flush?(): Promise<void>;
}

/** The prefix of a turn delivered again because HarmFlow stopped while it ran (issue 4's wording). */
export const REDELIVERY_PREFIX = '(Delivered again: HarmFlow restarted while this turn ran.)';

/** A source of exactly one turn, `t1`, kept in memory: what `harmflow run` drives. */
export function singleTurn(text: string): TurnSource {
  const turn: Turn = { id: 't1', text, redelivered: false };
  let finished = false;
  return {
    next: () => (finished ? undefined : turn),
    done: () => {
      finished = true;
    },
  };
}
