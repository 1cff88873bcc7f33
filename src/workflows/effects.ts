/**
 * performEffect: performs an outside side effect (email a statement, open a ticket) at most once
 * under its idempotency key, with none lost, through the EffectLedger (src/store/effect-ledger.ts).
 * The rules, by what the ledger holds for the key:
 *
 * - nothing: claim it (committed and synced before anything else happens), call `effect(key)` — the
 *   key is passed so a provider can dedupe too — and record how it ended (below).
 * - `done`: return the stored result; `performed: false`. The effect is not called.
 * - `claimed` (a live holder, this process included, is performing it): `in-flight`; nothing is called.
 * - `unknown` (claimed by a holder that ended before recording the outcome, or left unknown after an
 *   ambiguous error): without `reconcile`, report `unknown` and touch nothing. With it, take the claim
 *   over (so no one else reconciles or performs it meanwhile) and ask: `{ done }` records it done
 *   (`settledBy: 'reconcile'`) without performing; `{ notDone: true }` means it is safe to perform:
 *   perform it now; `undefined`, a throw, or any other answer leaves it `unknown`, reported.
 * - `failed` (it did not happen): claim it again and perform it — a run resumed after a fix does what
 *   the failure left undone.
 *
 * How an error thrown by the effect is recorded. After the claim, an error is ambiguous — the provider
 * may have acted before the error reached us — so the honest answer is `unknown` unless the error
 * proves nothing was done:
 * - **refused** → `failed`, returned: `DefectError` or a zod error (thrown before sending), or an HTTP
 *   4xx other than 408, 409 and 429 (the provider refused the request).
 * - **not performed** → `failed`, and the error is **rethrown** so the caller's retry policy
 *   (retry.ts) retries it; the retry claims it again: `EffectNotPerformedError` (the effect knows it did
 *   nothing), a connection never made (`ECONNREFUSED`, `ENOTFOUND`, `EAI_AGAIN`, `ENETUNREACH`,
 *   `EHOSTUNREACH`, `UND_ERR_CONNECT_TIMEOUT`), HTTP 408 or 429 (refused before acting).
 * - anything else → `unknown`, returned: a reset or timeout after sending, 5xx, 409 (an earlier
 *   request with the key is in progress), and any error nobody recognises.
 * The cause chain is read outermost first, and the first link that says something decides, as in
 * errors.ts.
 *
 * A reconcile function must answer `notDone` only when the effect did not happen and no request sent
 * earlier can still land (the crashed holder's process is gone; a provider that dedupes by key makes
 * this safe in any case). The ledger must not be closed while an effect it claimed is running.
 */
import { z } from 'zod';
import type { EffectClaim, EffectLedger, EffectRecord } from '../store/effect-ledger.js';
import type { Json } from '../store/resume-store.js';
import { isJson } from './compute-item.js';
import { classifyError, DefectError, httpStatus, TransientError } from './errors.js';

/** What a reconcile function found: the effect happened (with its result), or it did not. */
export type Reconciliation = { readonly done: Json } | { readonly notDone: true };

export interface PerformEffectOptions {
  readonly ledger: EffectLedger;
  /** The idempotency key, e.g. `statement:c-1412:2026-10`. */
  readonly key: string;
  readonly workflow: string;
  readonly run: string;
  readonly step: string;
  readonly item: string;
  /** Performs the effect, given the key so the provider can dedupe; resolves with its result (a receipt). */
  readonly effect: (key: string) => Promise<Json>;
  /** Finds out whether an effect left `unknown` happened; undefined when it cannot tell. */
  readonly reconcile?: (key: string) => Promise<Reconciliation | undefined>;
  /** Milliseconds since the epoch, for the records' timestamps; `Date.now` when left out. */
  readonly now?: () => number;
}

/** What a reconcile function answered in this call, when one was asked. */
export type Reconciled = 'done' | 'notDone' | 'unsure';

/** How the effect stands after the call. `performed`: the effect was called and succeeded in this call. */
export type EffectOutcome = (
  | { readonly status: 'done'; readonly key: string; readonly result: Json; readonly performed: boolean }
  | { readonly status: 'failed'; readonly key: string; readonly error: string }
  | { readonly status: 'unknown'; readonly key: string; readonly reason: string }
  | { readonly status: 'in-flight'; readonly key: string; readonly holder: string }
) & { readonly reconciled?: Reconciled };

/** Thrown by an effect that knows it did nothing (e.g. its own pre-check failed): retried, never `unknown`. */
export class EffectNotPerformedError extends TransientError {}

/** Who `settledBy` names when a reconcile function settled an effect. */
export const RECONCILE = 'reconcile';

/**
 * How many times a call tries to take over an effect another holder keeps reclaiming first: each lost
 * try means someone else holds it; after three it is theirs to finish (`in-flight`).
 */
const MAX_RECLAIMS = 3;

/** Error codes of a connection that was never made: no byte of the request reached the provider. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** How far down a `cause` chain to look, as in errors.ts. */
const MAX_CAUSE_DEPTH = 6;

/** The answers a reconcile function may give; anything else is taken as "cannot tell". */
const ReconciliationSchema = z.union([
  z.strictObject({ done: z.json() }),
  z.strictObject({ notDone: z.literal(true) }),
]);

