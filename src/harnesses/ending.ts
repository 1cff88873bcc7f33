/**
 * Helpers the adapters' classifiers share: finding the last event of a type, describing an exit
 * status, and classifying a turn whose CLI printed no final result line (Claude's `result`, Codex's
 * `turn.completed` / `turn.failed`) from its exit status and stderr tail alone. Pure.
 */
import type { HarnessEvent } from '../events/schema.js';
import type { Classification, ClassifyInput } from './adapter.js';

/** Each harness event type's payload, by type. */
type DataByType = { [E in HarnessEvent as E['type']]: E['data'] };

/** Returns the data of the last event of `type` that `accept` accepts (default: any). */
export function lastEvent<T extends keyof DataByType>(
  events: readonly HarnessEvent[],
  type: T,
  accept: (data: DataByType[T]) => boolean = () => true,
): DataByType[T] | undefined {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index];
    if (event?.type !== type) continue;
    // The union cannot narrow on a generic `type`; the check above is what makes this cast true.
    const data = event.data as unknown as DataByType[T];
    if (accept(data)) return data;
  }
  return undefined;
}

/**
 * A command-line usage error as both CLIs print it before doing anything: Codex's clap
 * (`error: unexpected argument '--full-auto' found`, exit 2, note §4.2) and Claude's commander
 * (`error: unknown option '--x'`). Deterministic, so it is `failed`, not `crashed`.
 */
const USAGE_ERROR = /^error: /;

/** Returns the last non-empty line of a text, trimmed. */
export function lastLine(text: string): string | undefined {
  const lines = text.split('\n').map((line) => line.trim());
  return lines.filter((line) => line !== '').at(-1);
}

/** Describes an exit status in words, e.g. `exited with code 1`, `killed by SIGKILL`. */
export function describeExit(exitCode: number | null, signal: string | null): string {
  if (signal !== null) return `killed by ${signal}`;
  return exitCode === null ? 'ended' : `exited with code ${exitCode}`;
}

/**
 * Classifies a turn without a final result line: `failed` with the stderr line when it matches one of
 * `refusals` (the CLI refused to start, e.g. Claude as root) or is a usage error; otherwise `crashed`
 * (the process died, or exited 0, before reporting how the turn ended), naming the exit status and
 * the last stderr line.
 */
export function classifyWithoutResult(input: ClassifyInput, refusals: readonly RegExp[]): Classification {
  const lines = input.stderrTail.split('\n').map((line) => line.trim());
  const refusal = lines.find((line) => refusals.some((pattern) => pattern.test(line)) || USAGE_ERROR.test(line));
  if (refusal !== undefined) return { outcome: 'failed', message: refusal };
  const last = lastLine(input.stderrTail);
  const status = `${describeExit(input.exitCode, input.signal)} before a final result`;
  return { outcome: 'crashed', message: last === undefined ? status : `${status}: ${last}` };
}
