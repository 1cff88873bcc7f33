/**
 * `harmflow events ID`: an execution's timeline, one line per record (cli/timeline.ts) — on a
 * terminal cut at its width and coloured, piped whole and plain (cli/timeline-output.ts) — or its
 * records as JSON lines; `--follow` keeps printing as records are appended, until the execution
 * ends or Ctrl-C. Loaded by the verb's action (cli/records.ts), so `ls` and `show` do not load the event
 * schemas.
 */
import { followEvents, readEvents } from '../events/log.js';
import type { EventRecord } from '../events/schema.js';
import { printLine } from './print-line.js';
import { terminalOutput } from './terminal-output.js';
import { timelineLines } from './timeline-output.js';

export interface EventsOptions {
  readonly json?: boolean;
  readonly follow?: boolean;
  /** Skip this many records (a number as typed; not one reads as 0). */
  readonly from: string;
}

/** Prints the records of the log at `file`. */
export async function printEvents(file: string, options: EventsOptions): Promise<void> {
  const from = Number.parseInt(options.from, 10) || 0;
  const timeline = timelineLines(terminalOutput(process.stdout, process.env));
  const lineOf = (record: EventRecord) => (options.json ? JSON.stringify(record) : timeline(record));
  if (!options.follow) {
    // One write for the whole log (a write a line cost more than the formatting).
    const lines = readEvents(file, { from }).flatMap((record) => lineOf(record) ?? []);
    if (lines.length > 0) printLine(lines.join('\n'));
    return;
  }
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  for await (const record of followEvents(file, { from, signal: controller.signal })) {
    const line = lineOf(record);
    if (line !== undefined) printLine(line);
    if (record.type === 'execution.ended') controller.abort();
  }
}
