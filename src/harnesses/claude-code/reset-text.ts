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

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** `resets [Nov 30, [2027, ]]9[:40]am (Zone/Name)`; the first one is the limit that was hit. */
const RESETS =
  /\bresets (?:([a-z]{3}) (\d{1,2}), (?:(\d{4}), )?)?(\d{1,2})(?::(\d{2}))?[ \u202f]?([ap]m) \(([^()\s]+)\)/i;

interface Clock {
  readonly hour: number;
  readonly minute: number;
}

interface WallTime extends Clock {
  readonly year: number;
  /** 1–12. */
  readonly month: number;
  readonly day: number;
}

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
  const [, monthName, day, year, hour12, minute = '0', meridiem = '', zone = ''] = match;
  const clock = clockOf(Number(hour12), Number(minute), meridiem);
  const format = zoneFormat(zone);
  if (clock === undefined || format === undefined) return undefined;
  const at =
    monthName === undefined
      ? nextWallTime(format, clock, now)
      : datedWallTime(
          format,
          { month: MONTHS.indexOf(monthName.toLowerCase()) + 1, day: Number(day), ...clock },
          year,
          now,
        );
  return at === undefined ? undefined : new Date(at).toISOString();
}

/** A 12-hour clock reading as 24-hour time; undefined when it is no time of day. */
function clockOf(hour12: number, minute: number, meridiem: string): Clock | undefined {
  if (hour12 < 1 || hour12 > 12 || minute > 59) return undefined;
  return { hour: (hour12 % 12) + (meridiem.toLowerCase() === 'pm' ? 12 : 0), minute };
}

/** A formatter showing wall time in `timeZone`; undefined when the runtime knows no such zone. */
function zoneFormat(timeZone: string): Intl.DateTimeFormat | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
  } catch {
    return undefined;
  }
}

/** The wall time `format`'s zone shows at `instant`. */
function wallAt(format: Intl.DateTimeFormat, instant: number): WallTime {
  const parts = format.formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((item) => item.type === type)?.value);
  return { year: part('year'), month: part('month'), day: part('day'), hour: part('hour'), minute: part('minute') };
}

/** The same wall time read as if it were UTC, in epoch ms (Date.UTC rolls impossible dates over). */
function asUtc(wall: WallTime): number {
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
}

/**
 * Every instant at which the zone's clock reads `wall`, earliest first: none in a DST gap or for an
 * impossible date, two where a DST change repeats it. The zone's offsets a day either side of the
 * wall time are the only ones it can have there.
 */
function instantsOf(format: Intl.DateTimeFormat, wall: WallTime): number[] {
  const guess = asUtc(wall);
  if (new Date(guess).getUTCDate() !== wall.day) return [];
  const offsets = new Set([guess - DAY_MS, guess + DAY_MS].map((instant) => asUtc(wallAt(format, instant)) - instant));
  return [...offsets]
    .map((offset) => guess - offset)
    .filter((instant) => asUtc(wallAt(format, instant)) === guess)
    .sort((a, b) => a - b);
}

/** The first instant showing `clock` today or tomorrow in the zone whose minute is not over at `now`. */
function nextWallTime(format: Intl.DateTimeFormat, clock: Clock, now: number): number | undefined {
  const today = wallAt(format, now);
  for (const days of [0, 1]) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + days));
    const wall = { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), ...clock };
    const at = instantsOf(format, wall).find((instant) => instant + MINUTE_MS > now);
    if (at !== undefined) return at;
  }
  return undefined;
}

/**
 * The earliest instant showing `wall` in `year`, or without one in the year that puts that wall time
 * nearest to `now`'s wall time in the zone.
 */
function datedWallTime(
  format: Intl.DateTimeFormat,
  wall: Omit<WallTime, 'year'>,
  year: string | undefined,
  now: number,
): number | undefined {
  if (wall.month < 1) return undefined;
  const today = wallAt(format, now);
  const distance = (candidate: number) => Math.abs(asUtc({ ...wall, year: candidate }) - asUtc(today));
  const nearest = [today.year, today.year + 1, today.year - 1].reduce((best, candidate) =>
    distance(candidate) < distance(best) ? candidate : best,
  );
  return instantsOf(format, { ...wall, year: year === undefined ? nearest : Number(year) })[0];
}
