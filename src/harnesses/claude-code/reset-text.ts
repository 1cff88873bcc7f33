/**
 * Claude Code's reset time, read from the text of a subscription-limit result (reference note §3.6):
 * `You've hit your 5-hour limit · resets 9:40am (UTC)`, `… · resets Nov 30, 9:41am (UTC)`. Pure:
 * `now` stands in for the clock.
 *
 * Claude Code (2.1.332, its minified `JN`) writes the reset as en-US wall time in the IANA zone it
 * names in parentheses (the user's zone, e.g. `America/New_York`): the time alone when the reset is at
 * most 24 hours away (`9:40am`, or `9am` on the hour), otherwise with the date (`Nov 30, 9:41am`),
 * and with the year too when that is not the current year in the zone (`Jan 2, 2027, 9:41am`). It
 * cuts the seconds, so the reset lies within the minute shown.
 */
import { resetInstant } from '../wall-time.js';

/** `resets [Nov 30, [2027, ]]9[:40]am (Zone/Name)`; the first one is the limit that was hit. */
const RESETS =
  /\bresets (?:([a-z]{3}) (\d{1,2}), (?:(\d{4}), )?)?(\d{1,2})(?::(\d{2}))?[ \u202f]?([ap]m) \(([^()\s]+)\)/i;

/**
 * Reads the reset time out of a Claude Code limit text as ISO 8601 (UTC), or undefined when the text
 * names none, names an impossible date or time, or names a zone this runtime does not know. A time
 * alone is the first such wall time in that zone whose minute has not passed at `now` (epoch ms):
 * today in the zone, or tomorrow. A date without a year is taken in the year that puts it nearest to
 * `now`: the current one, unless the text is read across a New Year (`Jan 2` read on Dec 31 is next
 * year's). Where a DST change repeats the wall time, the earlier instant that fits is taken.
 */
export function parseClaudeResetText(text: string, now: number): string | undefined {
  const match = RESETS.exec(text);
  if (match === null) return undefined;
  const [, monthName, day, year, hour12 = '', minute = '0', meridiem = '', zone = ''] = match;
  return resetInstant({ monthName, day, year, hour12, minute, meridiem }, zone, now);
}
