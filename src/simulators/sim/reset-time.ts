/**
 * Reset times as the real CLIs print them in their limit messages, in the process's local time zone
 * (TZ), as the real CLIs do:
 *   Claude Code: `9:40am (UTC)`, or `Nov 30, 9:41am (UTC)` when the reset is not today;
 *   Codex:       `9:31 AM`.
 * Built by hand rather than with Intl's time formats, whose spacing before AM/PM (U+202F on newer ICU)
 * differs between Node builds.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Rounds up to the next whole minute, so a time read back from the text is never before the reset. */
export function ceilToMinute(date: Date): Date {
  return new Date(Math.ceil(date.getTime() / 60_000) * 60_000);
}

function clock(date: Date): { hour: number; minute: string; pm: boolean } {
  const hours = date.getHours();
  return {
    hour: hours % 12 === 0 ? 12 : hours % 12,
    minute: String(date.getMinutes()).padStart(2, '0'),
    pm: hours >= 12,
  };
}

/** Claude Code's reset text, e.g. `9:40am (UTC)` or `Nov 30, 9:41am (UTC)`. */
export function claudeResetText(resetsAt: Date, now: Date): string {
  const shown = ceilToMinute(resetsAt);
  const { hour, minute, pm } = clock(shown);
  const sameDay = shown.toDateString() === now.toDateString();
  const day = sameDay ? '' : `${MONTHS[shown.getMonth()]} ${shown.getDate()}, `;
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return `${day}${hour}:${minute}${pm ? 'pm' : 'am'} (${zone})`;
}

/** Codex's reset text, e.g. `9:31 AM`. */
export function codexResetText(resetsAt: Date): string {
  const { hour, minute, pm } = clock(ceilToMinute(resetsAt));
  return `${hour}:${minute} ${pm ? 'PM' : 'AM'}`;
}
