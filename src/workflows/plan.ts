/**
 * The planner: what resuming a run with a (typically fixed) definition would do, and what it would
 * cost, without running anything. Per step: how many items are cached, will run (by reason) and may
 * run (an upstream item will run and its new output is unknown); their tokens, dollars and hours;
 * the totals against a deadline and a budget; and side by side, a full rerun from a given step. The
 * rules that sort items are in plan-items.ts, the costing in plan-cost.ts.
 *
 * Costs count the items that will run and those that may: a plan is checked against a deadline and
 * a budget, and an item that may run must fit in both. `certain` in the totals counts only the items
 * that will run. A review step's hours (its estimate: a person's sitting, per item or fixed) add to
 * `hours`, and are also counted apart as `reviewHours`.
 *
 * Reads only: one getRun for the run; per step, the digests of the outputs its done items use
 * (outputDigests), its run items only when some item is not done as it is now, one getOutputRecords
 * (the outputs it looks up and measures, without their values) and one getOutputs for a step whose
 * values an items function or a selector reads (plan-items.ts), and latestOutputs only when the run
 * has items of the step it never computed or no output of it to measure. The caller owns the store.
 */
import { EXIT, NotFoundError, UsageError } from '../core/errors.js';
import type { EffectLedger } from '../store/effect-ledger.js';
import type { Json, Measured, ResumeStore, RunItem, RunRecord, StoredOutput } from '../store/resume-store.js';
import type { ModelProvider, StepDefinition, WorkflowDefinition } from './define.js';
import { type Cost, type CostSum, costOf, type ItemRate, type ModelPrice, rateOf, sumCosts } from './plan-cost.js';
import { type PlanReason, PlanState, planStepItems } from './plan-items.js';
import { invalidationMarks } from './prepare.js';
import { defaultConcurrency, validateDefinition } from './validate.js';

export type { Cost, CostSum, ItemRate, ModelPrice, PlanReason };

export interface PlanOptions {
  readonly store: ResumeStore;
  /**
   * The id of the run to plan a resume of; absent to plan a new run (with `params` over the
   * definition's defaults), which reuses what earlier runs stored.
   */
  readonly run?: string;
  readonly params?: Readonly<Record<string, Json>>;
  /** The effects ledger: effect items whose effect is done count as sent already, at no cost. */
  readonly ledger?: EffectLedger;
  /** Steps to treat as changed in full: every item will run (reason `invalidated`). */
  readonly invalidate?: readonly string[];
  /** Step → how many of its items' outputs a resume will change (the rest come out the same). */
  readonly assumeChanged?: Readonly<Record<string, number>>;
  /** The step the full rerun compared with starts at (default: the first step with items that will run). */
  readonly fullFrom?: string;
  /** USD per million tokens, by model name; a model step whose model has none costs an unknown amount. */
  readonly prices?: Readonly<Record<string, ModelPrice>>;
  /** The most the plan may cost, in USD. */
  readonly maxUsd?: number;
  readonly deadline?: Date;
  /** Injectable clock for the deadline (ms since the epoch). */
  readonly now?: () => number;
}

/** One step of a plan. */
export interface StepPlan {
  readonly step: string;
  readonly kind: StepDefinition['kind'];
  /** The model a model step calls (what `prices` is keyed by). */
  readonly model?: string;
  readonly items: number;
  readonly cached: number;
  /** Items that will run; `reasons` counts an item under each of its reasons. */
  readonly willRun: { readonly items: number; readonly reasons: Partial<Record<PlanReason, number>> };
  /** Items that may run: an upstream item they read will or may run, with an output not known yet. */
  readonly mayRun: number;
  /** The `assumeChanged` figure given for this step. */
  readonly assumedChanged?: number;
  /**
   * True when the counts are estimates: they rest on which upstream outputs an `assumeChanged` figure
   * was taken to change, or on the step's `estimate.items` (its items cannot be listed yet).
   */
  readonly estimated: boolean;
  /**
   * For an effect step, with a ledger given: of the items that will or may run, those whose effect
   * the ledger shows done for this workflow, step and item (sent already: a resume records them and
   * sends nothing). Their cost is left out.
   */
  readonly alreadyDone?: number;
  readonly concurrency: number;
  /** Per item: measured (mean of stored outputs) or estimated tokens and seconds. */
  readonly rate: ItemRate;
  /** What the items that will or may run cost. */
  readonly cost: Cost;
  /** What the items that will run cost. */
  readonly certainCost: Cost;
  readonly notes: readonly string[];
}

/** The totals of a plan: the items that will or may run, and those that will (`certain`). */
export interface PlanTotal extends CostSum {
  readonly certain: { readonly usd: number; readonly hours: number };
}

/** A full rerun from one step: every item of it and of every later step. */
export interface FullRerun {
  readonly from: string;
  readonly steps: readonly { readonly step: string; readonly kind: StepDefinition['kind']; readonly cost: Cost }[];
  readonly total: CostSum;
}

