/**
 * The EffectLedger's transitions, for every adapter: what a claim, a reclaim, a settlement and a
 * person's resolution make of the record as it is reported now, and when they are refused. Pure
 * functions: an adapter reads the record in a transaction that keeps others from changing it (SQLite's
 * write lock, PostgreSQL's row lock), applies one of these, and writes the record it returns. Which
 * holders have ended is the adapter's to tell (`reported`).
 */
import { ConflictError, UsageError } from '../core/errors.js';
import type { ClaimResult, EffectClaim, EffectRecord, Settlement } from './effect-ledger.js';

/** The record of `claim` taken by `holder`: its `claims`-th claim of a key first claimed at `createdAt`. */
export function claimedRecord(claim: EffectClaim, holder: string, claims: number, createdAt: string): EffectRecord {
  const { key, workflow, run, step, item } = claim;
  return { key, workflow, run, step, item, holder, claims, createdAt, updatedAt: claim.at, state: 'claimed' };
}

/** The stored record as reported: a claim whose holder has ended (`isLive` says no) is `unknown`. */
export function reported(stored: EffectRecord, isLive: (holder: string) => boolean): EffectRecord {
  if (stored.state !== 'claimed' || isLive(stored.holder)) return stored;
  return {
    ...stored,
    state: 'unknown',
    reason: `claimed by holder ${stored.holder}, which ended before recording the outcome`,
  };
}

/** Refuses a reclaim given the record of another key (a caller's mistake), before anything is read. */
export function checkReclaim(claim: EffectClaim, seen: EffectRecord): void {
  if (claim.key !== seen.key) throw new UsageError(`reclaim of ${claim.key} given the record of ${seen.key}`);
}

/**
 * A reclaim of `current` (as reported) by `holder`: the new record when it is `unknown` or `failed`
 * and claimed as many times as when `seen`, else `current` as the record that stopped it.
 */
export function reclaimed(current: EffectRecord, claim: EffectClaim, seen: EffectRecord, holder: string): ClaimResult {
  const free = current.state === 'unknown' || current.state === 'failed';
  if (!free || current.claims !== seen.claims) return { claimed: false, existing: current };
  return { claimed: true, record: claimedRecord(claim, holder, current.claims + 1, current.createdAt) };
}

/** `current` settled by `holder`, its claimer; ConflictError when it is not `claimed` by that holder. */
export function settled(
  current: EffectRecord,
  holder: string,
  settlement: Settlement,
  at: string,
  by: string | undefined,
): EffectRecord {
  if (current.state !== 'claimed' || current.holder !== holder) {
    throw new ConflictError(`effect ${current.key} is ${current.state}, not claimed by this holder`);
  }
  return withSettlement(current, settlement, at, by);
}

/** `current` settled by a person, `by`; ConflictError when it is `done` or being performed. */
export function resolved(current: EffectRecord, settlement: Settlement, by: string, at: string): EffectRecord {
  if (current.state === 'done') throw new ConflictError(`effect ${current.key} is done already`);
  if (current.state === 'claimed') {
    throw new ConflictError(`effect ${current.key} is being performed by holder ${current.holder}`);
  }
  return withSettlement(current, settlement, at, by);
}

/** `current` with `settlement`'s state and field, updated `at`, settled `by` when told. */
function withSettlement(
  current: EffectRecord,
  settlement: Settlement,
  at: string,
  by: string | undefined,
): EffectRecord {
  const fields = {
    key: current.key,
    workflow: current.workflow,
    run: current.run,
    step: current.step,
    item: current.item,
    holder: current.holder,
    claims: current.claims,
    ...(by !== undefined && { settledBy: by }),
    createdAt: current.createdAt,
    updatedAt: at,
  };
  switch (settlement.state) {
    case 'done':
      return { ...fields, state: 'done', result: settlement.result };
    case 'failed':
      return { ...fields, state: 'failed', error: settlement.error };
    case 'unknown':
      return { ...fields, state: 'unknown', reason: settlement.reason };
  }
}
