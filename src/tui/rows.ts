/**
 * What the list screens show of an execution, as pure functions of the API's records: the cells of
 * a row, the filter, and the screens' scopes of keys. The Workbench's columns that fit 80 columns
 * (src/web/dom/executions.ts, history.ts): id, task, state (History: the outcome), harness (History:
 * the harnesses in the order they ran), attempts, and age (Executions: since it was created;
 * History: since it ended); and those a wider terminal has room for (list-columns.ts), from what the
 * list's `include=attempts,owners` carries: how long it ran, its tokens and cost summed over its
 * attempts, on Executions when the harness a waiting execution waits for resets, the turns it
 * completed, its pull request, and on Executions the process that drives it. Disk and the timeout
 * are left for the detail view (the list does not carry them).
 */
import type { ExecutionList } from '../cli/client.js';
import { ownerCell, pullRequestCell } from '../web/execution-cells.js';
import { formatTokens, formatUsd } from '../web/format.js';
import { GLOBAL_KEYS, LIST_KEYS, TERMINAL_KEYS } from '../web/keys/keymap.js';
import { resetTime } from '../web/wait.js';
import type { Scope } from './help.js';
import type { ListedRun } from './run-rows.js';

/** The screens that list executions: live ones, and ended ones. */
export type ExecutionScreen = 'executions' | 'history';
/** Every list screen: the executions' two, and the workflow runs' (run-rows.ts). */
export type Screen = ExecutionScreen | 'workflows';

/** The screens in `Tab` order, and their titles (the Workbench's). */
export const SCREENS: readonly Screen[] = ['executions', 'history', 'workflows'];
export const SCREEN_TITLES: Readonly<Record<Screen, string>> = {
  executions: 'Executions',
  history: 'History',
  workflows: 'Workflows',
};

/** One listed execution with its attempts and, while it has one, the process its owner file names. */
export type ListedExecution = ExecutionList['executions'][number] & {
  readonly attempts: ExecutionList['attempts'][string];
  readonly owner?: NonNullable<ExecutionList['owners']>[string];
};

/** Each list screen's rows as last received: executions on Executions and History, runs on Workflows. */
export interface ScreenRows {
  readonly executions?: readonly ListedExecution[];
  readonly history?: readonly ListedExecution[];
  readonly workflows?: readonly ListedRun[];
}

/** The list's executions in its order, each with its attempts (none when the answer maps none to it) and owner. */
export function listedOf(list: ExecutionList): ListedExecution[] {
  return list.executions.map((execution) => {
    const owner = list.owners?.[execution.id];
    return { ...execution, attempts: list.attempts[execution.id] ?? [], ...(owner !== undefined && { owner }) };
  });
}

/** The text of one row's cells. */
export interface Cells {
  readonly id: string;
  readonly task: string;
  readonly state: string;
  readonly harness: string;
  readonly attempts: string;
  readonly age: string;
}

/** The text of the cells a wider table adds (list-columns.ts), computed only where they show. */
export interface WideCells {
  /** From its start to its end, or to now while it runs; `–` before it starts. */
  readonly elapsed: string;
  /** Input and output tokens of every attempt that reported them; `–` when none did. */
  readonly tokens: string;
  /** The cost every attempt that reported one adds up to; `–` when none did. */
  readonly cost: string;
  /** When the harness a waiting execution waits for resets (its attempt's `resetsAt`); `–` otherwise. */
  readonly resets: string;
  /** The turns its harnesses completed; `–` on a record written before HarmFlow counted them. */
  readonly turns: string;
  /** The pull request it opened, `#42`; `–` while none was. */
  readonly pr: string;
  /** The pid and host of the process that drives it, `4242@build-1`, `(gone)` when that process is; `–` for none. */
  readonly owner: string;
}

/**
 * 14 characters of the 26 of an id: a ULID's first 10 are its millisecond, the next 4 random
 * (20 bits), so two executions created in the same millisecond still differ in what is shown.
 * `/` finds an execution by this prefix; the detail view shows the whole id.
 */
export const SHOWN_ID_LENGTH = 14;