export interface DeadlinePlan {
  readonly at: string;
  /** From now; negative once past. */
  readonly hoursLeft: number;
  /** The plan's total hours (known ones) fit in the hours left. */
  readonly fits: boolean;
  /** The full rerun's hours fit. */
  readonly fullFits: boolean;
}

export interface BudgetPlan {
  readonly maxUsd: number;
  /** The plan's total (known) dollars are within `maxUsd`. */
  readonly fits: boolean;
  readonly fullFits: boolean;
}

export interface Plan {
  readonly run: string;
  readonly workflow: string;
  readonly steps: readonly StepPlan[];
  readonly total: PlanTotal;
  readonly full: FullRerun;
  readonly deadline: DeadlinePlan | null;
  readonly budget: BudgetPlan | null;
}

const HOUR_MS = 3_600_000;

/** The run planned: the stored one, or a new one's id (`new`) and parameters. */
async function runToPlan(
  definition: WorkflowDefinition,
  options: PlanOptions,
): Promise<Pick<RunRecord, 'id' | 'params'>> {
  if (options.run === undefined) return { id: NEW_RUN, params: { ...definition.params, ...options.params } };
  const run = await options.store.getRun(options.run);
  if (run === undefined) throw new NotFoundError(`no workflow run ${options.run}`);
  if (run.workflow !== definition.name) {
    throw new UsageError(
      `run ${run.id} is of workflow ${JSON.stringify(run.workflow)}, not ${JSON.stringify(definition.name)}`,
    );
  }
  return run;
}

/** How many of `items` of the step have their effect done in the ledger (by workflow, step and item). */
async function doneEffects(
  ledger: EffectLedger,
  workflow: string,
  step: string,
  items: readonly string[],
): Promise<number> {
  const done = new Set((await ledger.list({ state: 'done', workflow, step })).map((record) => record.item));
  return items.filter((item) => done.has(item)).length;
}

const NO_DIGESTS: ReadonlyMap<string, string> = new Map();

/** The items of step `step` in run `run` (none without a run), by key. */
async function runItemsOf(
  store: ResumeStore,
  run: string | undefined,
  step: string,
): Promise<ReadonlyMap<string, RunItem>> {
  if (run === undefined) return new Map();
  return new Map((await store.listRunItems(run, step)).map((item) => [item.item, item]));
}

/** The `run` of a plan for a run not created yet. */
export const NEW_RUN = 'new';

