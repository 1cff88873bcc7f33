/**
 * The mapping between Store records and SQLite rows: one column list per table (record key → column),
 * the statements' column lists built from it, and the conversions both ways. Rows are parsed with zod:
 * the database is a file other processes (and other HarmFlow versions) write.
 */
import { z } from 'zod';
import { ExecutionState, Outcome } from '../../core/outcome.js';
import { QUOTA_STATES } from '../../core/quota.js';
import type { AttemptRecord, ExecutionRecord, QuotaRecord, TaskRecord } from '../store.js';

/** Record key → column name, in table order. */
type Columns = Readonly<Record<string, string>>;

export const TASK_COLUMNS = { id: 'id', name: 'name', definition: 'definition', createdAt: 'created_at' } as const;

export const EXECUTION_COLUMNS = {
  id: 'id',
  taskId: 'task_id',
  taskName: 'task_name',
  repo: 'repo',
  baseRef: 'base_ref',
  baseSha: 'base_sha',
  branch: 'branch',
  worktree: 'worktree',
  runDir: 'run_dir',
  state: 'state',
  createdAt: 'created_at',
  startedAt: 'started_at',
  endedAt: 'ended_at',
  deadline: 'deadline',
  attemptCount: 'attempt_count',
  currentHarness: 'current_harness',
  message: 'message',
} as const;

export const ATTEMPT_COLUMNS = {
  execution: 'execution',
  number: 'number',
  harness: 'harness',
  model: 'model',
  simulated: 'simulated',
  sessionId: 'session_id',
  startedAt: 'started_at',
  endedAt: 'ended_at',
  outcome: 'outcome',
  exitCode: 'exit_code',
  signal: 'signal',
  message: 'message',
  resetsAt: 'resets_at',
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  costUsd: 'cost_usd',
} as const;

export const QUOTA_COLUMNS = {
  harness: 'harness',
  account: 'account',
  state: 'state',
  resetsAt: 'resets_at',
  utilization: 'utilization',
  source: 'source',
  message: 'message',
  execution: 'execution',
  attempt: 'attempt',
  observedAt: 'observed_at',
} as const;

/** `column AS key, …`: a select list whose rows come back keyed like the records. */
export function selectList(columns: Columns): string {
  return Object.entries(columns)
    .map(([key, column]) => `${column} AS ${key}`)
    .join(', ');
}

/** `INSERT INTO table (columns…) VALUES (@keys…)`. */
export function insertSql(table: string, columns: Columns): string {
  const keys = Object.keys(columns);
  return `INSERT INTO ${table} (${Object.values(columns).join(', ')}) VALUES (${keys.map((key) => `@${key}`).join(', ')})`;
}

/** `UPDATE table SET column = @key, … WHERE key columns`, setting every column but the keys. */
export function updateSql(table: string, columns: Columns, keys: readonly string[]): string {
  const set = Object.entries(columns)
    .filter(([key]) => !keys.includes(key))
    .map(([key, column]) => `${column} = @${key}`);
  const where = keys.map((key) => `${columns[key]} = @${key}`);
  return `UPDATE ${table} SET ${set.join(', ')} WHERE ${where.join(' AND ')}`;
}

/**
 * `INSERT INTO table … ON CONFLICT (key columns) DO UPDATE SET column = excluded.column, …`: inserts
 * the row, or sets every column but the keys of the row it collides with, only `WHERE` `when` holds
 * (in which `excluded` is the new row and `table` the stored one).
 */
export function upsertSql(table: string, columns: Columns, keys: readonly string[], when: string): string {
  const set = Object.entries(columns)
    .filter(([key]) => !keys.includes(key))
    .map(([, column]) => `${column} = excluded.${column}`);
  const conflict = keys.map((key) => columns[key]);
  return `${insertSql(table, columns)} ON CONFLICT (${conflict.join(', ')}) DO UPDATE SET ${set.join(', ')} WHERE ${when}`;
}

