/**
 * The Events tab as text, like the Workbench's timeline (src/web/dom/timeline.ts): one row per
 * record — its local time, attempt, harness, type and describeEvent's line — the tone that makes
 * the switch story and the refusals stand out, and the whole record as lines for `Enter`. Pure: the
 * view owns the selection, the filter and scrolling.
 */
import { describeEvent } from '../../web/describe-event.js';
import { isSwitchRelated } from '../../web/keys/timeline.js';
import type { EventRecord } from '../../web/records.js';
import { fitLine, type Line, paragraph, type Tone, wrapText } from './lines.js';

/** The harness column: the longest harness name, `claude-code`. */
const HARNESS_WIDTH = 11;
/** The type column: the common types fit (`execution.started`, `attempt.started`); a longer one pushes its line on. */
const TYPE_WIDTH = 16;

/** `14:05:09 #2  codex       failover         switch 1/2: claude-code → codex (quota_exhausted)`, cut to `width`. */
export function eventRow(record: EventRecord, width: number): string {
  const attempt = record.attempt === undefined ? '' : `#${record.attempt}`;
  const cells = [
    clockTime(record.ts),
    attempt.padEnd(3),
    (record.harness ?? '').padEnd(HARNESS_WIDTH),
    record.type.padEnd(TYPE_WIDTH),
    describeEvent(record),
  ];
  return fitLine(cells.join(' '), width);
}

/** The record opened: a heading with its id, time and type, then the record as indented JSON. */
export function eventRecordLines(record: EventRecord, id: number, width: number): Line[] {
  return [
    ...paragraph(`Event ${id} · ${clockTime(record.ts)} · ${record.type}`, width, 'heading'),
    ...wrapText(JSON.stringify(record, null, 2), width).map((text) => ({ text })),
  ];
}

/** States an execution ends in that went wrong. */
const FAILED_STATES: ReadonlySet<string> = new Set(['failed', 'timed_out']);

/**
 * `switch` for the records of a harness switch (isSwitchRelated: what `n`/`N` jump between),
 * `error` for a gate's refusal (denied; flagged, when the call ran anyway; failed closed) and an
 * execution that ended failed or timed out, `warn` for a workspace's warning (its line is marked
 * `⚠` too, for NO_COLOR), `muted` for the gates' allowing of a call (one per call); undefined for
 * the rest.
 */
export function eventTone(record: EventRecord): Tone | undefined {
  if (isSwitchRelated(record.type)) return 'switch';
  switch (record.type) {
    case 'gate.denied':
    case 'gate.flagged':
      return 'error';
    case 'gate.failed':
      return record.data.decision === 'deny' ? 'error' : undefined;
    case 'workspace.warning':
      return 'warn';
    case 'gate.allowed':
      return 'muted';
    case 'execution.ended':
      return typeof record.data.state === 'string' && FAILED_STATES.has(record.data.state) ? 'error' : undefined;
    default:
      return undefined;
  }
}

/**
 * The local time of an ISO timestamp, `HH:MM:SS` on a 24-hour clock whatever the locale (the
 * columns stay aligned); `--:--:--` for a timestamp that does not parse.
 */
function clockTime(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '--:--:--';
  return [at.getHours(), at.getMinutes(), at.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':');
}
