/**
 * An attempt's work items, built from its records in log order: the plans its harness reported and
 * the operations recorded while it ran (by the gates after each call, or by the engine from the
 * harness's stream — whichever saw how each call exited). Every operation is credited to the plan
 * entry in progress when it was recorded; what was done before the first plan, or while no entry
 * was in progress, goes to OUTSIDE_PLAN. Pure.
 */
import type { OperationData, WorkItemStatus } from '../events/schema.js';

/** The item that collects operations done while no reported work item was in progress. */
export const OUTSIDE_PLAN = '(work outside the reported plan)';

export interface TrackedItem {
  readonly text: string;
  /** As the harness last reported it; absent for OUTSIDE_PLAN and for the task's item when no plan came. */
  status?: WorkItemStatus;
  readonly operations: OperationData[];
}

export interface TrackedWork {
  /** True once the harness reported a plan. */
  readonly planReported: boolean;
  /** The plan's entries in first-reported order (and OUTSIDE_PLAN when it got operations). */
  readonly items: readonly TrackedItem[];
  /** Every operation, in order. */
  readonly operations: readonly OperationData[];
}

/** The part of a record this reads: its type and payload. */
export type WorkRecord =
  | { readonly type: 'plan'; readonly data: { readonly items: readonly { text: string; status: WorkItemStatus }[] } }
  | { readonly type: 'operation'; readonly data: OperationData }
  | { readonly type: string; readonly data: unknown };

/** Follows `records` (one attempt's, in log order). */
export function trackWork(records: Iterable<WorkRecord>): TrackedWork {
  const items = new Map<string, TrackedItem>();
  const operations: OperationData[] = [];
  let planReported = false;
  const outsidePlan = (): TrackedItem => {
    let item = items.get(OUTSIDE_PLAN);
    if (!item) {
      item = { text: OUTSIDE_PLAN, operations: [] };
      items.set(OUTSIDE_PLAN, item);
    }
    return item;
  };
  for (const record of records) {
    if (isPlan(record)) {
      // Operations done before the first plan was reported were done outside it.
      if (!planReported && operations.length > 0) outsidePlan().operations.push(...operations);
      planReported = true;
      for (const { text, status } of record.data.items) {
        const item = items.get(text);
        if (item) item.status = status;
        else items.set(text, { text, status, operations: [] });
      }
    } else if (isOperation(record)) {
      operations.push(record.data);
      if (!planReported) continue;
      const current = [...items.values()].find((item) => item.status === 'in_progress');
      (current ?? outsidePlan()).operations.push(record.data);
    }
  }
  const tracked = [...items.values()].filter((item) => item.text !== OUTSIDE_PLAN || item.operations.length > 0);
  return { planReported, items: tracked, operations };
}

function isPlan(record: WorkRecord): record is Extract<WorkRecord, { type: 'plan' }> {
  return record.type === 'plan';
}

function isOperation(record: WorkRecord): record is Extract<WorkRecord, { type: 'operation' }> {
  return record.type === 'operation';
}
