/**
 * What a plan's items cost: a step's expected tokens and seconds per item — the mean of its stored
 * outputs' measured figures where they exist, else the step's declared estimate — and from those the
 * tokens, dollars and hours of running some number of its items. A figure nothing supports (no
 * history, no estimate, a model without a price) is `null`, never guessed; zero items cost zero.
 * Pure functions: the planner (plan.ts) owns the inputs.
 */
import type { Measured } from '../store/resume-store.js';
import type { StepDefinition } from './define.js';

/** USD per million tokens of one model. */
export interface ModelPrice {
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
}

/**
 * Where a per-item figure comes from: the mean of measured outputs, the step's estimate, nothing
 * (unknown), or — for tokens of a step that calls no model — nothing to count.
 */
export type RateSource = 'measured' | 'estimate' | 'unknown' | 'no-model';

/** What one item of a step is expected to take. */
export interface ItemRate {
  /** How many stored outputs the measured figures average. */
  readonly samples: number;
  readonly seconds: number | null;
  readonly secondsFrom: RateSource;
  /** Seconds the step takes once whenever any of its items run (the estimate's `fixedSeconds`, else 0). */
  readonly fixedSeconds: number;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly tokensFrom: RateSource;
}

/** What running some items of a step costs. */
export interface Cost {
  readonly items: number;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly usd: number | null;
  readonly hours: number | null;
}

/** The expected figures per item of `step`, from `measured` (its stored outputs) where it has any. */
export function rateOf(step: StepDefinition, measured: readonly Measured[]): ItemRate {
  const usesModel = step.kind === 'model';
  const estimate = step.estimate;
  // A review's stored output is the approval, made in no measured time: a person's time per item is
  // the step's estimate.
  const timed = step.kind === 'review' ? [] : measured;
  const seconds =
    timed.length > 0
      ? { value: mean(timed.map((entry) => entry.durationMs)) / 1000, from: 'measured' as const }
      : estimate !== undefined
        ? { value: estimate.secondsPerItem, from: 'estimate' as const }
        : { value: null, from: 'unknown' as const };
  const withTokens = measured.filter(
    (entry) => entry.inputTokens !== undefined && entry.outputTokens !== undefined,
  ) as readonly Required<Measured>[];
  const tokens = !usesModel
    ? { input: 0, output: 0, from: 'no-model' as const }
    : withTokens.length > 0
      ? {
          input: mean(withTokens.map((entry) => entry.inputTokens)),
          output: mean(withTokens.map((entry) => entry.outputTokens)),
          from: 'measured' as const,
        }
      : estimate?.inputTokens !== undefined && estimate.outputTokens !== undefined
        ? { input: estimate.inputTokens, output: estimate.outputTokens, from: 'estimate' as const }
        : { input: null, output: null, from: 'unknown' as const };
  return {
    samples: measured.length,
    seconds: seconds.value,
    secondsFrom: seconds.from,
    fixedSeconds: estimate?.fixedSeconds ?? 0,
    inputTokens: tokens.input,
    outputTokens: tokens.output,
    tokensFrom: tokens.from,
  };
}

/**
 * The cost of running `items` items of a step at `rate`, `concurrency` at a time: tokens are per
 * item, dollars at `price` (undefined: unknown, unless the step calls no model), hours are the
 * step's fixed seconds plus the rounds of `concurrency` items times the seconds per item.
 */
export function costOf(rate: ItemRate, items: number, concurrency: number, price: ModelPrice | undefined): Cost {
  if (items === 0) return { items, inputTokens: 0, outputTokens: 0, usd: 0, hours: 0 };
  const inputTokens = rate.inputTokens === null ? null : rate.inputTokens * items;
  const outputTokens = rate.outputTokens === null ? null : rate.outputTokens * items;
  const usd =
    rate.tokensFrom === 'no-model'
      ? 0
      : inputTokens === null || outputTokens === null || price === undefined
        ? null
        : (inputTokens * price.inputPerMTok + outputTokens * price.outputPerMTok) / 1_000_000;
  const hours =
    rate.seconds === null ? null : (rate.fixedSeconds + Math.ceil(items / concurrency) * rate.seconds) / 3600;
  return { items, inputTokens, outputTokens, usd, hours };
}

/** Sums of dollars and hours over named costs, and the names whose figure is unknown (left out of the sum). */
export interface CostSum {
  readonly usd: number;
  /** All hours: the steps' work and, within it, `reviewHours` of people reviewing. */
  readonly hours: number;
  readonly reviewHours: number;
  readonly unknown: { readonly usd: readonly string[]; readonly hours: readonly string[] };
}

/** Adds up `costs` (steps run one after another, so their hours add); `reviewHours` are those of review steps. */
export function sumCosts(
  costs: readonly { readonly step: string; readonly kind: StepDefinition['kind']; readonly cost: Cost }[],
): CostSum {
  let usd = 0;
  let hours = 0;
  let reviewHours = 0;
  const unknownUsd: string[] = [];
  const unknownHours: string[] = [];
  for (const { step, kind, cost } of costs) {
    if (cost.usd === null) unknownUsd.push(step);
    else usd += cost.usd;
    if (cost.hours === null) unknownHours.push(step);
    else {
      hours += cost.hours;
      if (kind === 'review') reviewHours += cost.hours;
    }
  }
  return { usd, hours, reviewHours, unknown: { usd: unknownUsd, hours: unknownHours } };
}

function mean(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}