/** Plans a resume of `options.run` (or a new run) with `definition`. Runs nothing; writes nothing. */
export async function planResume(definition: WorkflowDefinition, options: PlanOptions): Promise<Plan> {
  const { store } = options;
  const run = await runToPlan(definition, options);
  validateDefinition(definition, run.params, planningProviders(definition));
  checkOptions(definition, options);

  const state = new PlanState(store, run.params);
  const marks = invalidationMarks(options.run === undefined ? [] : await store.listInvalidations(options.run));
  const invalidated = new Set(options.invalidate ?? []);
  const steps: StepPlan[] = [];
  /** Each step's cost if all its items ran: the full rerun's, from whichever step it starts at. */
  const allItems: { step: string; kind: StepDefinition['kind']; cost: Cost }[] = [];
  for (const step of definition.steps) {
    let latest: Promise<ReadonlyMap<string, StoredOutput>> | undefined;
    const loadLatest = () => {
      latest ??= store.latestOutputs(definition.name, step.name);
      return latest;
    };
    let runItems: Promise<ReadonlyMap<string, RunItem>> | undefined;
    const loadRunItems = () => {
      runItems ??= runItemsOf(store, options.run, step.name);
      return runItems;
    };
    const done =
      options.run === undefined ? NO_DIGESTS : await store.outputDigests({ run: options.run, step: step.name });
    const assumed = options.assumeChanged?.[step.name];
    const items = await planStepItems(
      {
        definition,
        step,
        params: run.params,
        store,
        done,
        runItems: loadRunItems,
        invalidated: invalidated.has(step.name),
        ...(marks.has(step.name) && { mark: marks.get(step.name) as string }),
        assumeChanged: assumed,
        latest: loadLatest,
      },
      state,
    );
    const history: readonly Measured[] =
      items.measured.length > 0 ? items.measured : [...(await loadLatest()).values()].map((output) => output.measured);
    const rate = rateOf(step, history);
    const concurrency = defaultConcurrency(step);
    const price = step.kind === 'model' ? options.prices?.[step.model.name] : undefined;
    const alreadyDone =
      step.kind === 'effect' && options.ledger !== undefined
        ? await doneEffects(options.ledger, definition.name, step.name, items.pending)
        : undefined;
    const certainItems = Math.max(0, items.willRun - (alreadyDone ?? 0));
    const pendingItems = Math.max(0, items.willRun + items.mayRun - (alreadyDone ?? 0));
    steps.push({
      step: step.name,
      kind: step.kind,
      ...(step.kind === 'model' && { model: step.model.name }),
      items: items.count,
      cached: items.cached,
      willRun: { items: items.willRun, reasons: items.reasons },
      mayRun: items.mayRun,
      ...(assumed !== undefined && { assumedChanged: assumed }),
      estimated: items.estimated,
      ...(alreadyDone !== undefined && { alreadyDone }),
      concurrency,
      rate,
      cost: costOf(rate, pendingItems, concurrency, price),
      certainCost: costOf(rate, certainItems, concurrency, price),
      notes:
        step.kind === 'review' && step.needsPerson !== undefined && pendingItems > 0
          ? [...items.notes, `a rule lets some of the ${pendingItems} through; a person sees the rest`]
          : items.notes,
    });
    allItems.push({ step: step.name, kind: step.kind, cost: costOf(rate, items.count, concurrency, price) });
  }

  const total = sumCosts(steps);
  const certain = sumCosts(steps.map((step) => ({ step: step.step, kind: step.kind, cost: step.certainCost })));
  const from =
    options.fullFrom ?? steps.find((step) => step.willRun.items > 0)?.step ?? (definition.steps[0]?.name as string);
  const fullSteps = allItems.slice(allItems.findIndex((entry) => entry.step === from));
  const full: FullRerun = { from, steps: fullSteps, total: sumCosts(fullSteps) };

  let deadline: DeadlinePlan | null = null;
  if (options.deadline !== undefined) {
    const hoursLeft = (options.deadline.getTime() - (options.now ?? Date.now)()) / HOUR_MS;
    deadline = {
      at: options.deadline.toISOString(),
      hoursLeft,
      fits: total.hours <= hoursLeft,
      fullFits: full.total.hours <= hoursLeft,
    };
  }
  const budget: BudgetPlan | null =
    options.maxUsd === undefined
      ? null
      : { maxUsd: options.maxUsd, fits: total.usd <= options.maxUsd, fullFits: full.total.usd <= options.maxUsd };
  return {
    run: run.id,
    workflow: definition.name,
    steps,
    total: { ...total, certain: { usd: certain.usd, hours: certain.hours } },
    full,
    deadline,
    budget,
  };
}

/**
 * The exit code a plan calls for: 0 nothing to do, 14 work pending, 15 over the budget or past the
 * deadline — codes of their own, apart from a bug's 1 and a usage error's 2 (docs/cli.md).
 */
export function planExitCode(plan: Plan): number {
  if (plan.steps.every((step) => step.willRun.items === 0 && step.mayRun === 0)) return EXIT.ok;
  if (plan.budget?.fits === false || plan.deadline?.fits === false) return EXIT.planOverLimits;
  return EXIT.planPending;
}

/** Every step an option names must exist; counts and money must be non-negative. */
function checkOptions(definition: WorkflowDefinition, options: PlanOptions): void {
  const names = new Set(definition.steps.map((step) => step.name));
  const known = (what: string, name: string) => {
    if (!names.has(name)) {
      throw new UsageError(`${what} names the step ${JSON.stringify(name)}, which ${definition.name} does not have`);
    }
  };
  for (const name of options.invalidate ?? []) known('invalidate', name);
  for (const [name, count] of Object.entries(options.assumeChanged ?? {})) {
    known('assume-changed', name);
    if (!Number.isInteger(count) || count < 0) {
      throw new UsageError(`assume-changed ${name}=${count}: the count must be a whole number, 0 or more`);
    }
  }
  if (options.fullFrom !== undefined) known('full-from', options.fullFrom);
  if (options.maxUsd !== undefined && !(options.maxUsd >= 0)) {
    throw new UsageError(`max-usd ${options.maxUsd}: must be a number, 0 or more`);
  }
  for (const [model, price] of Object.entries(options.prices ?? {})) {
    if (!(price.inputPerMTok >= 0 && price.outputPerMTok >= 0)) {
      throw new UsageError(`the price of ${model} must be two numbers, 0 or more`);
    }
  }
  if (options.deadline !== undefined && Number.isNaN(options.deadline.getTime())) {
    throw new UsageError('the deadline is not a valid date');
  }
}

/**
 * Providers for validating a definition that will not run: a plan calls no model, so every model
 * step's provider is present as one that refuses to be called.
 */
function planningProviders(definition: WorkflowDefinition): Record<string, ModelProvider> {
  const refuse: ModelProvider = {
    complete: () => Promise.reject(new UsageError('a plan calls no model')),
  };
  const providers: Record<string, ModelProvider> = {};
  for (const step of definition.steps) if (step.kind === 'model') providers[step.model.provider] = refuse;
  return providers;
}
