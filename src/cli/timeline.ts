/**
 * The timeline's lines for people: one line per record — its time, attempt and harness, type, and
 * the describer's words (src/web/describe-event.ts, the same as the Workbench's and the terminal
 * UI's) — with switches and the workspace's warnings set apart on lines of their own. Each line is
 * whole (cli/timeline-output.ts cuts it at a terminal's width). Pure; the `events`, `run` and `demo`
 * commands print what it returns. A line is inert (core/terminal-text.ts): what a harness wrote
 * shows its control characters as escapes (`\x1b`), so printing it cannot drive the user's terminal.
 *
 * Left out (undefined): a `gate.allowed` with no notes (isRoutine) — there is one per tool call,
 * right beside the call's own `tool.call` line, and it would say only that the gates let it
 * through; one with notes (what a gate could not check) is a line. `--json` prints every record.
 */
import { inertText } from '../core/terminal-text.js';
import type { EventRecord } from '../events/schema.js';
import { describeEvent, isRoutine } from '../web/describe-event.js';

/** One record as an inert line; undefined for records not worth a line. */
export function formatRecord(record: EventRecord): string | undefined {
  return isRoutine(record) ? undefined : inertText(lineOf(record));
}

function lineOf(record: EventRecord): string {
  const time = record.ts.slice(11, 23);
  const who = record.attempt !== undefined ? `#${record.attempt} ${record.harness ?? ''}` : 'execution';
  const text = describeEvent(record);
  if (record.type === 'failover') {
    const rule = '═'.repeat(8);
    return `${rule} ${time}  SWITCH ${text} ${rule}`;
  }
  if (record.type === 'workspace.warning') {
    // The `⚠` the describer marks it with is the WARNING here.
    return `${'!'.repeat(8)} ${time}  WARNING${record.attempt !== undefined ? ` (${who})` : ''} ${text.replace(/^⚠ /, '')}`;
  }
  return `${time}  ${who.padEnd(16)} ${record.type.padEnd(19)} ${text}`;
}
