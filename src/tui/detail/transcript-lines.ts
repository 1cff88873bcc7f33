/**
 * The Transcript tab as lines, like the Workbench's (src/web/dom/transcript.ts), from the same
 * records as the Events tab: the user's turns (`You`, marked when handed over to the next harness
 * after a switch or redelivered after a restart), the assistant's messages under its harness's name,
 * tool calls (`$ name shell`) each with its result under it — ok or failed and the first lines of
 * its output — and a note where an attempt starts or the execution switches harness. A result
 * arrives after its call with other records between, so the records are first gathered into
 * entries, results joined to their calls by id, then rendered. Pure.
 */
import type { EventRecord } from '../../web/records.js';
import { BLANK, hanging, type Line, paragraph } from './lines.js';

/** Rows of a tool's output shown under its call; the rest are counted. */
const OUTPUT_ROWS = 5;

interface ToolResult {
  readonly ok: boolean;
  readonly exitCode?: number;
  readonly output: string;
}

type Entry =
  | { readonly kind: 'user'; readonly text: string; readonly delivery: string }
  | { readonly kind: 'assistant'; readonly harness: string; readonly text: string }
  | { readonly kind: 'tool'; readonly call: string; result?: ToolResult }
  | { readonly kind: 'note'; readonly text: string };

export function transcriptLines(records: readonly EventRecord[], width: number): Line[] {
  return entriesOf(records).flatMap((entry, index) => [...(index === 0 ? [] : [BLANK]), ...entryLines(entry, width)]);
}

/** The harness the turn `turn` was delivered to, once its `turn.started` is among `records`; else undefined. */
export function deliveredTo(records: readonly EventRecord[], turn: string): string | undefined {
  const started = records.find((record) => record.type === 'turn.started' && record.data.turn === turn);
  return started === undefined ? undefined : (started.harness ?? 'the harness');
}

function entriesOf(records: readonly EventRecord[]): Entry[] {
  const entries: Entry[] = [];
  /** Tool calls by id, to put each result under its call. */
  const calls = new Map<string, Extract<Entry, { kind: 'tool' }>>();
  for (const record of records) {
    const d = record.data;
    const text = (key: string) => (typeof d[key] === 'string' ? (d[key] as string) : '');
    switch (record.type) {
      case 'turn.started':
        entries.push({ kind: 'user', text: text('text'), delivery: text('delivery') });
        break;
      case 'message':
        entries.push({ kind: 'assistant', harness: record.harness ?? 'assistant', text: text('text') });
        break;
      case 'tool.call': {
        const files = Array.isArray(d.files) ? d.files.filter((file) => typeof file === 'string').join(', ') : '';
        const entry = { kind: 'tool' as const, call: `${text('name')} ${text('shell') || files}`.trim() };
        calls.set(text('id'), entry);
        entries.push(entry);
        break;
      }
      case 'tool.result': {
        const result: ToolResult = {
          ok: d.ok === true,
          ...(typeof d.exitCode === 'number' && { exitCode: d.exitCode }),
          output: text('output'),
        };
        const call = calls.get(text('id'));
        if (call === undefined) entries.push({ kind: 'tool', call: '', result });
        else call.result = result;
        break;
      }
      case 'attempt.started':
        entries.push({ kind: 'note', text: `Attempt ${record.attempt ?? '?'} on ${record.harness ?? '?'}` });
        break;
      case 'failover':
        entries.push({ kind: 'note', text: `Switched ${text('from')} → ${text('to')} (${text('reason')})` });
        break;
      default:
        break;
    }
  }
  return entries;
}

/** How a turn's delivery is marked; none for the first. */
const DELIVERY_MARKS: Readonly<Record<string, string>> = { handoff: ' (handed over)', redelivered: ' (redelivered)' };

function entryLines(entry: Entry, width: number): Line[] {
  switch (entry.kind) {
    case 'user':
      return [
        ...paragraph(`You${DELIVERY_MARKS[entry.delivery] ?? ''}`, width, 'user'),
        ...paragraph(entry.text, width, undefined, '  '),
      ];
    case 'assistant':
      return [...paragraph(entry.harness, width, 'assistant'), ...paragraph(entry.text, width, undefined, '  ')];
    case 'tool':
      return [
        ...(entry.call === '' ? [] : hanging('$ ', entry.call, width, 'muted')),
        ...(entry.result === undefined ? [] : resultLines(entry.result, width)),
      ];
    case 'note':
      return paragraph(`— ${entry.text} —`, width, 'switch');
  }
}

/** `ok` or `failed (exit 1)`, then at most OUTPUT_ROWS rows of the output and how many more there are. */
function resultLines(result: ToolResult, width: number): Line[] {
  const status = `${result.ok ? 'ok' : 'failed'}${result.exitCode === undefined ? '' : ` (exit ${result.exitCode})`}`;
  const output = result.output.trimEnd();
  const rows = output === '' ? [] : paragraph(output, width, 'muted', '    ');
  const more = rows.length - OUTPUT_ROWS;
  return [
    ...paragraph(status, width, result.ok ? 'ok' : 'error', '  '),
    ...rows.slice(0, OUTPUT_ROWS),
    ...(more > 0 ? paragraph(`… ${more} more line${more === 1 ? '' : 's'}`, width, 'muted', '    ') : []),
  ];
}