type WithoutNulls<T> = { [K in keyof T as null extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as null extends T[K] ? K : never]?: Exclude<T[K], null>;
};

/** Drops the null columns, so a field never set comes back absent. */
function withoutNulls<T extends object>(row: T): WithoutNulls<T> {
  return Object.fromEntries(Object.entries(row).filter(([, value]) => value !== null)) as WithoutNulls<T>;
}

/** Binds each column: an absent field is NULL. */
function withNulls(record: object, columns: Columns): Record<string, unknown> {
  const values: Record<string, unknown> = record as Record<string, unknown>;
  return Object.fromEntries(Object.keys(columns).map((key) => [key, values[key] ?? null]));
}

const text = z.string();
const optionalText = z.string().nullable();

const TaskRow = z.object({ id: text, name: text, definition: text, createdAt: text });
const Definition = z.record(z.string(), z.unknown());

export function taskFromRow(row: unknown): TaskRecord {
  const parsed = TaskRow.parse(row);
  return { ...parsed, definition: Definition.parse(JSON.parse(parsed.definition)) };
}

export function taskToRow(task: TaskRecord): Record<string, unknown> {
  return { ...withNulls(task, TASK_COLUMNS), definition: JSON.stringify(task.definition) };
}

const ExecutionRow = z.object({
  id: text,
  taskId: text,
  taskName: text,
  repo: text,
  baseRef: text,
  baseSha: text,
  branch: text,
  worktree: text,
  runDir: text,
  state: ExecutionState,
  createdAt: text,
  startedAt: optionalText,
  endedAt: optionalText,
  deadline: text,
  attemptCount: z.int(),
  currentHarness: optionalText,
  message: optionalText,
});

export function executionFromRow(row: unknown): ExecutionRecord {
  return withoutNulls(ExecutionRow.parse(row));
}

export function executionToRow(execution: ExecutionRecord): Record<string, unknown> {
  return withNulls(execution, EXECUTION_COLUMNS);
}

const AttemptRow = z.object({
  execution: text,
  number: z.int(),
  harness: text,
  model: optionalText,
  simulated: z.union([z.literal(0), z.literal(1)]).transform((flag) => flag === 1),
  sessionId: optionalText,
  startedAt: text,
  endedAt: optionalText,
  outcome: Outcome.nullable(),
  exitCode: optionalText,
  signal: optionalText,
  message: optionalText,
  resetsAt: optionalText,
  inputTokens: z.int().nullable(),
  outputTokens: z.int().nullable(),
  costUsd: z.number().nullable(),
});
const ExitCode = z.int().nullable();
const Signal = z.string().nullable();

export function attemptFromRow(row: unknown): AttemptRecord {
  const { exitCode, signal, ...rest } = AttemptRow.parse(row);
  return {
    ...withoutNulls(rest),
    ...(exitCode !== null && { exitCode: ExitCode.parse(JSON.parse(exitCode)) }),
    ...(signal !== null && { signal: Signal.parse(JSON.parse(signal)) }),
  };
}

export function attemptToRow(attempt: AttemptRecord): Record<string, unknown> {
  return {
    ...withNulls(attempt, ATTEMPT_COLUMNS),
    simulated: attempt.simulated ? 1 : 0,
    exitCode: attempt.exitCode === undefined ? null : JSON.stringify(attempt.exitCode),
    signal: attempt.signal === undefined ? null : JSON.stringify(attempt.signal),
  };
}

const QuotaRow = z.object({
  harness: text,
  account: text,
  state: z.enum(QUOTA_STATES),
  resetsAt: optionalText,
  utilization: z.number().nullable(),
  source: text,
  message: optionalText,
  execution: optionalText,
  attempt: z.int().nullable(),
  observedAt: text,
});

export function quotaFromRow(row: unknown): QuotaRecord {
  return withoutNulls(QuotaRow.parse(row));
}

export function quotaToRow(quota: QuotaRecord): Record<string, unknown> {
  return withNulls(quota, QUOTA_COLUMNS);
}
