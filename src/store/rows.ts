/**
 * The mapping between Store records and table rows, for every adapter: one column list per table
 * (record key → column), the conversions both ways, and a patch applied to a stored row. Rows are
 * parsed with zod: the database is shared with other processes (and other HarmFlow versions).
 *
 * Both adapters bind the rows built here and return rows of these shapes: times as ISO 8601 text,
 * JSON (a task's definition, an attempt's exit code and signal) as its text, integers and reals as
 * numbers; a flag comes back as SQLite's 0 or 1 or PostgreSQL's boolean, and is bound as 0 or 1
 * (which a PostgreSQL boolean column reads as false or true).
 */
import { z } from 'zod';
import { NotFoundError } from '../core/errors.js';
import { ExecutionState, Outcome } from '../core/outcome.js';
import { QUOTA_STATES } from '../core/quota.js';
import { applyPatch } from './patch.js';
import type { Columns } from './sql.js';
import type { AttemptPatch, AttemptRecord, ExecutionPatch, ExecutionRecord, QuotaRecord, TaskRecord } from './store.js';

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
  pullRequestUrl: 'pull_request_url',
  turnCount: 'turn_count',
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
/** SQLite's 0 or 1, PostgreSQL's boolean. */
export const flag = z.union([z.boolean(), z.union([z.literal(0), z.literal(1)]).transform((bit) => bit === 1)]);

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
  pullRequestUrl: optionalText,
  turnCount: z.int().nonnegative().nullable(),
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
  simulated: flag,
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

/**
 * The row of execution `id` after `patch`, from its stored row (`undefined`: there is none, and this
 * throws NotFoundError).
 */
export function patchedExecutionRow(id: string, stored: unknown, patch: ExecutionPatch): Record<string, unknown> {
  if (stored === undefined) throw new NotFoundError(`no execution ${id}`);
  return executionToRow(applyPatch(executionFromRow(stored), patch));
}

/** exitCode and signal take `null` as a value in a patch (store.ts, AttemptPatch). */
const NULL_VALUED_ATTEMPT_FIELDS: ReadonlySet<string> = new Set(['exitCode', 'signal']);

/** The row of attempt `number` of `execution` after `patch`, as `patchedExecutionRow`. */
export function patchedAttemptRow(
  execution: string,
  number: number,
  stored: unknown,
  patch: AttemptPatch,
): Record<string, unknown> {
  if (stored === undefined) throw new NotFoundError(`no attempt ${number} of execution ${execution}`);
  return attemptToRow(applyPatch(attemptFromRow(stored), patch, NULL_VALUED_ATTEMPT_FIELDS));
}
