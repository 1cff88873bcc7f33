/**
 * The mapping between EffectLedger records and rows of the `effects` table, for every adapter: the
 * column list (record key → column) and the conversions both ways. Rows are parsed with zod, as in
 * rows.ts: the database is shared with other processes. Both adapters return rows of these shapes
 * (times as ISO 8601 text, the result as its JSON text). A row holds the state as stored; whether a
 * `claimed` row's holder still runs is the adapter's to judge (effect-transitions.ts, `reported`).
 */
import { z } from 'zod';
import type { EffectRecord } from './effect-ledger.js';
import type { Json } from './resume-store.js';

export const EFFECT_COLUMNS = {
  key: 'key',
  workflow: 'workflow',
  run: 'run',
  step: 'step',
  item: 'item',
  state: 'state',
  holder: 'holder',
  claims: 'claims',
  result: 'result',
  error: 'error',
  reason: 'reason',
  settledBy: 'settled_by',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
} as const;

const text = z.string();
const absent = z.null();

const Fields = {
  key: text,
  workflow: text,
  run: text,
  step: text,
  item: text,
  holder: text,
  claims: z.int().min(1),
  settledBy: text.nullable(),
  createdAt: text,
  updatedAt: text,
};

const EffectRow = z.discriminatedUnion('state', [
  z.object({ ...Fields, state: z.literal('claimed'), result: absent, error: absent, reason: absent }),
  z.object({ ...Fields, state: z.literal('unknown'), result: absent, error: absent, reason: text }),
  z.object({ ...Fields, state: z.literal('done'), result: text, error: absent, reason: absent }),
  z.object({ ...Fields, state: z.literal('failed'), result: absent, error: text, reason: absent }),
]);

export function effectFromRow(raw: unknown): EffectRecord {
  const row = EffectRow.parse(raw);
  const fields = {
    key: row.key,
    workflow: row.workflow,
    run: row.run,
    step: row.step,
    item: row.item,
    holder: row.holder,
    claims: row.claims,
    ...(row.settledBy !== null && { settledBy: row.settledBy }),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
  switch (row.state) {
    case 'claimed':
      return { ...fields, state: 'claimed' };
    case 'unknown':
      return { ...fields, state: 'unknown', reason: row.reason };
    case 'done':
      return { ...fields, state: 'done', result: JSON.parse(row.result) as Json };
    case 'failed':
      return { ...fields, state: 'failed', error: row.error };
  }
}

/** Binds every column: those the state lacks are NULL (a CHECK keeps them so). */
export function effectToRow(record: EffectRecord): Record<string, unknown> {
  return {
    key: record.key,
    workflow: record.workflow,
    run: record.run,
    step: record.step,
    item: record.item,
    state: record.state,
    holder: record.holder,
    claims: record.claims,
    result: record.state === 'done' ? JSON.stringify(record.result) : null,
    error: record.state === 'failed' ? record.error : null,
    reason: record.state === 'unknown' ? record.reason : null,
    settledBy: record.settledBy ?? null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}
