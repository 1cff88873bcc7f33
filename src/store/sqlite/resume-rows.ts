/**
 * The mapping between ResumeStore records and SQLite rows (tables `workflow_runs`, `step_outputs`,
 * `run_items`): one column list per table (record key → column) and the conversions both ways. Rows
 * are parsed with zod, as in rows.ts: the database is a file other processes write. JSON columns hold
 * the text `JSON.stringify` made and are checked by `json_valid` on write, so reading an output back
 * needs only `JSON.parse` (a run's params are also parsed as the object they must be).
 */
import { z } from 'zod';
import type { Json, RunItem, RunRecord, StoredOutput } from '../resume-store.js';

export const RUN_COLUMNS = {
  id: 'id',
  workflow: 'workflow',
  params: 'params',
  state: 'state',
  message: 'message',
  module: 'module',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
} as const;

export const OUTPUT_COLUMNS = {
  fingerprint: 'fingerprint',
  workflow: 'workflow',
  step: 'step',
  item: 'item',
  digest: 'digest',
  output: 'output',
  components: 'components',
  durationMs: 'duration_ms',
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  createdAt: 'created_at',
} as const;

export const RUN_ITEM_COLUMNS = {
  run: 'run',
  step: 'step',
  item: 'item',
  status: 'status',
  fingerprint: 'fingerprint',
  digest: 'digest',
  cached: 'cached',
  replaced: 'replaced',
  error: 'error',
  tries: 'tries',
  updatedAt: 'updated_at',
} as const;

const text = z.string();
const optionalText = z.string().nullable();
const count = z.int().nullable();

const RunRow = z.object({
  id: text,
  workflow: text,
  params: text,
  state: z.enum(['running', 'crashed', 'waiting', 'succeeded', 'failed']),
  message: optionalText,
  module: optionalText,
  createdAt: text,
  updatedAt: text,
});
const Params = z.record(z.string(), z.json());

export function runFromRow(row: unknown): RunRecord {
  const { params, message, module, ...rest } = RunRow.parse(row);
  return {
    ...rest,
    params: Params.parse(JSON.parse(params)),
    ...(message !== null && { message }),
    ...(module !== null && { module }),
  };
}

export function runToRow(run: RunRecord): Record<string, unknown> {
  return {
    id: run.id,
    workflow: run.workflow,
    params: JSON.stringify(run.params),
    state: run.state,
    message: run.message ?? null,
    module: run.module ?? null,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
}

const OutputRow = z.object({
  fingerprint: text,
  workflow: text,
  step: text,
  item: text,
  digest: text,
  output: text,
  components: text,
  durationMs: z.number(),
  inputTokens: count,
  outputTokens: count,
  createdAt: text,
});

/** Names each field (no rest or spread of the row): getOutputs reads thousands, and this is twice as fast. */
export function outputFromRow(raw: unknown): StoredOutput {
  const row = OutputRow.parse(raw);
  return {
    fingerprint: row.fingerprint,
    workflow: row.workflow,
    step: row.step,
    item: row.item,
    digest: row.digest,
    output: JSON.parse(row.output) as Json,
    components: JSON.parse(row.components) as Json,
    measured: {
      durationMs: row.durationMs,
      ...(row.inputTokens !== null && { inputTokens: row.inputTokens }),
      ...(row.outputTokens !== null && { outputTokens: row.outputTokens }),
    },
    createdAt: row.createdAt,
  };
}

export function outputToRow(output: StoredOutput): Record<string, unknown> {
  return {
    fingerprint: output.fingerprint,
    workflow: output.workflow,
    step: output.step,
    item: output.item,
    digest: output.digest,
    output: JSON.stringify(output.output),
    components: JSON.stringify(output.components),
    durationMs: output.measured.durationMs,
    inputTokens: output.measured.inputTokens ?? null,
    outputTokens: output.measured.outputTokens ?? null,
    createdAt: output.createdAt,
  };
}

const RunItemRow = z.discriminatedUnion('status', [
  z.object({
    run: text,
    step: text,
    item: text,
    status: z.literal('done'),
    fingerprint: text,
    digest: text,
    cached: z.union([z.literal(0), z.literal(1)]).transform((flag) => flag === 1),
    replaced: optionalText,
    error: z.null(),
    tries: z.int(),
    updatedAt: text,
  }),
  z.object({
    run: text,
    step: text,
    item: text,
    status: z.literal('failed'),
    fingerprint: text,
    digest: z.null(),
    cached: z.null(),
    replaced: z.null(),
    error: text,
    tries: z.int(),
    updatedAt: text,
  }),
]);

export function runItemFromRow(raw: unknown): RunItem {
  const row = RunItemRow.parse(raw);
  const { run, step, item, fingerprint, tries, updatedAt } = row;
  return row.status === 'done'
    ? {
        run,
        step,
        item,
        status: 'done',
        fingerprint,
        digest: row.digest,
        cached: row.cached,
        ...(row.replaced !== null && { replaced: row.replaced }),
        tries,
        updatedAt,
      }
    : { run, step, item, status: 'failed', fingerprint, error: row.error, tries, updatedAt };
}

/** Binds every column: those the item's status lacks are NULL (a CHECK keeps them so). */
export function runItemToRow(item: RunItem): Record<string, unknown> {
  const done = item.status === 'done';
  return {
    run: item.run,
    step: item.step,
    item: item.item,
    status: item.status,
    fingerprint: item.fingerprint,
    digest: done ? item.digest : null,
    cached: done ? (item.cached ? 1 : 0) : null,
    replaced: done ? (item.replaced ?? null) : null,
    error: done ? null : item.error,
    tries: item.tries,
    updatedAt: item.updatedAt,
  };
}
