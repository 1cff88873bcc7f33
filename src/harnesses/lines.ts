/**
 * Small helpers every adapter's parser uses to turn one CLI output line into event data: JSON
 * decoding that never throws, the `raw` fallback event, output clipping and time conversion.
 * Pure functions, no state.
 */
import type { z } from 'zod';
import type { HarnessEvent } from '../events/schema.js';
import type { LineParser } from './adapter.js';

/**
 * The most characters of tool output an event keeps. 4000: enough for a failing test's summary and
 * a git command's whole answer, small enough that a chatty command does not bloat `events.jsonl`.
 */
export const OUTPUT_LIMIT = 4000;

/**
 * How many of the kept characters come from the start of a clipped output. The rest come from its
 * end: a commit prints `[branch sha] subject` first, while pushes, `gh pr create` and test runners
 * print their result last, so both ends matter and the middle matters least.
 */
const HEAD_SHARE = 1000;

/** Decodes one line as JSON; returns undefined when it is not JSON. Never throws. */
export function parseJsonLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

/** Parses `value` with `schema` and maps the result; undefined when it does not match. Never throws. */
export function parseAs<S extends z.ZodType, R>(
  schema: S,
  value: unknown,
  map: (data: z.infer<S>) => R,
): R | undefined {
  const parsed = schema.safeParse(value);
  return parsed.success ? map(parsed.data) : undefined;
}

/**
 * Makes a never-throwing `LineParser` from a per-line decoder: blank lines give nothing, and a line
 * the decoder does not recognize (undefined) or chokes on (throws) is kept as a `raw` event.
 */
export function keepingRaw(decode: (line: string) => HarnessEvent[] | undefined): LineParser {
  return (line) => {
    if (line.trim() === '') return [];
    try {
      return decode(line) ?? [rawLine(line)];
    } catch {
      return [rawLine(line)];
    }
  };
}

/** Wraps a stdout line no schema recognized, so it is kept rather than lost. */
export function rawLine(line: string): HarnessEvent {
  return { type: 'raw', data: { stream: 'stdout', line } };
}

/** Clips text to at most `limit` characters, keeping its start and end; says whether it cut anything. */
export function clipOutput(text: string, limit = OUTPUT_LIMIT): { output: string; truncated: boolean } {
  if (text.length <= limit) return { output: text, truncated: false };
  const marker = `\n… [${text.length - limit} characters cut] …\n`;
  const head = Math.min(HEAD_SHARE, Math.floor(limit / 4));
  const tail = Math.max(0, limit - head - marker.length);
  return { output: text.slice(0, head) + marker + text.slice(text.length - tail), truncated: true };
}

/** Converts Unix epoch seconds to ISO 8601; undefined for a value that is not a valid time. */
export function isoFromEpochSeconds(seconds: number): string | undefined {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
