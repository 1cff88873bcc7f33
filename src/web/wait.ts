/**
 * A waiting execution's wait, as the Workbench shows it: which harness it waits for and when that
 * harness resets, from the latest `quota.waiting` record (the list's `include=waits`, or the detail
 * page's event stream). `followWait` folds the stream into the wait still open; `describeWait`,
 * `resetTime` and `resetNote` are the words shown. DOM-free, so it is unit-tested in Node.
 */
import type { EventRecord } from './records.js';

/** The data of a `quota.waiting` record (docs/quota.md); `known: false` marks an estimated reset. */
export interface Wait {
  readonly harness: string;
  readonly until: string;
  readonly known: boolean;
}

/**
 * The wait open after `record`, given the one open before it: a `quota.waiting` opens one; a
 * `wait.ended`, an `attempt.started` or the `execution.ended` closes it; any other record leaves it.
 */
export function followWait(open: Wait | undefined, record: EventRecord): Wait | undefined {
  switch (record.type) {
    case 'quota.waiting': {
      const { harness, until, known } = record.data;
      if (typeof harness !== 'string' || typeof until !== 'string') return open;
      return { harness, until, known: known !== false };
    }
    case 'wait.ended':
    case 'attempt.started':
    case 'execution.ended':
      return undefined;
    default:
      return open;
  }
}

/**
 * When `until` is, in the browser's time zone: `14:05`, with the date in front when it is not on
 * `now`'s day (`Mar 2, 14:05`).
 */
export function resetTime(wait: Wait, now: Date): string {
  const at = new Date(wait.until);
  const time = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false });
  const sameDay = at.toDateString() === now.toDateString();
  return sameDay ? time : `${at.toLocaleDateString([], { month: 'short', day: 'numeric' })}, ${time}`;
}

/** How far off the reset is: `in 59 min`, `reset passed`; `, estimated` added when the harness gave no reset time. */
export function resetNote(wait: Wait, now: Date): string {
  const left = Date.parse(wait.until) - now.getTime();
  return `${left > 0 ? `in ${inWords(left)}` : 'reset passed'}${wait.known ? '' : ', estimated'}`;
}

/** `waiting for claude-code, which resets at 14:05 (in 59 min)`. */
export function describeWait(wait: Wait, now: Date): string {
  return `waiting for ${wait.harness}, which resets at ${resetTime(wait, now)} (${resetNote(wait, now)})`;
}

/** `2 h 05 min`, `59 min`, `under a minute`: a countdown to a reset, to the minute. */
function inWords(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'under a minute';
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return hours > 0 ? `${hours} h ${String(rest).padStart(2, '0')} min` : `${minutes} min`;
}
