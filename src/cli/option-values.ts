/**
 * Parsers of command-line option values shared by the long-running commands (`serve`, `worker`): each
 * returns the value or throws a UsageError of one line naming the option and what it was given.
 */
import { longerThanMaximum, parseDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { MAX_INTERRUPT_BUDGET_MS } from '../core/task.js';

/** A whole number from `min` to `max` written in digits only (`-1`, `1.5`, `1e3` are refused). */
export function integerOption(text: string, option: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new UsageError(`${option}: not an integer from ${min} to ${max}: ${text}`);
  }
  return value;
}

/**
 * A duration (`30s`, `2m`) of at most `maxMs`, in milliseconds; undefined when the option was not
 * given. The default maximum is the task's interrupt budget's (1 h): every duration option of `serve`
 * and `worker` is a budget (`--interrupt-budget`, `--close-budget`) that holds a cancel or a stop.
 */
export function durationOption(
  text: string | undefined,
  option: string,
  maxMs = MAX_INTERRUPT_BUDGET_MS,
): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === undefined) throw new UsageError(`${option}: not a duration (examples: 30s, 2m): ${text}`);
  if (ms > maxMs) throw new UsageError(`${option}: ${longerThanMaximum(text, maxMs)}`);
  return ms;
}

/** A size in GiB, zero or more, in bytes. */
export function gibOption(text: string, option: string): number {
  const gib = Number(text);
  if (text.trim() === '' || !Number.isFinite(gib) || gib < 0) throw new UsageError(`${option}: not a size: ${text}`);
  return gib * 1024 ** 3;
}

/** Commander's argument parser of a repeatable option: each value added to the ones before. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
