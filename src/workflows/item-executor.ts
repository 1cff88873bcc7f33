/**
 * The ItemExecutor: the seam between the engine (run.ts), which decides what a step must compute,
 * and where its items are computed. The engine hands over a step's ready items (each with its
 * fingerprint and input) and hears each item's outcome as it ends; it keeps everything else — the
 * plan, fingerprints, reuse, reviews, blocked and failed items, the run's end state. The default,
 * `IN_PROCESS`, computes them here, with the step's concurrency and the engine's retry policy, and
 * leaves committing to the engine (its group commit). The cluster executor (cluster-executor.ts)
 * sends them to item workers, which commit them themselves; its outcomes say so.
 *
 * Contract for any executor: every item it reports was computed under the run's retry policy, each
 * item at most once per call; it starts no item once `stopping()` is true; a result it reports as
 * committed is in the ResumeStore before it is reported; it resolves once every item it started has
 * been reported (or rejects, having reported what ended). The engine reports the outcomes' retries
 * and holds their outputs.
 */
import type { Json } from '../store/resume-store.js';
import { type ComputeContext, type Computed, computeItem } from './compute-item.js';
import type { StepDefinition, WorkflowDefinition } from './define.js';
import { spentOfError } from './errors.js';
import type { PreviousOutput } from './item-commits.js';
import type { PreparedItem } from './prepare.js';
import { type RetryBudget, type RetryInfo, type RetryPolicy, runWithRetries } from './retry.js';
import type { Spent } from './run.js';
import { defaultConcurrency } from './validate.js';

/** An item ready to compute: its key, fingerprint, input, and the output its run item had before. */
export interface ReadyItem extends PreparedItem {
  readonly key: string;
  readonly before: PreviousOutput | undefined;
}

/** A step's items to compute (never a review step's: nothing computes those). */
export interface StepWork {
  readonly definition: WorkflowDefinition;
  readonly step: StepDefinition;
  readonly run: string;
  readonly items: readonly ReadyItem[];
  /** True once the run is stopping (an item ran out of retries): start no new item. */
  readonly stopping: () => boolean;
  /**
   * The drive of the run this is part of (ResumeStore.startDrive): an executor whose items are
   * committed elsewhere (a cluster worker) adds their spend to it in the same transaction.
   */
  readonly drive?: number;
}

/** What computing needs from the drive: the compute context, the retry policy and the run's budget. */
export interface DriveContext {
  readonly compute: ComputeContext;
  readonly policy: RetryPolicy;
  readonly budget: RetryBudget;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random: () => number;
  readonly now: () => number;
  readonly signal?: AbortSignal;
  readonly onRetry: (
    key: string,
    info: { readonly tryNumber: number; readonly delayMs: number; readonly error: string },
  ) => void;
}

/**
 * How an item ended. `computed`: the engine commits it. `committed`: done, and already committed by
 * the executor (`output` when the executor has its value; the engine loads it otherwise when
 * something reads it). `failed`: a defect (`committed` when its run item is stored already).
 * `exhausted`: its transient errors outlasted its tries or the run's budget; not committed.
 *
 * `spent`: what every try of the item spent, when the executor measured it. `spendRecorded`: the
 * executor committed that spend itself, with the item (a cluster worker, given the drive); the engine
 * records the spend of every other outcome, and marks an item that reports none as unreported.
 */
export type ItemOutcome = (
  | { readonly status: 'computed'; readonly key: string; readonly computed: Computed; readonly tries: number }
  | {
      readonly status: 'committed';
      readonly key: string;
      readonly digest: string;
      readonly output?: Json;
      readonly tries: number;
    }
  | {
      readonly status: 'failed';
      readonly key: string;
      readonly error: string;
      readonly tries: number;
      readonly committed: boolean;
    }
  | {
      readonly status: 'exhausted';
      readonly key: string;
      readonly error: string;
      readonly tries: number;
      readonly reason: 'item' | 'budget';
    }
) & { readonly spent?: Spent; readonly spendRecorded?: boolean };

export interface ItemExecutor {
  /** Computes `work.items`, reporting each item's outcome as it ends (awaiting `report`). */
  computeStep(work: StepWork, context: DriveContext, report: (outcome: ItemOutcome) => Promise<void>): Promise<void>;
}

/** Computes items in this process, at most the step's concurrency at a time; the engine commits them. */
export const IN_PROCESS: ItemExecutor = {
  computeStep: (work, context, report) =>
    forEachLimited(work.items, defaultConcurrency(work.step), work.stopping, async (item) => {
      await report(await computeWithRetries(work.step, item, context));
    }),
};

/** One item under the retry policy: its outcome (never `committed`: nothing is committed here). */
export async function computeWithRetries(
  step: StepDefinition,
  item: ReadyItem,
  context: DriveContext,
): Promise<ItemOutcome> {
  const { key } = item;
  const meter = new TryMeter(step.kind === 'model');
  const attempt = async (): Promise<Computed> => {
    const started = context.now();
    try {
      const computed = await computeItem(step, item.input, context.compute);
      meter.add(computed.measured.durationMs, computed.measured);
      return computed;
    } catch (error) {
      const spent = spentOfError(error);
      meter.add(spent?.durationMs ?? context.now() - started, spent);
      throw error;
    }
  };
  const result = await runWithRetries(attempt, {
    policy: context.policy,
    budget: context.budget,
    sleep: context.sleep,
    random: context.random,
    now: context.now,
    ...(context.signal !== undefined && { signal: context.signal }),
    onRetry: (info: RetryInfo) =>
      context.onRetry(key, { tryNumber: info.tryNumber, delayMs: info.delayMs, error: info.error.message }),
  });
  const spent = meter.spent();
  if (result.ok) return { status: 'computed', key, computed: result.value, tries: result.tries, spent };
  if (result.kind === 'defect')
    return { status: 'failed', key, error: result.error, tries: result.tries, committed: false, spent };
  return { status: 'exhausted', key, error: result.error, tries: result.tries, reason: result.reason, spent };
}

/**
 * Adds up one item's tries: their durations (each try is timed here, or by its provider when it
 * says) and, for a model step, the tokens of the tries that reported them; the others are counted as
 * `unreportedTokens` (a call that failed before it answered, whose provider said nothing).
 */
class TryMeter {
  readonly #model: boolean;
  #tries = 0;
  #durationMs = 0;
  #inputTokens = 0;
  #outputTokens = 0;
  #reported = 0;

  constructor(model: boolean) {
    this.#model = model;
  }

  add(durationMs: number, tokens: { readonly inputTokens?: number; readonly outputTokens?: number } | undefined): void {
    this.#tries += 1;
    this.#durationMs += durationMs;
    if (tokens?.inputTokens !== undefined && tokens.outputTokens !== undefined) {
      this.#inputTokens += tokens.inputTokens;
      this.#outputTokens += tokens.outputTokens;
      this.#reported += 1;
    }
  }

  spent(): Spent {
    const spent = { tries: this.#tries, durationMs: this.#durationMs };
    if (!this.#model) return spent;
    const unreported = this.#tries - this.#reported;
    return {
      ...spent,
      ...(this.#reported > 0 && { inputTokens: this.#inputTokens, outputTokens: this.#outputTokens }),
      ...(unreported > 0 && { unreportedTokens: unreported }),
    };
  }
}

/**
 * Runs `work` over `items`, at most `limit` at a time, in order of start; stops starting new ones
 * once `stop()` is true. Resolves when every started one has finished; rejects with the first error
 * `work` throws (after the others finished).
 */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  stop: () => boolean,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (next < items.length && !stop() && failure === undefined) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure !== undefined) throw failure.error;
}
