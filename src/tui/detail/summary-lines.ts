/**
 * The Summary tab as lines, like the Workbench's (src/web/dom/summary.ts): the warning the
 * execution's end carries (`⚠ Warning: every commit failed: …`), the facts — task, state,
 * repository, base, branch, worktree, disk, deadline — the wait when the execution waits for a
 * reset, the chain as a table of attempts, the harness sessions the attempts ran in and where the
 * next follow-up goes (the execution's `routing`, in web/describe-routing.ts's words), and what each
 * attempt did from `context.json`: each work
 * item with what its harness reported kept apart from what HarmFlow observed and what was tried and
 * not done (describe-work-item.ts). An unconfirmed item is marked in text, which NO_COLOR keeps: `⚠`
 * in place of its bullet and a `⚠ unconfirmed` line with the sentence. Pure: the view fetches the
 * execution, its context and its disk and passes them in (`undefined` while one is loading, the
 * Error when fetching it failed).
 */
import type { ExecutionWithAttempts } from '../../cli/client.js';
import type { ExecutionContext } from '../../execution/context-schema.js';
import type { ExecutionDisk } from '../../execution/execution-disk.js';
import { describeEnd } from '../../web/describe-event.js';
import { describeNextFollowUp, describeRunning, describeSession } from '../../web/describe-routing.js';
import {
  type DescribedWorkItem,
  isUnconfirmed,
  lastMessageLabel,
  PART_LABEL_WIDTH,
  PART_LABELS,
  workItemParts,
} from '../../web/describe-work-item.js';
import { formatBytes, formatDuration, formatTokens, formatUsd } from '../../web/format.js';
import { describeWait, type Wait } from '../../web/wait.js';
import { BLANK, fitLine, hanging, type Line, paragraph, type Tone, textWidth, toned, truncate } from './lines.js';

export interface SummaryInput {
  readonly execution: ExecutionWithAttempts['execution'];
  readonly attempts: ExecutionWithAttempts['attempts'];
  /** `undefined` while it loads. */
  readonly context: ExecutionContext | Error | undefined;
  /** `undefined` while it loads. */
  readonly disk: ExecutionDisk | Error | undefined;
  /** The wait the execution is in, if it waits. */
  readonly wait: Wait | undefined;
  /** Its session routing, when the answer has it (the execution's detail; not the list's preview). */
  readonly routing?: ExecutionWithAttempts['routing'];
  readonly now: Date;
}

/** The facts' labels take this many columns, the space after them included. */
const LABEL_WIDTH = 12;

export function summaryLines(input: SummaryInput, width: number): Line[] {
  const { execution } = input;
  const end = describeEnd(execution.state, execution.message);
  const facts: [label: string, value: string, tone?: Tone | undefined][] = [
    ['Task', execution.taskName],
    ['State', end.state, end.warning !== undefined ? 'warn' : stateTone(execution.state)],
    ['Repository', execution.repo],
    ['Base', `${execution.baseRef} (${execution.baseSha.slice(0, 12)})`],
    ['Branch', execution.branch],
    ['Workspace', execution.worktree],
    ['Disk', diskText(input.disk)],
    ['Deadline', new Date(execution.deadline).toLocaleString()],
  ];
  const labelWidth = Math.min(LABEL_WIDTH, Math.floor(width / 2));
  return [
    ...(end.warning === undefined ? [] : [...hanging('⚠ ', `Warning: ${end.warning}`, width, 'warn'), BLANK]),
    ...facts.flatMap(([label, value, tone]) =>
      hanging(truncate(label, labelWidth - 1).padEnd(labelWidth), value, width, tone),
    ),
    ...(input.wait === undefined
      ? []
      : [BLANK, ...paragraph(sentence(describeWait(input.wait, input.now)), width, 'switch')]),
    BLANK,
    ...paragraph('Chain', width, 'heading'),
    ...chainLines(input.attempts, width),
    ...routingLines(input.routing, width),
    BLANK,
    ...paragraph('What each attempt did (context.json)', width, 'heading'),
    ...contextLines(input.context, width),
  ];
}

