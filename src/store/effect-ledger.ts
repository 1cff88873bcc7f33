/**
 * The EffectLedger: the record that makes a workflow's outside side effects (emailing a statement,
 * opening a ticket) happen at most once, with none lost. An effect is identified by its
 * **idempotency key**, a string its step derives (e.g. `statement:c-1412:2026-10`), unique across
 * runs and workflows: a new run of the same month finds the statements already sent.
 *
 * Lifecycle (the protocol is src/workflows/effects.ts): the key is **claimed** — durably, before the
 * effect runs — then the effect runs with the key (so a provider can dedupe), then the claimer
 * settles it **done** with its result or **failed** with why it did not happen. A claim whose claimer
 * ended before settling it is **unknown**: whether the effect happened cannot be told from here, so it
 * is reconciled (by a reconcile function that asks the provider, or by a person), never blindly
 * repeated.
 *
 * Holders. Each open ledger is a **holder** with an id of its own, recorded on every claim it makes;
 * the adapter can tell whether a holder is still open (SQLite: an OS lock the holder's process keeps
 * while it lives; PostgreSQL: an advisory lock its database session keeps). `unknown` is stored when
 * a holder knows it does not know (the effect threw an error that may have come after the provider
 * acted) and **derived** when a claim's holder has ended (a crash, a kill): such a claim is reported
 * as `unknown`, never as `claimed`. So `claimed` always means "being performed right now by a live
 * holder", and nobody else may perform or settle it.
 *
 * The ledger is never garbage-collected: a row per effect ever claimed (≈24,000 a year for 2,000
 * monthly statements) is what stops a statement from going out twice, however old the run.
 *
 * Records are exact: a field never set is absent. Timestamps are ISO 8601 strings. Adapters:
 * sqlite/effect-ledger.ts and postgres/effect-ledger.ts; every adapter passes
 * test/store/effect-ledger-conformance.ts.
 */
import type { Json } from './resume-store.js';

/**
 * `claimed`: a live holder is performing it. `unknown`: claimed, but whether it happened is not known
 * (its holder ended before settling it, or said it could not tell). `done`: it happened, with its
 * result. `failed`: it did not happen (the provider refused it, the request never left, or a person or
 * a reconcile function found it not done); it may be claimed again.
 */
export type EffectState = 'claimed' | 'unknown' | 'done' | 'failed';

/** Who claims an effect: the key and where in which run it is performed. */
export interface EffectClaim {
  readonly key: string;
  readonly workflow: string;
  readonly run: string;
  readonly step: string;
  readonly item: string;
  /** When: the record's `createdAt` on a first claim, its `updatedAt` on every claim. */
  readonly at: string;
}

interface EffectFields {
  readonly key: string;
  readonly workflow: string;
  /** The run, step and item of the latest claim. */
  readonly run: string;
  readonly step: string;
  readonly item: string;
  /** The holder of the latest claim. */
  readonly holder: string;
  /** How many times it was claimed: 1, plus one for each reclaim. */
  readonly claims: number;
  /** Who settled it when it was not its holder's own call: `reconcile`, or a person's name. */
  readonly settledBy?: string;
  /** The first claim. */
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** An effect as the ledger reports it (a claim whose holder ended is reported `unknown`). */
export type EffectRecord =
  | (EffectFields & { readonly state: 'claimed' })
  | (EffectFields & { readonly state: 'unknown'; readonly reason: string })
  | (EffectFields & { readonly state: 'done'; readonly result: Json })
  | (EffectFields & { readonly state: 'failed'; readonly error: string });

/** How a claim ended, as its holder or a person records it. */
export type Settlement =
  | { readonly state: 'done'; readonly result: Json }
  | { readonly state: 'failed'; readonly error: string }
  | { readonly state: 'unknown'; readonly reason: string };

/** A claim's answer: this holder holds the effect now, or the record that stopped it. */
export type ClaimResult =
  | { readonly claimed: true; readonly record: EffectRecord }
  | { readonly claimed: false; readonly existing: EffectRecord };

/** Which effects `list` returns: those of a run (its latest claim), in a state (as reported). */
export interface EffectQuery {
  readonly run?: string;
  readonly state?: EffectState;
  readonly workflow?: string;
  readonly step?: string;
}

/**
 * The EffectLedger. The opener owns it and closes it, once every effect it claimed has settled: a
 * claim of a closed ledger is `unknown` to everyone. `close()` is idempotent; any other call after it
 * rejects. Each method is atomic; calls may overlap, from this process and others.
 */
export interface EffectLedger {
  /** This ledger's holder id, recorded on every claim it makes. */
  readonly holder: string;
  /**
   * Claims a key not seen before, atomically (insert if absent), committed durably before it
   * resolves, so the effect may run once it has. A key that exists is not touched: its record is
   * returned, whatever its state.
   */
  claim(claim: EffectClaim): Promise<ClaimResult>;
  /**
   * Takes over an `unknown` or `failed` effect, atomically and durably, if it is still as `seen` (the
   * same number of claims): two holders reclaiming the same record cannot both succeed. It becomes
   * `claimed` by this holder with the claim's run, step and item, its claims count one more. A record
   * that changed since `seen`, or is `claimed` or `done`, is returned as it is now.
   */
  reclaim(claim: EffectClaim, seen: EffectRecord): Promise<ClaimResult>;
  /**
   * This holder records how its claim ended; `by` names who decided when it was not the effect's own
   * call (`reconcile`). Rejects with NotFoundError for an unknown key and ConflictError when the
   * effect is not `claimed` by this holder (it was settled, reclaimed or never claimed by it).
   */
  settle(key: string, settlement: Settlement, at: string, by?: string): Promise<EffectRecord>;
  /**
   * A person settles an effect that is not `done` and not being performed: an `unknown` one after
   * checking the provider, or a `failed` one that happened after all. `by` is their name. (`failed`
   * is performed again when its step runs again; to stop that, settle it `done` saying why.)
   * Rejects with NotFoundError for an unknown key and ConflictError for a `done` or `claimed` one.
   */
  resolve(
    key: string,
    settlement: Exclude<Settlement, { state: 'unknown' }>,
    by: string,
    at: string,
  ): Promise<EffectRecord>;
  /** The effect with this key, or undefined. */
  get(key: string): Promise<EffectRecord | undefined>;
  /** The effects that match, in key order (code point order). */
  list(query?: EffectQuery): Promise<EffectRecord[]>;
  /** Ends this holder (its unsettled claims become `unknown`) and releases the database. Idempotent. */
  close(): Promise<void>;
}
