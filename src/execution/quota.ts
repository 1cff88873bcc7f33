/**
 * The quota registry as the engine uses it: what an attempt's end says about its harness's quota
 * (recorded in the store, so every execution learns from every other), and, before an attempt
 * starts, which harnesses of the chain are known to be out and until when.
 *
 * A harness counts as out while its last record says `exhausted` and either its reset time is still
 * ahead, or — when it never said when — its cool-down since the observation is. Nothing else makes a
 * harness out: a rate limit or an overload is transient and stays with the attempt that saw it.
 * A link that names an `account` has a record of its own (the same CLI on other credentials has
 * another quota); a real link without one is account `''`. A simulated link keeps an account of its
 * own per scenario (`sim:[<account>:]<scenario file>`): playing a harness never marks the real one as
 * out, and one scenario's quota is not another's.
 *
 * Near the limit: a record `warning` with a utilization at or over a task's `switchAtUtilization`,
 * until the window it reported resets (or, without a reset time, for the cool-down), marks a link a
 * task with that threshold passes over while another link is below it.
 */
import { compact } from '../core/compact.js';
import type { Outcome } from '../core/outcome.js';
import { DEFAULT_QUOTA_COOL_DOWN_MS, type HarnessSpec } from '../core/task.js';
import type { QuotaRecord, Store } from '../store/store.js';
import type { RateLimitSeen } from './attempt-observer.js';

/** The registry account of a chain link. */
export function quotaAccount(spec: HarnessSpec): string {
  if (spec.simulate === undefined) return spec.account ?? '';
  return `sim:${spec.account === undefined ? '' : `${spec.account}:`}${spec.simulate}`;
}

/** How long a link is out, when it is. */
export interface OutUntil {
  /** Epoch ms until which it counts as out. */
  readonly until: number;
  /** True when the harness said when it resets; false when the cool-down decided. */
  readonly known: boolean;
  readonly record: QuotaRecord;
}

/** The quota records of every harness, read once before a decision. */
export class QuotaView {
  readonly #records: readonly QuotaRecord[];
  readonly #coolDownMs: number;

  constructor(records: readonly QuotaRecord[], coolDownMs: number) {
    this.#records = records;
    this.#coolDownMs = coolDownMs;
  }

  static async load(store: Store, coolDownMs: number): Promise<QuotaView> {
    return new QuotaView(await store.listQuotas(), coolDownMs);
  }

  /** When `spec`'s harness is known to be out at `now`, until when; undefined when it is not. */
  outUntil(spec: HarnessSpec, now: number): OutUntil | undefined {
    const record = this.#recordOf(spec);
    return record === undefined ? undefined : outUntil(record, now, this.#coolDownMs);
  }

  /**
   * The utilization `spec`'s harness last reported, when it is at or over `threshold` and the window
   * it was reported for has not reset at `now`; undefined otherwise.
   */
  nearLimit(spec: HarnessSpec, now: number, threshold: number): number | undefined {
    const record = this.#recordOf(spec);
    if (record?.state !== 'warning' || record.utilization === undefined || record.utilization < threshold) {
      return undefined;
    }
    const resets = record.resetsAt === undefined ? Number.NaN : Date.parse(record.resetsAt);
    const until = Number.isNaN(resets) ? Date.parse(record.observedAt) + this.#coolDownMs : resets;
    return until > now ? record.utilization : undefined;
  }

  #recordOf(spec: HarnessSpec): QuotaRecord | undefined {
    const account = quotaAccount(spec);
    return this.#records.find((candidate) => candidate.harness === spec.harness && candidate.account === account);
  }
}

/** True when a reported rate limit is at or over `threshold` of its window (Claude Code's `allowed_warning`). */
export function overThreshold(rateLimit: RateLimitSeen | undefined, threshold: number | undefined): boolean {
  return threshold !== undefined && rateLimit?.utilization !== undefined && rateLimit.utilization >= threshold;
}

/**
 * Until when `record` says its harness is out at `now` (its reset, or the cool-down since it ran out
 * when it gave none); undefined when it is not out.
 */