/** `Sessions`, a `• ` line per harness session and for the attempt running, then the next follow-up. */
function routingLines(routing: SummaryInput['routing'], width: number): Line[] {
  if (routing === undefined) return [];
  return [
    BLANK,
    ...paragraph('Sessions', width, 'heading'),
    ...routing.sessions.flatMap((session) => hanging('• ', describeSession(session), width)),
    ...(routing.running === undefined ? [] : hanging('• ', describeRunning(routing.running), width, 'muted')),
    ...hanging('Next follow-up: ', describeNextFollowUp(routing.nextFollowUp), width),
  ];
}

function stateTone(state: string): Tone | undefined {
  if (state === 'succeeded') return 'ok';
  if (state === 'failed' || state === 'timed_out') return 'error';
  return state === 'waiting' ? 'switch' : undefined;
}

/** `worktree 12.3 MiB · run directory 1.2 MiB`, or when gc removed the worktree; `loading…`; the error. */
function diskText(disk: ExecutionDisk | Error | undefined): string {
  if (disk === undefined) return 'loading…';
  if (disk instanceof Error) return `unknown: ${disk.message}`;
  const worktree =
    disk.worktreeRemovedAt === undefined
      ? `worktree ${formatBytes(disk.worktreeBytes)}`
      : `worktree removed on ${new Date(disk.worktreeRemovedAt).toLocaleString()} by gc (the branch keeps its commits)`;
  return `${worktree} · run directory ${formatBytes(disk.runBytes)}`;
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

type Attempt = ExecutionWithAttempts['attempts'][number];

type ColumnName = 'number' | 'harness' | 'model' | 'duration' | 'outcome' | 'tokens' | 'cost';

interface Column {
  readonly name: ColumnName;
  readonly header: string;
  readonly alignRight: boolean;
  /** Each row's text, the full one first and shorter ones to use when it does not fit. */
  readonly cells: readonly (readonly string[])[];
}

/**
 * How the chain's table gives way when it is wider than the width, step by step until it fits: a
 * column narrowed down to a floor (`short`: its rows' shortest forms, `(sim)` for `(simulated)`), or
 * dropped, the least telling first. `#`, harness and outcome always stay; past the last step, rows
 * are cut.
 */
const GIVING_WAY: readonly { readonly column: ColumnName; readonly floor: number | 'short' | 'drop' }[] = [
  { column: 'model', floor: 10 },
  { column: 'harness', floor: 'short' },
  { column: 'cost', floor: 'drop' },
  { column: 'tokens', floor: 'drop' },
  { column: 'model', floor: 'drop' },
  { column: 'outcome', floor: 9 },
  { column: 'harness', floor: 8 },
  { column: 'duration', floor: 'drop' },
];

function chainLines(attempts: readonly Attempt[], width: number): Line[] {
  if (attempts.length === 0) return paragraph('No attempt yet.', width, 'muted');
  const { columns, widths } = fitTable(chainColumns(attempts), width);
  const row = (texts: readonly (readonly string[])[]) =>
    fitLine(
      columns
        .map((column, index) => {
          const cellWidth = widths[index] ?? 1;
          const cell = fitCell(texts[index] ?? [''], cellWidth);
          return column.alignRight ? cell.padStart(cellWidth) : cell.padEnd(cellWidth);
        })
        .join(' ')
        .trimEnd(),
      width,
    );
  return [
    toned(row(columns.map((column) => [column.header])), 'muted'),
    ...attempts.map((_, index) => ({ text: row(columns.map((column) => column.cells[index] ?? [''])) })),
  ];
}

function chainColumns(attempts: readonly Attempt[]): Column[] {
  const column = (name: ColumnName, header: string, alignRight: boolean, cell: (attempt: Attempt) => string[]) => ({
    name,
    header,
    alignRight,
    cells: attempts.map(cell),
  });
  return [
    column('number', '#', true, (attempt) => [String(attempt.number)]),
    column('harness', 'Harness', false, (attempt) =>
      attempt.simulated ? [`${attempt.harness} (simulated)`, `${attempt.harness} (sim)`] : [attempt.harness],
    ),
    column('model', 'Model', false, (attempt) => [attempt.model ?? '–']),
    column('duration', 'Duration', false, (attempt) => [
      attempt.endedAt === undefined
        ? 'running'
        : formatDuration(Date.parse(attempt.endedAt) - Date.parse(attempt.startedAt)),
    ]),
    column('outcome', 'Outcome', false, (attempt) => [attempt.outcome ?? '–']),
    column('tokens', 'Tokens', true, (attempt) => [
      formatTokens(
        attempt.inputTokens === undefined && attempt.outputTokens === undefined
          ? undefined
          : (attempt.inputTokens ?? 0) + (attempt.outputTokens ?? 0),
      ),
    ]),
    column('cost', 'Cost', true, (attempt) => [formatUsd(attempt.costUsd)]),
  ];
}

/** The columns kept and their widths: each as wide as its header and full texts, then GIVING_WAY until they fit. */
function fitTable(all: readonly Column[], width: number): { columns: Column[]; widths: number[] } {
  let columns = [...all];
  let widths = columns.map((column) =>
    Math.max(column.header.length, ...column.cells.map((cell) => textWidth(cell[0] ?? ''))),
  );
  for (const step of GIVING_WAY) {
    const excess = tableWidth(widths) - width;
    if (excess <= 0) break;
    const index = columns.findIndex((column) => column.name === step.column);
    const column = columns[index];
    const current = widths[index];
    if (column === undefined || current === undefined) continue;
    if (step.floor === 'drop') {
      columns = columns.filter((_, kept) => kept !== index);
      widths = widths.filter((_, kept) => kept !== index);
      continue;
    }
    const floor =
      step.floor === 'short'
        ? Math.max(column.header.length, ...column.cells.map((cell) => textWidth(cell.at(-1) ?? '')))
        : step.floor;
    widths[index] = Math.min(current, Math.max(floor, current - excess));
  }
  return { columns, widths };
}

/** The widths and a space between each two columns. */
function tableWidth(widths: readonly number[]): number {
  return widths.reduce((sum, each) => sum + each, 0) + Math.max(0, widths.length - 1);
}

/** The first of a cell's forms that fits `width`, else its shortest cut to it. */
function fitCell(forms: readonly string[], width: number): string {
  return forms.find((form) => textWidth(form) <= width) ?? truncate(forms.at(-1) ?? '', width);
}

function contextLines(context: ExecutionContext | Error | undefined, width: number): Line[] {
  if (context === undefined) return paragraph('Loading…', width, 'muted');
  if (context instanceof Error) return paragraph(context.message, width, 'error');
  if (context.attempts.length === 0) return paragraph('No attempt has ended yet.', width, 'muted');
  return [
    ...paragraph(
      'Reported: what the harness said in its plan, not checked. Observed: what HarmFlow saw (exit codes, the branch, the remote).',
      width,
      'muted',
    ),
    ...context.attempts.flatMap((attempt) => [
      BLANK,
      ...paragraph(`Attempt ${attempt.number}: ${attempt.harness} — ${attempt.outcome}`, width, 'heading'),
      ...(attempt.lastMessage
        ? paragraph(`${lastMessageLabel(attempt.harness)}: ${attempt.lastMessage}`, width, undefined, '  ')
        : []),
      ...attempt.workItems.flatMap((item) => workItemLines(item, width)),
    ]),
  ];
}

/** Where the parts of a work item start, under its text. */
const PART_INDENT = '    ';

/**
 * One work item: `  - text` (`  ⚠ text` when unconfirmed), then its parts under it, one label each
 * — `reported`, `⚠ unconfirmed`, `observed`, `tried` — a part of several entries one entry a line.
 */
function workItemLines(item: DescribedWorkItem, width: number): Line[] {
  const parts = workItemParts(item);
  const unconfirmed = isUnconfirmed(item);
  const part = (label: string, entries: readonly string[], tone?: Tone): Line[] =>
    entries.flatMap((entry, index) =>
      hanging(`${PART_INDENT}${(index === 0 ? label : '').padEnd(PART_LABEL_WIDTH)}`, entry, width, tone),
    );
  return [
    ...hanging(unconfirmed ? '  ⚠ ' : '  - ', parts.text, width, unconfirmed ? 'warn' : undefined),
    ...(parts.reported !== undefined ? part(PART_LABELS.reported, [parts.reported]) : []),
    ...(parts.unconfirmed !== undefined ? part(PART_LABELS.unconfirmed, [parts.unconfirmed], 'warn') : []),
    ...part(PART_LABELS.observed, parts.observed),
    ...part(PART_LABELS.tried, parts.tried, 'error'),
  ];
}
