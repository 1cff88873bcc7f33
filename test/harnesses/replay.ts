/**
 * Replays a recorded harness output (test/fixtures/<harness>/<name>.jsonl) through an adapter: every
 * line through one parser, then the turn's classification with a given exit status.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HarnessName } from '../../src/core/outcome.js';
import type { HarnessEvent } from '../../src/events/schema.js';
import type { Classification, ClassifyInput, HarnessAdapter } from '../../src/harnesses/adapter.js';

/** Returns the lines of a fixture file, without the final newline. */
export function fixtureLines(harness: HarnessName, name: string): string[] {
  const url = new URL(`../fixtures/${harness}/${name}.jsonl`, import.meta.url);
  const text = readFileSync(fileURLToPath(url), 'utf8');
  return text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
}

/** Runs each line through a fresh parser of `adapter`; returns every event, in order. */
export function parseLines(adapter: HarnessAdapter, lines: readonly string[]): HarnessEvent[] {
  const parse = adapter.createParser();
  return lines.flatMap((line) => parse(line));
}

export interface Replay {
  readonly events: HarnessEvent[];
  readonly classification: Classification;
}

/** Parses a fixture and classifies the turn as if the process ended with `end`, having run in `end.timeZone` (UTC). */
export function replay(
  adapter: HarnessAdapter,
  name: string,
  end: { exitCode: number | null; signal?: string | null; stderrTail?: string; timeZone?: string },
  classify: (input: ClassifyInput) => Classification = adapter.classify,
): Replay {
  const events = parseLines(adapter, fixtureLines(adapter.name, name));
  const classification = classify({
    exitCode: end.exitCode,
    signal: end.signal ?? null,
    stderrTail: end.stderrTail ?? '',
    timeZone: end.timeZone ?? 'UTC',
    events,
  });
  return { events, classification };
}
