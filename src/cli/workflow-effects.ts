/**
 * `harmflow workflow effects RUN` — a run's outside side effects, from the effects ledger
 * (src/store/effect-ledger.ts): each key's state, step, item, claims, who settled it and its result,
 * error or reason. A run's effects are those whose latest claim is in it. With `--resolve KEY --done |
 * --failed --note TEXT`, a person settles an effect the ledger cannot — an `unknown` one, after
 * checking the provider by hand, or a `failed` one that happened after all — recorded with
 * `settledBy: 'person: <note>'`. The ledger refuses a `done` effect or one a live holder is performing
 * (ConflictError, exit 7). Exit codes: 0; 2 for a bad option; 6 for an unknown run or key; 7 conflict.
 *
 * The command opens the ledger as a holder of its own for its duration and claims nothing.
 */
import type { Command } from 'commander';
import { z } from 'zod';
import { NotFoundError, UsageError } from '../core/errors.js';
import type { EffectLedger, EffectRecord, EffectState } from '../store/effect-ledger.js';
import type { ResumeStore } from '../store/resume-store.js';
import { alignColumns } from './columns.js';
import { type StoreOptions, storeOptions, storePlace, withLedger, withStore } from './workflow-store.js';

/** 100 characters of a result, error or reason in the table: a receipt or a one-line error fits; `--json` gives all. */
const DETAIL_CHARS = 100;

/** Who `settledBy` names when a person resolved an effect through this command: `person: <their note>`. */
const PERSON = 'person';

const State = z.enum(['claimed', 'unknown', 'done', 'failed']);

/**
 * The effects of run `run`, in key order, those in `state` only when given. Rejects with NotFoundError
 * when the run is neither in the resume store nor named by any effect.
 */
export async function listRunEffects(
  ledger: EffectLedger,
  store: ResumeStore,
  run: string,
  state?: EffectState,
): Promise<EffectRecord[]> {
  const records = await ledger.list({ run, ...(state !== undefined && { state }) });
  if (records.length > 0 || (await store.getRun(run)) !== undefined) return records;
  if (state !== undefined && (await ledger.list({ run })).length > 0) return records;
  throw new NotFoundError(`no workflow run ${run} in this HARMFLOW_HOME`);
}

/**
 * A person settles effect `key` of run `run`: `done` (it happened) or `failed` (it did not; it is
 * performed again when its step runs again), saying how they know in `note`. Rejects with
 * NotFoundError for a key the ledger does not hold or whose latest claim is in another run, and
 * ConflictError (from the ledger) for a `done` effect or a live claim.
 */
export async function resolveRunEffect(
  ledger: EffectLedger,
  run: string,
  key: string,
  outcome: 'done' | 'failed',
  note: string,
  at: string,
): Promise<EffectRecord> {
  const record = await ledger.get(key);
  if (record === undefined) throw new NotFoundError(`no effect ${key} in the ledger`);
  if (record.run !== run)
    throw new NotFoundError(`effect ${key} is not of run ${run}: its latest claim is in run ${record.run}`);
  const settlement =
    outcome === 'done' ? { state: 'done' as const, result: { note } } : { state: 'failed' as const, error: note };
  return ledger.resolve(key, settlement, `${PERSON}: ${note}`, at);
}

interface Options extends StoreOptions {
  state?: string;
  resolve?: string;
  done?: boolean;
  failed?: boolean;
  note?: string;
  json?: boolean;
}

/** Registers `effects` under the `workflow` command. */
export function registerEffects(workflow: Command): void {
  storeOptions(
    workflow
      .command('effects <run>')
      .description("a run's outside side effects from the ledger; --resolve settles one the ledger cannot"),
  )
    .option('--state <state>', 'only effects in this state: claimed, unknown, done or failed')
    .option('--resolve <key>', 'settle this unknown (or failed) effect, after checking the provider by hand')
    .option('--done', 'with --resolve: the effect happened')
    .option('--failed', 'with --resolve: it did not happen (it is performed again when its step runs again)')
    .option('--note <text>', 'with --resolve: how you know (recorded in settledBy)')
    .option('--json', 'print the effects (or the resolved one) as JSON')
    .action(async (run: string, options: Options) => {
      const resolve = resolution(options);
      const state = options.state === undefined ? undefined : stateOf(options.state);
      const place = storePlace(options);
      await withLedger(place, async (ledger) => {
        if (resolve !== undefined) {
          const { key, outcome, note } = resolve;
          const record = await resolveRunEffect(ledger, run, key, outcome, note, new Date().toISOString());
          const line = `effect ${record.key}: ${record.state}, settled by ${record.settledBy ?? '?'}`;
          process.stdout.write(`${options.json ? JSON.stringify(record, null, 2) : line}\n`);
          return;
        }
        await withStore(place, async (store) => {
          const records = await listRunEffects(ledger, store, run, state);
          process.stdout.write(`${options.json ? JSON.stringify(records, null, 2) : formatEffects(run, records)}\n`);
        });
      });
    });
}

function stateOf(text: string): EffectState {
  const parsed = State.safeParse(text);
  if (!parsed.success) throw new UsageError(`--state ${JSON.stringify(text)}: one of ${State.options.join(', ')}`);
  return parsed.data;
}

/** The resolution the options ask for, checked; undefined when they ask for a list. */
function resolution(options: Options): { key: string; outcome: 'done' | 'failed'; note: string } | undefined {
  if (options.resolve === undefined) {
    if (options.done || options.failed || options.note !== undefined) {
      throw new UsageError('--done, --failed and --note go with --resolve KEY');
    }
    return undefined;
  }
  if (options.state !== undefined) throw new UsageError('--state lists effects; it does not go with --resolve');
  if (options.done === options.failed) throw new UsageError('--resolve KEY needs one of --done and --failed');
  const note = options.note?.trim();
  if (!note) throw new UsageError('--resolve KEY needs --note TEXT: how you know it happened or not');
  return { key: options.resolve, outcome: options.done ? 'done' : 'failed', note };
}

/** The effects as a table, a count per state, and how to settle the unknown ones. */
export function formatEffects(run: string, records: readonly EffectRecord[]): string {
  if (records.length === 0) return `run ${run}: no effects`;
  const counts = new Map<string, number>();
  for (const record of records) counts.set(record.state, (counts.get(record.state) ?? 0) + 1);
  const summary = State.options
    .flatMap((state) => (counts.has(state) ? [`${counts.get(state)} ${state}`] : []))
    .join(', ');
  const rows = [['key', 'state', 'step', 'item', 'claims', 'settled by', 'result / error / reason']];
  for (const record of records) {
    rows.push([
      record.key,
      record.state,
      record.step,
      record.item,
      String(record.claims),
      record.settledBy ?? '-',
      clip(detailOf(record)),
    ]);
  }
  const lines = [
    `run ${run}: ${records.length} effect${records.length === 1 ? '' : 's'} (${summary})`,
    ...alignColumns(rows),
  ];
  if (counts.has('unknown')) {
    lines.push(
      '',
      'an unknown effect may or may not have happened: check the provider, then settle it with',
      `  harmflow workflow effects ${run} --resolve KEY --done|--failed --note TEXT`,
    );
  }
  return lines.join('\n');
}

function detailOf(record: EffectRecord): string {
  switch (record.state) {
    case 'claimed':
      return `being performed by holder ${record.holder}`;
    case 'unknown':
      return record.reason;
    case 'done':
      return JSON.stringify(record.result);
    case 'failed':
      return record.error;
  }
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length <= DETAIL_CHARS ? line : `${line.slice(0, DETAIL_CHARS - 1)}…`;
}
