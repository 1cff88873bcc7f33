/**
 * Durations as users write them in task files: `45m`, `1h30m`, `90s`, `500ms`, or a bare number of
 * seconds. Parsing is strict: anything else is an error naming the text. Parsing does not bound: a
 * duration that arms a timer or a deadline is checked against its maximum by whoever reads it (the
 * task schema, the CLI's options), with `longerThanMaximum` saying why it is refused.
 *
 * The grammar is one regular expression, `DURATION_PATTERN`: the parser accepts a text only when it
 * matches, and the task file's JSON schema publishes it as the `pattern` of every duration, so an
 * editor and `harmflow run` accept the same texts.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const NUMBER = '\\d+(?:\\.\\d+)?';
/** `ms` before `m`, so `5ms` is never read as `5m` then `s`. */
const UNITS = 'ms|s|m|h|d';
/** A written zero (`0`, `0.0`, `0s`, `0h0m`): not a duration, since nothing can wait for it. */
const ZERO = `(?:0+(?:\\.0+)?(?:${UNITS})?)+`;

/**
 * A duration as text, as an ECMAScript regular expression (the dialect of JSON Schema's `pattern`):
 * optional white space around either a bare number of seconds (`600`, `1.5`) or one or more parts
 * with units (`1h30m`, `500ms`), never zero, no space inside, no sign, no exponent.
 */
export const DURATION_PATTERN = `^\\s*(?!${ZERO}\\s*$)(?:${NUMBER}|(?:${NUMBER}(?:${UNITS}))+)\\s*$`;
const DURATION = new RegExp(DURATION_PATTERN);
/** Each part of a text that matched DURATION: its number and its unit. */
const PARTS = new RegExp(`(${NUMBER})(${UNITS})`, 'g');

/**
 * Parses a duration to milliseconds, or returns undefined when the text is not one (a number: when
 * it is not finite and above zero). A finite but absurd one (`1e308` seconds) may come back as
 * Infinity: compare it with a maximum.
 */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text > 0 ? text * 1000 : undefined;
  if (!DURATION.test(text)) return undefined;
  const trimmed = text.trim();
  if (/^[\d.]+$/.test(trimmed)) return Number(trimmed) * 1000;
  let total = 0;
  for (const match of trimmed.matchAll(PARTS)) total += Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? Number.NaN);
  return total;
}

/**
 * Why `value` (a duration as it was written) is refused when it parses to more than `maxMs`:
 * `800h is longer than the maximum, 720h`. A bare number is said to be seconds, as it is read.
 */
export function longerThanMaximum(value: string | number, maxMs: number): string {
  const written = typeof value === 'number' ? `${value} (seconds)` : value.trim();
  return `${written} is longer than the maximum, ${formatDuration(maxMs).replaceAll(' ', '')}`;
}

/** Formats milliseconds for people: `1h 5m`, `42s`, `850ms`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = Math.round(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return [h ? `${h}h` : '', m ? `${m}m` : '', s || (!h && !m) ? `${s}s` : ''].filter(Boolean).join(' ');
}