export function cellsOf(row: ListedExecution, screen: ExecutionScreen, now: number): Cells {
  const since = screen === 'executions' ? row.createdAt : (row.endedAt ?? row.createdAt);
  return {
    id: row.id.slice(0, SHOWN_ID_LENGTH),
    task: row.taskName,
    state: row.state,
    harness: screen === 'executions' ? (row.currentHarness ?? '–') : chainOf(row) || '–',
    attempts: String(row.attemptCount),
    age: formatAge(now - Date.parse(since)),
  };
}

export function wideCellsOf(row: ListedExecution, now: number): WideCells {
  return {
    elapsed:
      row.startedAt === undefined
        ? '–'
        : formatElapsed((row.endedAt === undefined ? now : Date.parse(row.endedAt)) - Date.parse(row.startedAt)),
    tokens: formatTokens(sumOf(row.attempts, (attempt) => addKnown(attempt.inputTokens, attempt.outputTokens))),
    cost: formatUsd(sumOf(row.attempts, (attempt) => attempt.costUsd)),
    resets: resetsOf(row, now),
    turns: row.turnCount === undefined ? '–' : String(row.turnCount),
    pr: row.pullRequestUrl === undefined ? '–' : pullRequestCell(row.pullRequestUrl),
    owner: row.owner === undefined ? '–' : ownerCell(row.owner),
  };
}

type ListedAttempt = ListedExecution['attempts'][number];

/** The sum of the values `of` knows, undefined when it knows none. */
function sumOf(
  attempts: readonly ListedAttempt[],
  of: (attempt: ListedAttempt) => number | undefined,
): number | undefined {
  return attempts.reduce<number | undefined>((sum, attempt) => addKnown(sum, of(attempt)), undefined);
}

function addKnown(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : a + b;
}

/** The reset a waiting execution waits for, from its latest attempt that gave one: `14:05`, or `Mar 2, 14:05` on another day. */
function resetsOf(row: ListedExecution, now: number): string {
  if (row.state !== 'waiting') return '–';
  const attempt = row.attempts.findLast((candidate) => candidate.resetsAt !== undefined);
  if (attempt?.resetsAt === undefined) return '–';
  return resetTime({ harness: attempt.harness, until: attempt.resetsAt, known: true }, new Date(now));
}

/** A duration in its two largest units, 6 characters at most below 100 days: `45s`, `4m05s`, `1h02m`, `3d04h`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const two = (value: number) => String(value).padStart(2, '0');
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${two(seconds % 60)}s`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h${two(Math.floor(seconds / 60) % 60)}m`;
  return `${Math.floor(seconds / 86_400)}d${two(Math.floor(seconds / 3600) % 24)}h`;
}

/** The harnesses an execution ran on, in order, a repeat of the same one shown once (`claude-code→codex`). */
function chainOf(row: ListedExecution): string {
  const chain: string[] = [];
  for (const attempt of row.attempts) if (chain.at(-1) !== attempt.harness) chain.push(attempt.harness);
  return chain.join('→');
}

/** A duration in its largest whole unit, at most 4 characters: `9s`, `12m`, `3h`, `41d`. */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/**
 * True when `needle` is empty, part of the task's name, the start of the id, or the start of its
 * state or of a harness it ran on (case ignored): `fail` finds the failed ones on History, `codex`
 * those that ran on codex — the Workbench's History filters by outcome and harness the same way.
 */
export function matchesFilter(row: ListedExecution, needle: string): boolean {
  const wanted = needle.trim().toLowerCase();
  if (wanted === '') return true;
  const harnesses = [row.currentHarness, ...row.attempts.map((attempt) => attempt.harness)];
  return (
    row.taskName.toLowerCase().includes(wanted) ||
    row.id.toLowerCase().startsWith(wanted) ||
    row.state.startsWith(wanted) ||
    harnesses.some((harness) => harness?.startsWith(wanted) === true)
  );
}

/** The scopes of keys on a list screen, most specific first: the Workbench's, then the terminal's own. */
export function listScopes(screen: Screen): readonly Scope[] {
  return [
    { title: SCREEN_TITLES[screen], keymap: LIST_KEYS },
    { title: 'Everywhere', keymap: GLOBAL_KEYS },
    { title: 'Terminal', keymap: TERMINAL_KEYS },
  ];
}
