/**
 * The timeline as `events`, `run` and the demo print it: each record's line (cli/timeline.ts), cut
 * at a terminal's width and its state or outcome coloured where TerminalOutput says so
 * (cli/terminal-output.ts); whole and plain when piped. A workspace warning is never cut: what it
 * says is the point of the run. Colours: green for what succeeded, yellow for an end that leaves the
 * work to carry on or to a person (quota, limits, a switch, a cancel), red for a failure; a switch's
 * line and a warning's are yellow throughout. Every distinction is in the words too, for NO_COLOR.
 */
import type { ExecutionState, Outcome } from '../core/outcome.js';
import type { EventRecord } from '../events/schema.js';
import { type Colour, fitLine, paint, type TerminalOutput } from './terminal-output.js';
import { formatRecord } from './timeline.js';

const OUTCOME_COLOUR: Readonly<Record<Outcome, Colour>> = {
  completed: 'green',
  quota_exhausted: 'yellow',
  rate_limited: 'yellow',
  overloaded: 'yellow',
  switched: 'yellow',
  canceled: 'yellow',
  auth_failed: 'red',
  failed: 'red',
  timed_out: 'red',
  crashed: 'red',
};

/** The states an execution ends in (`execution.ended`); the live ones are never its word. */
const STATE_COLOUR: Readonly<Partial<Record<ExecutionState, Colour>>> = {
  succeeded: 'green',
  canceled: 'yellow',
  failed: 'red',
  timed_out: 'red',
};

/** The line of each record as `output` wants it; undefined for a record the timeline leaves out. */
export function timelineLines(output: TerminalOutput): (record: EventRecord) => string | undefined {
  return (record) => {
    const line = formatRecord(record);
    if (line === undefined) return undefined;
    const fitted = record.type === 'workspace.warning' ? line : fitLine(line, output.width);
    return output.colour ? coloured(record, fitted) : fitted;
  };
}

/** `line` with the record's state or outcome painted (the first time it appears after the type). */
function coloured(record: EventRecord, line: string): string {
  if (record.type === 'failover' || record.type === 'workspace.warning') return paint(line, 'yellow');
  const [word, colour] =
    record.type === 'execution.ended'
      ? [record.data.state, STATE_COLOUR[record.data.state]]
      : record.type === 'attempt.ended' || record.type === 'turn.ended'
        ? [record.data.outcome, OUTCOME_COLOUR[record.data.outcome]]
        : [];
  if (word === undefined || colour === undefined) return line;
  const at = line.indexOf(word, line.indexOf(record.type) + record.type.length);
  // A word the cut took away keeps no colour.
  if (at < 0) return line;
  return `${line.slice(0, at)}${paint(word, colour)}${line.slice(at + word.length)}`;
}
