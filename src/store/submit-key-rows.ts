/**
 * The rows of `submit_keys`, for every adapter (as rows.ts for the other tables): a submit's
 * idempotency key, its request's hash, the execution it created and that execution as it was
 * inserted (`answer`, the JSON of its row as rows.ts binds it: the submit's answer, whatever the
 * execution became since).
 */
import { z } from 'zod';
import { executionFromRow, executionToRow } from './rows.js';
import type { ExecutionRecord, SubmitKey, SubmitKeyRecord } from './store.js';

export const SUBMIT_KEY_COLUMNS = {
  key: 'key',
  requestHash: 'request_hash',
  execution: 'execution',
  answer: 'answer',
  createdAt: 'created_at',
} as const;

const SubmitKeyRow = z.object({
  key: z.string(),
  requestHash: z.string(),
  execution: z.string(),
  answer: z.string(),
  createdAt: z.string(),
});

export function submitKeyFromRow(row: unknown): SubmitKeyRecord {
  const { key, requestHash, execution, answer, createdAt } = SubmitKeyRow.parse(row);
  const record = executionFromRow(JSON.parse(answer));
  if (record.id !== execution) throw new Error(`submit key ${key}: its answer is not execution ${execution}`);
  return { key, requestHash, execution: record, createdAt };
}

/** The row recording `key` for `execution`, created now. */
export function submitKeyToRow(key: SubmitKey, execution: ExecutionRecord): Record<string, unknown> {
  return {
    key: key.key,
    requestHash: key.requestHash,
    execution: execution.id,
    answer: JSON.stringify(executionToRow(execution)),
    createdAt: new Date().toISOString(),
  };
}
