/**
 * The facts an execution's record carries so that lists need not read its log: the URL of the latest
 * pull request its attempts opened and how many turns its harnesses completed. Both are what the
 * engine observed: a pull request only as context.json has it (`gh pr create` exited 0 and printed its
 * URL), a turn only once its harness completed it. Pure.
 */
import type { AttemptContext } from './context-schema.js';
import type { Turn } from './turns.js';

/**
 * The URL of the latest pull request in `attempts` (context.json's, in order): of the last attempt
 * that opened one, the last plan entry's. Undefined while none was opened.
 */
export function latestPullRequestUrl(attempts: readonly AttemptContext[]): string | undefined {
  let url: string | undefined;
  for (const attempt of attempts) {
    for (const item of attempt.workItems) url = item.pullRequest?.url ?? url;
  }
  return url;
}

/**
 * How many turns are completed once `turn` is: its number. Turns are numbered `t1`, `t2`, … as they
 * are queued, run in that order, and a turn is completed (removed from its queue) before the next
 * one starts; a turn carried on after a switch or delivered again after a restart keeps its number.
 * So the completed turns are always `t1` … `tN`, whatever attempts and processes ran them.
 */
export function turnsCompletedWith(turn: Pick<Turn, 'id'>): number {
  const number = Number(turn.id.slice(1));
  if (!turn.id.startsWith('t') || !Number.isSafeInteger(number) || number < 1) {
    throw new Error(`turn id ${JSON.stringify(turn.id)} is not t<number>`);
  }
  return number;
}
