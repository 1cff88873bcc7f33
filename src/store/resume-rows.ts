/**
 * The mapping between ResumeStore records and table rows (`workflow_runs`, `step_outputs`,
 * `run_items`, `invalidations`), for every adapter: one column list per table (record key → column),
 * the SQL those lists give in each dialect, and the conversions both ways. Rows are parsed with zod,
 * as in rows.ts: the database is shared with other processes. JSON columns hold the text the writer
 * made (`JSON.stringify`, or the canonical text the engine hashed), so reading an output back needs
 * only `JSON.parse` (a run's params are also parsed as the object they must be). Both adapters bind
 * the parameters built here in column order and return rows of these shapes: times as ISO 8601 text,
 * JSON as its text, a flag as SQLite's 0 or 1 or PostgreSQL's boolean (bound as 0 or 1).
 *
 * `run_spend` has a row per step of each drive of a run (startDrive writes them, commits add to them):
 * the spend figures are added, never set, so commits of several processes (cluster workers) to one
 * step each add their own.
 *
 * Fingerprints, digests and `replaced` are SHA-256 hashes: the port holds them as 64 lowercase hex
 * characters, the tables as their 32 bytes (half the size in the rows and the random-order
 * fingerprint index). The parameters built here are checked to be that hex (anything else is refused
 * before it reaches the database, so a commit with it commits nothing), and the statements convert
 * (HashSql: SQLite's `unhex`/`hex`, PostgreSQL's `decode`/`encode`).
 */
import { z } from 'zod';
import { EXIT, HarmflowError, NotFoundError } from '../core/errors.js';
import { applyPatch } from './patch.js';
import type {
  DriveStep,
  Invalidation,
  ItemCommit,
  Json,
  Measured,
  OutputRecord,
  RunItem,
  RunPatch,
  RunRecord,
  SpendDelta,
  StepSpend,
  StoredOutput,
} from './resume-store.js';
import { flag } from './rows.js';
import { NOTHING_SPENT, type SpendFigure, type SpendSum, SpendSums } from './spend-sums.js';
import type { Parameter } from './sql.js';

/** A record key and its column; `hash`: a SHA-256 stored as bytes (`optional`: it may be NULL). */
export interface Column {
  readonly key: string;
  readonly column: string;
  readonly hash?: 'required' | 'optional';
}

/** How a dialect's SQL turns a hash's hex text into its bytes and back. */
export interface HashSql {
  /** The bytes of the hex text `value` (a parameter or a column). */
  readonly fromHex: (value: string) => string;
  /** The lowercase hex of `column`; NULL for NULL when `optional`. */
  readonly toHex: (column: string, optional: boolean) => string;
}

/** `column AS "key", …`, hashes read back as lowercase hex. */
export function selectColumns(columns: readonly Column[], hashes: HashSql): string {
  return columns
    .map(({ key, column, hash }) => {
      const value = hash === undefined ? column : hashes.toHex(column, hash === 'optional');
      return `${value} AS "${key}"`;
    })
    .join(', ');
}

