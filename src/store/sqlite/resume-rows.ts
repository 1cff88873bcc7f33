/**
 * The mapping between ResumeStore records and SQLite rows (tables `workflow_runs`, `step_outputs`,
 * `run_items`): one column list per table (record key → column), the hot statements' SQL built from
 * them, and the conversions both ways. Rows are parsed with zod, as in rows.ts: the database is a
 * file other processes write. JSON columns hold the text the writer made (`JSON.stringify`, or the
 * canonical text the engine hashed), so reading an output back needs only `JSON.parse` (a run's
 * params are also parsed as the object they must be).
 *
 * Fingerprints, digests and `replaced` are SHA-256 hashes: the port holds them as 64 lowercase hex
 * characters, the tables as their 32 bytes (BLOB, half the size in the rows and the random-order
 * fingerprint index). The statements convert: `unhex(?)` on write, `lower(hex(…))` on read. Text
 * that is not hex unhexes to NULL, which the NOT NULL and CHECK constraints refuse, as they refuse
 * hex of another length than 32 bytes; only `replaced`, which may be NULL, is checked here first.
 */
import { z } from 'zod';
import { EXIT, HarmflowError } from '../../core/errors.js';
import type { ItemCommit, Json, RunItem, RunRecord, StoredOutput } from '../resume-store.js';

/** A record key and its column; `hash`: a SHA-256 stored as bytes (`optional`: it may be NULL). */
interface Column {
  readonly key: string;
  readonly column: string;
  readonly hash?: 'required' | 'optional';
}

/** `column AS key, …`, hashes read back as lowercase hex (a NULL one as NULL). */
function selectColumns(columns: readonly Column[]): string {
  return columns
    .map(({ key, column, hash }) => {
      if (hash === undefined) return `${column} AS ${key}`;
      const hex = `lower(hex(${column}))`;
      return `${hash === 'required' ? hex : `iif(${column} IS NULL, NULL, ${hex})`} AS ${key}`;
    })
    .join(', ');
}

/** `INSERT INTO table (columns) VALUES (?, unhex(?), …)`: positional parameters, in the columns' order. */
function insertColumns(table: string, columns: readonly Column[]): string {
  const names = columns.map(({ column }) => column).join(', ');
  const values = columns.map(({ hash }) => (hash === undefined ? '?' : 'unhex(?)')).join(', ');
  return `INSERT INTO ${table} (${names}) VALUES (${values})`;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A replaced fingerprint, checked: `unhex` would turn text that is not hex into a NULL the column allows. */
function replacedParam(value: string): string {
  if (!SHA256_HEX.test(value)) {
    throw new HarmflowError(
      `replaced fingerprint ${JSON.stringify(value)} is not a SHA-256 hash in hex`,
      EXIT.internal,
    );
  }
  return value;
}

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

const OUTPUT_COLUMNS: readonly Column[] = [
  { key: 'fingerprint', column: 'fingerprint', hash: 'required' },
  { key: 'workflow', column: 'workflow' },
  { key: 'step', column: 'step' },
  { key: 'item', column: 'item' },
  { key: 'digest', column: 'digest', hash: 'required' },
  { key: 'output', column: 'output' },
  { key: 'components', column: 'components' },
  { key: 'durationMs', column: 'duration_ms' },
  { key: 'inputTokens', column: 'input_tokens' },
  { key: 'outputTokens', column: 'output_tokens' },
  { key: 'createdAt', column: 'created_at' },
];

/** The select list of a step_outputs row, keyed like the record. */
export const OUTPUT_SELECT = selectColumns(OUTPUT_COLUMNS);
/** Inserts an output: parameters as outputParams gives them. */
export const OUTPUT_INSERT = insertColumns('step_outputs', OUTPUT_COLUMNS);

const RUN_ITEM_COLUMNS: readonly Column[] = [
  { key: 'run', column: 'run' },
  { key: 'step', column: 'step' },
  { key: 'item', column: 'item' },
  { key: 'status', column: 'status' },
  { key: 'fingerprint', column: 'fingerprint', hash: 'required' },
  { key: 'digest', column: 'digest', hash: 'optional' },
  { key: 'cached', column: 'cached' },
  { key: 'replaced', column: 'replaced', hash: 'optional' },
  { key: 'error', column: 'error' },
  { key: 'tries', column: 'tries' },
  { key: 'updatedAt', column: 'updated_at' },
];

/** The select list of a run_items row, keyed like the record. */
export const RUN_ITEM_SELECT = selectColumns(RUN_ITEM_COLUMNS);
/** Every column but the key (run, step, item), set from the row an upsert brings. */
const RUN_ITEM_UPDATE = RUN_ITEM_COLUMNS.slice(3)
  .map(({ column }) => `${column} = excluded.${column}`)
  .join(', ');
/** Upserts a run item by (run, step, item), replacing every other column: parameters as runItemParams gives them. */
export const RUN_ITEM_UPSERT = `${insertColumns('run_items', RUN_ITEM_COLUMNS)} ON CONFLICT (run, step, item) DO UPDATE SET ${RUN_ITEM_UPDATE}`;

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

/**
 * The INSERT parameters of an output, in OUTPUT_COLUMNS' order. The JSON texts are the commit's
 * `texts` when it has them (the caller made them already), else `JSON.stringify`'s.
 */
export function outputParams(output: StoredOutput, texts: ItemCommit['texts']): unknown[] {
  return [
    output.fingerprint,
    output.workflow,
    output.step,
    output.item,
    output.digest,
    texts?.output ?? JSON.stringify(output.output),
    texts?.components ?? JSON.stringify(output.components),
    output.measured.durationMs,
    output.measured.inputTokens ?? null,
    output.measured.outputTokens ?? null,
    output.createdAt,
  ];
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

/**
 * The upsert parameters of a run item, in RUN_ITEM_COLUMNS' order: every column, those the item's
 * status lacks NULL (a CHECK keeps them so).
 */
export function runItemParams(item: RunItem): unknown[] {
  if (item.status === 'failed') {
    return [
      item.run,
      item.step,
      item.item,
      'failed',
      item.fingerprint,
      null,
      null,
      null,
      item.error,
      item.tries,
      item.updatedAt,
    ];
  }
  return [
    item.run,
    item.step,
    item.item,
    'done',
    item.fingerprint,
    item.digest,
    item.cached ? 1 : 0,
    item.replaced === undefined ? null : replacedParam(item.replaced),
    null,
    item.tries,
    item.updatedAt,
  ];
}