export function outUntil(record: QuotaRecord, now: number, coolDownMs: number): OutUntil | undefined {
  if (record.state !== 'exhausted') return undefined;
  const resets = record.resetsAt === undefined ? Number.NaN : Date.parse(record.resetsAt);
  const known = !Number.isNaN(resets);
  const until = known ? resets : Date.parse(record.observedAt) + coolDownMs;
  return until > now ? { until, known, record } : undefined;
}

/** What an ended attempt tells the registry, when it tells anything. */
export interface AttemptQuota {
  readonly spec: HarnessSpec;
  readonly execution: string;
  readonly attempt: number;
  readonly outcome: Outcome;
  readonly resetsAt?: string | undefined;
  readonly message?: string | undefined;
  /** The last `rate_limit` the attempt reported, if any. */
  readonly rateLimit?: RateLimitSeen | undefined;
  readonly observedAt: string;
}

/**
 * The registry record an ended attempt makes: `exhausted` for a quota outcome (with its reset time
 * when the harness gave one); `warning` when it reported a limit close to full (with the utilization
 * and the window's reset), however it ended; `ok` when it completed otherwise. Other outcomes say
 * nothing about the quota: undefined.
 */
export function quotaRecordOf(end: AttemptQuota): QuotaRecord | undefined {
  const head = {
    harness: end.spec.harness,
    account: quotaAccount(end.spec),
    execution: end.execution,
    attempt: end.attempt,
    observedAt: end.observedAt,
  };
  if (end.outcome === 'quota_exhausted') {
    return {
      ...head,
      state: 'exhausted',
      source: 'quota.exhausted',
      ...(end.resetsAt !== undefined && { resetsAt: end.resetsAt }),
      ...(end.message !== undefined && { message: end.message }),
    };
  }
  const rateLimit = end.rateLimit;
  if (rateLimit?.status.includes('warning') === true) {
    return {
      ...head,
      state: 'warning',
      source: 'rate_limit',
      ...compact({ utilization: rateLimit.utilization, resetsAt: rateLimit.resetsAt }),
    };
  }
  if (end.outcome !== 'completed') return undefined;
  return {
    ...head,
    state: 'ok',
    source: 'attempt.ended',
    ...(rateLimit?.utilization !== undefined && { utilization: rateLimit.utilization }),
  };
}

/** One quota record as the surfaces show it: stored, plus whether the harness is still out `now`. */
export interface QuotaStatus extends QuotaRecord {
  /** ISO 8601; present only while the harness counts as out (with the default cool-down when it gave no reset). */
  readonly outUntil?: string;
  /** Present (true) when `outUntil` comes from the cool-down: the harness gave no reset time. */
  readonly estimated?: true;
}

/** The registry's records with `outUntil` where the harness is still out at `now`. */
function quotaStatuses(records: readonly QuotaRecord[], now: number, coolDownMs: number): QuotaStatus[] {
  return records.map((record) => {
    const out = outUntil(record, now, coolDownMs);
    if (out === undefined) return record;
    return { ...record, outUntil: new Date(out.until).toISOString(), ...(!out.known && { estimated: true as const }) };
  });
}

/**
 * What the surfaces show (`harmflow harnesses`, `GET /api/harnesses`): every record, now, with a
 * task's default cool-down (they show the registry outside any task).
 */
export async function readQuotaStatuses(store: Store): Promise<QuotaStatus[]> {
  return quotaStatuses(await store.listQuotas(), Date.now(), DEFAULT_QUOTA_COOL_DOWN_MS);
}

/** A quota status in a few words: `ok`, `warning (96% used)`, `out until …`, `reset (ran out …)`. */
export function describeQuota(status: QuotaStatus): string {
  if (status.outUntil !== undefined) return `out until ${status.outUntil}${status.estimated ? ' (estimated)' : ''}`;
  if (status.state === 'exhausted') return `reset (ran out ${status.observedAt})`;
  if (status.state === 'warning') {
    return `warning${status.utilization === undefined ? '' : ` (${Math.round(status.utilization * 100)}% used)`}`;
  }
  return 'ok';
}