/** `INSERT INTO table (columns) VALUES (…)`: parameters in the columns' order, hashes converted. */
export function insertColumns(
  table: string,
  columns: readonly Column[],
  hashes: HashSql,
  parameter: Parameter,
): string {
  const names = columns.map(({ column }) => column).join(', ');
  const values = columns
    .map(({ key, hash }, index) => {
      const value = parameter(key, index + 1);
      return hash === undefined ? value : hashes.fromHex(value);
    })
    .join(', ');
  return `INSERT INTO ${table} (${names}) VALUES (${values})`;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** True for text that is a SHA-256 hash as the port passes it: 64 lowercase hex characters. */
export function isSha256Hex(value: string): boolean {
  return SHA256_HEX.test(value);
}

/** A hash parameter, checked: what is not 64 lowercase hex characters is refused, naming `what`. */
function hashParam(what: string, value: string): string {
  if (!isSha256Hex(value)) {
    throw new HarmflowError(`${what} ${JSON.stringify(value)} is not a SHA-256 hash in hex`, EXIT.internal);
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
  ownerPid: 'owner_pid',
  ownerHost: 'owner_host',
  ownerStartTime: 'owner_start_time',
  ownerSince: 'owner_since',
} as const;

/** The columns of `step_outputs`, in the order of outputParams. */
export const OUTPUT_COLUMNS: readonly Column[] = [
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

/** The columns of `step_outputs` but the value: what getOutputRecords reads. */
export const OUTPUT_RECORD_COLUMNS: readonly Column[] = OUTPUT_COLUMNS.filter(({ key }) => key !== 'output');

/**
 * The columns outputDigests reads: a stored output's fingerprint and digest, named by their table so
 * a join with `run_items` (which has both names too) reads the output's.
 */
export const DIGEST_COLUMNS: readonly Column[] = [
  { key: 'fingerprint', column: 'step_outputs.fingerprint', hash: 'required' },
  { key: 'digest', column: 'step_outputs.digest', hash: 'required' },
];

/** Ends an output's INSERT: an output stored already under its fingerprint is kept as it is. */
export const OUTPUT_CONFLICT = 'ON CONFLICT (fingerprint) DO NOTHING';

/** The columns of `run_items`, in the order of runItemParams; the key (run, step, item) first. */
export const RUN_ITEM_COLUMNS: readonly Column[] = [
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

/** Ends a run item's INSERT as an upsert by (run, step, item) that replaces every other column. */
export const RUN_ITEM_CONFLICT = `ON CONFLICT (run, step, item) DO UPDATE SET ${RUN_ITEM_COLUMNS.slice(3)
  .map(({ column }) => `${column} = excluded.${column}`)
  .join(', ')}`;

/** The columns of `invalidations`, keyed like the record. */
export const INVALIDATION_COLUMNS = { run: 'run', step: 'step', reason: 'reason', at: 'at' } as const;

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
  ownerPid: z.int().nullable(),
  ownerHost: optionalText,
  ownerStartTime: optionalText,
  ownerSince: optionalText,
});
const Params = z.record(z.string(), z.json());

export function runFromRow(row: unknown): RunRecord {
  const { params, message, module, ownerPid, ownerHost, ownerStartTime, ownerSince, ...rest } = RunRow.parse(row);
  // The tables keep the owner's four columns all set or all NULL (a CHECK).
  const owner =
    ownerPid === null || ownerHost === null || ownerStartTime === null || ownerSince === null
      ? undefined
      : { pid: ownerPid, host: ownerHost, startTime: ownerStartTime, since: ownerSince };
  return {
    ...rest,
    params: Params.parse(JSON.parse(params)),
    ...(message !== null && { message }),
    ...(module !== null && { module }),
    ...(owner !== undefined && { owner }),
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
    ownerPid: run.owner?.pid ?? null,
    ownerHost: run.owner?.host ?? null,
    ownerStartTime: run.owner?.startTime ?? null,
    ownerSince: run.owner?.since ?? null,
  };
}

/** The row of run `id` after `patch`, from its stored row (`undefined`: there is none, and this throws NotFoundError). */
export function patchedRunRow(id: string, stored: unknown, patch: RunPatch): Record<string, unknown> {
  if (stored === undefined) throw new NotFoundError(`no workflow run ${id}`);
  return runToRow(applyPatch(runFromRow(stored), patch));
}

const OutputRecordRow = z.object({
  fingerprint: text,
  workflow: text,
  step: text,
  item: text,
  digest: text,
  components: text,
  durationMs: z.number(),
  inputTokens: count,
  outputTokens: count,
  createdAt: text,
});
const OutputRow = OutputRecordRow.extend({ output: text });

/** A row of OUTPUT_COLUMNS: the record, and the value. */
function outputFromRow(raw: unknown): StoredOutput {
  const row = OutputRow.parse(raw);
  return { ...recordOf(row), output: JSON.parse(row.output) as Json };
}

/** A row of OUTPUT_RECORD_COLUMNS. */
function recordFromRow(raw: unknown): OutputRecord {
  return recordOf(OutputRecordRow.parse(raw));
}

/** Names each field (no rest or spread of the row): getOutputs reads thousands, and this is twice as fast. */
function recordOf(row: z.infer<typeof OutputRecordRow>): OutputRecord {
  return {
    fingerprint: row.fingerprint,
    workflow: row.workflow,
    step: row.step,
    item: row.item,
    digest: row.digest,
    components: JSON.parse(row.components) as Json,
    measured: measuredOf(row),
    createdAt: row.createdAt,
  };
}

function measuredOf(row: z.infer<typeof OutputRecordRow>): Measured {
  return {
    durationMs: row.durationMs,
    ...(row.inputTokens !== null && { inputTokens: row.inputTokens }),
    ...(row.outputTokens !== null && { outputTokens: row.outputTokens }),
  };
}

/** The outputs of `rows`, keyed by their fingerprint or their item (of two with one key, the last). */
export function outputsBy(key: 'fingerprint' | 'item', rows: Iterable<unknown>): Map<string, StoredOutput> {
  const outputs = new Map<string, StoredOutput>();
  for (const row of rows) {
    const output = outputFromRow(row);
    outputs.set(output[key], output);
  }
  return outputs;
}

/** The output records of `rows` (of OUTPUT_RECORD_COLUMNS), keyed by fingerprint. */
export function recordsBy(rows: Iterable<unknown>): Map<string, OutputRecord> {
  const records = new Map<string, OutputRecord>();
  for (const row of rows) {
    const record = recordFromRow(row);
    records.set(record.fingerprint, record);
  }
  return records;
}

const DigestRow = z.object({ fingerprint: text, digest: text });

/** The digests of `rows` (of DIGEST_COLUMNS), keyed by fingerprint, in the rows' order. */
export function digestsBy(rows: Iterable<unknown>): Map<string, string> {
  const digests = new Map<string, string>();
  for (const row of rows) {
    const { fingerprint, digest } = DigestRow.parse(row);
    digests.set(fingerprint, digest);
  }
  return digests;
}

/**
 * The INSERT parameters of an output, in OUTPUT_COLUMNS' order. The JSON texts are the commit's
 * `texts` when it has them (the caller made them already), else `JSON.stringify`'s.
 */
export function outputParams(output: StoredOutput, texts: ItemCommit['texts']): unknown[] {
  return [
    hashParam('fingerprint', output.fingerprint),
    output.workflow,
    output.step,
    output.item,
    hashParam('digest', output.digest),
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
    cached: flag,
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

const InvalidationRow = z.object({ run: text, step: text, reason: text, at: text });

export function invalidationFromRow(row: unknown): Invalidation {
  return InvalidationRow.parse(row);
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
      hashParam('fingerprint', item.fingerprint),
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
    hashParam('fingerprint', item.fingerprint),
    hashParam('digest', item.digest),
    item.cached ? 1 : 0,
    item.replaced === undefined ? null : hashParam('replaced fingerprint', item.replaced),
    null,
    item.tries,
    item.updatedAt,
  ];
}

/** The figures a SpendDelta adds, keyed like it: `run_spend`'s columns that only ever grow. */
export const SPEND_ADDED = {
  items: 'items',
  failed: 'failed',
  tries: 'tries',
  itemMs: 'item_ms',
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  unreportedTokens: 'unreported_tokens',
  unreportedItems: 'unreported_items',
  wallMs: 'wall_ms',
} as const satisfies Record<SpendFigure, string>;

/** The columns of `run_spend`, keyed like StepSpend (the price and the plan flattened). */
export const SPEND_COLUMNS = {
  run: 'run',
  drive: 'drive',
  step: 'step',
  position: 'position',
  startedAt: 'started_at',
  kind: 'kind',
  model: 'model',
  priceIn: 'price_in',
  priceOut: 'price_out',
  ...SPEND_ADDED,
  planned: 'planned',
  plannedItems: 'planned_items',
  plannedInputTokens: 'planned_input_tokens',
  plannedOutputTokens: 'planned_output_tokens',
  plannedUsd: 'planned_usd',
  plannedHours: 'planned_hours',
} as const;

/** `SET items = items + <p1>, …`: the added columns, each plus its parameter (`parameter(key, n)` from `first`). */
export function spendAddSql(parameter: (key: string, position: number) => string, first = 1): string {
  return Object.entries(SPEND_ADDED)
    .map(([key, column], index) => `${column} = ${column} + ${parameter(key, first + index)}`)
    .join(', ');
}

/** The row startDrive writes for `step`, the `position`-th of drive `drive` of `run`, nothing spent. */
export function driveStepRow(run: string, drive: number, position: number, step: DriveStep, at: string) {
  const { planned } = step;
  return {
    run,
    drive,
    step: step.step,
    position,
    startedAt: at,
    kind: step.kind,
    model: step.model ?? null,
    priceIn: step.price?.inputPerMTok ?? null,
    priceOut: step.price?.outputPerMTok ?? null,
    ...NOTHING_SPENT,
    planned: planned === undefined ? 0 : 1,
    plannedItems: planned?.items ?? null,
    plannedInputTokens: planned?.inputTokens ?? null,
    plannedOutputTokens: planned?.outputTokens ?? null,
    plannedUsd: planned?.usd ?? null,
    plannedHours: planned?.hours ?? null,
  } satisfies Record<keyof typeof SPEND_COLUMNS, unknown>;
}

/**
 * `deltas` added up per (run, drive, step), in that key's code unit order (SpendSums): each step of a
 * drive is written once a commit. Every figure is a finite number ≥ 0, or this throws before anything
 * is written.
 */
export function mergeSpend(deltas: readonly SpendDelta[]): SpendSum[] {
  const sums = new SpendSums();
  for (const delta of deltas) sums.add(delta);
  return sums.list();
}

const amount = z.number();
const optionalAmount = z.number().nullable();

const SpendRow = z.object({
  run: text,
  drive: z.int(),
  step: text,
  position: z.int(),
  startedAt: text,
  kind: z.enum(['code', 'model', 'effect', 'agent', 'review']),
  model: optionalText,
  priceIn: optionalAmount,
  priceOut: optionalAmount,
  items: z.int(),
  failed: z.int(),
  tries: z.int(),
  itemMs: amount,
  inputTokens: z.int(),
  outputTokens: z.int(),
  unreportedTokens: z.int(),
  unreportedItems: z.int(),
  wallMs: amount,
  planned: flag,
  plannedItems: count,
  plannedInputTokens: optionalAmount,
  plannedOutputTokens: optionalAmount,
  plannedUsd: optionalAmount,
  plannedHours: optionalAmount,
});

export function spendFromRow(raw: unknown): StepSpend {
  const row = SpendRow.parse(raw);
  const { model, priceIn, priceOut, planned, plannedItems, ...rest } = row;
  return {
    run: rest.run,
    drive: rest.drive,
    step: rest.step,
    position: rest.position,
    startedAt: rest.startedAt,
    kind: rest.kind,
    ...(model !== null && { model }),
    ...(priceIn !== null && priceOut !== null && { price: { inputPerMTok: priceIn, outputPerMTok: priceOut } }),
    items: rest.items,
    failed: rest.failed,
    tries: rest.tries,
    itemMs: rest.itemMs,
    inputTokens: rest.inputTokens,
    outputTokens: rest.outputTokens,
    unreportedTokens: rest.unreportedTokens,
    unreportedItems: rest.unreportedItems,
    wallMs: rest.wallMs,
    ...(planned && {
      planned: {
        items: plannedItems ?? 0,
        inputTokens: rest.plannedInputTokens,
        outputTokens: rest.plannedOutputTokens,
        usd: rest.plannedUsd,
        hours: rest.plannedHours,
      },
    }),
  };
}
