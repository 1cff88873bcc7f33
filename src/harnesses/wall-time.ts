/**
 * Wall time in a named IANA time zone, for the reset times the CLIs print as a clock reading
 * (`9:40am`, `Nov 30th, 2026 9:31 AM`) rather than an instant, and the zone a harness process runs
 * in. Pure apart from `harnessTimeZone`, which reads HarmFlow's own zone: every other function takes
 * the zone as a formatter from `zoneFormat` and the clock as `now` (epoch ms), so nothing here
 * depends on the time zone of the process that runs it.
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** A time of day, 24-hour. */
interface Clock {
  readonly hour: number;
  readonly minute: number;
}

/** A calendar date and time of day as a zone's clock shows it. */
interface WallTime extends Clock {
  readonly year: number;
  /** 1–12. */
  readonly month: number;
  readonly day: number;
}

/** 1–12 for an English month abbreviation (`Nov`, any case), 0 for anything else (no date has it). */
function monthOf(abbreviation: string): number {
  return MONTHS.indexOf(abbreviation.toLowerCase()) + 1;
}

/** A 12-hour clock reading (`am`/`pm`, any case) as 24-hour time; undefined when it is no time of day. */
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

/**
 * The first instant showing `clock` in `format`'s zone whose minute is not over at `now`: today in
 * the zone (the text may cut seconds that are still ahead), else tomorrow. Where a DST change repeats
 * the wall time, the earlier instant that fits; undefined when neither day has one left (a DST gap).
 */
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
 * The earliest instant showing `wall` in `format`'s zone in `year`, or, without one, in the year that
 * puts that wall time nearest to `now`'s wall time in the zone (`Jan 2` read on Dec 31 is next
 * year's). Undefined for an impossible date (month 0, `Feb 30`) or a wall time a DST gap skips.
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

/** A reset as a CLI printed it: the clock reading, the date when it gave one (strings as matched). */
export interface PrintedReset {
  readonly hour12: string;
  readonly minute: string;
  readonly meridiem: string;
  readonly monthName?: string | undefined;
  readonly day?: string | undefined;
  readonly year?: string | undefined;
}

/**
 * The instant a printed reset names, read as wall time in `timeZone`, ISO 8601: without a date, the
 * first such time of day whose minute is not over at `now` (today or tomorrow in the zone); with
 * one, that date (its year, or the nearest). Undefined for an impossible date or time, a wall time a
 * DST gap skips, or a zone this runtime does not know.
 */
export function resetInstant(printed: PrintedReset, timeZone: string, now: number): string | undefined {
  const clock = clockOf(Number(printed.hour12), Number(printed.minute), printed.meridiem);
  const format = zoneFormat(timeZone);
  if (clock === undefined || format === undefined) return undefined;
  const { monthName, day, year } = printed;
  const at =
    monthName === undefined
      ? nextWallTime(format, clock, now)
      : datedWallTime(format, { month: monthOf(monthName), day: Number(day), ...clock }, year, now);
  return at === undefined ? undefined : new Date(at).toISOString();
}

/**
 * The IANA zone a harness started with `env` runs in, as HarmFlow reads the wall times it prints:
 * `env.TZ` when Intl knows it as a zone (`Asia/Tokyo`, also `EST5EDT`, `Etc/GMT-9`), else HarmFlow's
 * own zone. The engine sets the result as `TZ` for a harness whose task sets none, so the two agree.
 *
 * A `TZ` Intl cannot read (a POSIX rule such as `CET-1CEST,M3.5.0,M10.5.0/3`, `:/etc/localtime`, an
 * empty or misspelt one) still reaches the CLI as the task wrote it, and HarmFlow's zone stands in:
 * right for `:/etc/localtime` when HarmFlow itself runs in the system zone, wrong for a rule or a
 * misspelling (the CLI then keeps its rule or falls back to UTC). HarmFlow's own zone is its `TZ`,
 * else the system's, at the call; UTC when ICU cannot name it either (Node resolves an unreadable
 * `TZ` to no zone and an empty one to `Etc/Unknown`, and runs both as UTC).
 */
export function harnessTimeZone(env: Readonly<Record<string, string | undefined>>): string {
  const own: string | undefined = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return [env.TZ, own].find((zone) => zone !== undefined && zoneFormat(zone) !== undefined) ?? 'UTC';
}