/** The prefix of the reason an effect stays unknown after a reconcile could not tell. */
const UNSURE = 'reconcile could not tell whether it happened; ';

/** Performs the effect under `key` at most once; see the file comment for the rules. */
export async function performEffect(options: PerformEffectOptions): Promise<EffectOutcome> {
  const { ledger, key, reconcile } = options;
  const claim = (): EffectClaim => ({
    key,
    workflow: options.workflow,
    run: options.run,
    step: options.step,
    item: options.item,
    at: stamp(options),
  });
  let answer = await ledger.claim(claim());
  for (let round = 1; !answer.claimed; round += 1) {
    const seen = answer.existing;
    if (seen.state === 'done') return { status: 'done', key, result: seen.result, performed: false };
    if (seen.state === 'claimed' || round > MAX_RECLAIMS) return { status: 'in-flight', key, holder: seen.holder };
    if (seen.state === 'unknown' && reconcile === undefined) return { status: 'unknown', key, reason: seen.reason };
    answer = await ledger.reclaim(claim(), seen);
    if (answer.claimed && seen.state === 'unknown' && reconcile !== undefined) {
      return reconcileHeld(options, reconcile, seen);
    }
  }
  return perform(options);
}

/**
 * Sorts an error thrown by an effect after its claim: `refused` (it did not happen, and trying again
 * will not help), `not-performed` (it did not happen; worth trying again), or `ambiguous`.
 */
export function effectFailure(error: unknown): 'refused' | 'not-performed' | 'ambiguous' {
  let link = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof link === 'object' && link !== null; depth += 1) {
    const verdict = judge(link);
    if (verdict !== undefined) return verdict;
    link = (link as { cause?: unknown }).cause;
  }
  return 'ambiguous';
}

/** Asks `reconcile` about an unknown effect this holder has just reclaimed, and acts on the answer. */
async function reconcileHeld(
  options: PerformEffectOptions,
  reconcile: NonNullable<PerformEffectOptions['reconcile']>,
  seen: Extract<EffectRecord, { state: 'unknown' }>,
): Promise<EffectOutcome> {
  const { ledger, key } = options;
  let answer: z.output<typeof ReconciliationSchema> | undefined;
  let why = '';
  try {
    const parsed = ReconciliationSchema.safeParse(await reconcile(key));
    if (parsed.success) answer = parsed.data;
  } catch (error) {
    why = `reconcile failed: ${classifyError(error).message}; `;
  }
  if (answer === undefined) {
    const before = seen.reason.startsWith(UNSURE) ? seen.reason.slice(UNSURE.length) : seen.reason;
    const reason = `${UNSURE}${why}${before}`;
    await ledger.settle(key, { state: 'unknown', reason }, stamp(options));
    return { status: 'unknown', key, reason, reconciled: 'unsure' };
  }
  if ('done' in answer) {
    const result = answer.done as Json;
    await ledger.settle(key, { state: 'done', result }, stamp(options), RECONCILE);
    return { status: 'done', key, result, performed: false, reconciled: 'done' };
  }
  return { ...(await perform(options)), reconciled: 'notDone' };
}

/** Calls the effect under this holder's claim and records how it ended. */
async function perform(options: PerformEffectOptions): Promise<EffectOutcome> {
  const { ledger, key } = options;
  let value: unknown;
  try {
    value = await options.effect(key);
  } catch (error) {
    const message = classifyError(error).message;
    const failure = effectFailure(error);
    if (failure === 'ambiguous') {
      const reason = `the effect threw after its claim, so it may have happened: ${message}`;
      await ledger.settle(key, { state: 'unknown', reason }, stamp(options));
      return { status: 'unknown', key, reason };
    }
    await ledger.settle(key, { state: 'failed', error: message }, stamp(options));
    if (failure === 'not-performed') throw error;
    return { status: 'failed', key, error: message };
  }
  const result = storable(value);
  await ledger.settle(key, { state: 'done', result }, stamp(options));
  return { status: 'done', key, result, performed: true };
}

function judge(link: object): ReturnType<typeof effectFailure> | undefined {
  if (link instanceof EffectNotPerformedError) return 'not-performed';
  const status = httpStatus(link);
  if (status !== undefined) {
    if (status === 408 || status === 429) return 'not-performed';
    return status < 500 && status !== 409 ? 'refused' : 'ambiguous';
  }
  if (link instanceof DefectError || link instanceof z.core.$ZodError) return 'refused';
  const { code } = link as { code?: unknown };
  if (typeof code === 'string' && NOT_SENT_CODES.has(code)) return 'not-performed';
  return undefined;
}

/**
 * The effect's result as JSON: a value that is not JSON is stored as its JSON text's value (a Date
 * becomes its ISO string), and `undefined` or what cannot be serialised as `null` — the effect
 * happened, and that matters more than its receipt.
 */
function storable(value: unknown): Json {
  if (isJson(value)) return value;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : (JSON.parse(text) as Json);
  } catch {
    return null;
  }
}

function stamp(options: PerformEffectOptions): string {
  return new Date((options.now ?? Date.now)()).toISOString();
}
