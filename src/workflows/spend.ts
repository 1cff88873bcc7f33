/**
 * A run's actual spend, beside what its plans estimated. The engine (run.ts) starts each drive of a
 * run — its start, each resume — with `driveStepsOf` (every step, its model's price in the drive and
 * the plan's estimate: `planEstimate` makes that from a Plan) and adds each computed item's tries to
 * its step in the drive (`spendDelta`), committed with the item. `summarizeSpend` adds a run's drives
 * up per step and in total for `harmflow workflow status` and `ls`.
 *
 * What counts: every try of every item a drive computed — done, failed (a defect: a model answer that
 * does not match the schema used its tokens), retried, or out of tries — never a reused output. A
 * figure nobody reported is unknown (`null`, with the reason in `unknown`), never zero: tokens of a try
 * whose provider reported none (a call that failed before it answered), dollars of a model the drive
 * had no price for, anything of an item computed by an executor that reported nothing, the dollars of
 * an agent step (its executions' model cost is recorded with them). The known part
 * of such a figure is kept apart (`known`). Hours are the steps' wall-clock time in each drive (what a
 * plan's hours estimate), and item-hours the tries' durations summed. Pure functions.
 */
import type { DriveStep, PlannedSpend, SpendDelta, StepSpend } from '../store/resume-store.js';
import type { WorkflowDefinition } from './define.js';
import type { Plan } from './plan.js';
import type { ModelPrice } from './plan-cost.js';
import type { Spent } from './run.js';

/**
 * What a drive's plan estimated, per step by name: the summary the engine stores with the drive
 * (`WorkflowOptions.plan`), not the whole Plan.
 */
export interface DrivePlan {
  readonly steps: Readonly<Record<string, PlannedSpend>>;
}

/** The estimate of each step of `plan`: the items that will or may run, and what they cost (Plan `cost`). */
export function planEstimate(plan: Plan): DrivePlan {
  const steps: Record<string, PlannedSpend> = {};
  for (const { step, cost } of plan.steps) {
    steps[step] = {
      items: cost.items,
      inputTokens: cost.inputTokens,
      outputTokens: cost.outputTokens,
      usd: cost.usd,
      hours: cost.hours,
    };
  }
  return { steps };
}

/** The steps a drive of `definition` starts with: each step's model, its price in `prices`, its estimate in `plan`. */
export function driveStepsOf(
  definition: WorkflowDefinition,
  prices: Readonly<Record<string, ModelPrice>> | undefined,
  plan: DrivePlan | undefined,
): DriveStep[] {
  return definition.steps.map((step) => {
    const model = step.kind === 'model' ? step.model.name : undefined;
    const price = model === undefined ? undefined : prices?.[model];
    const planned = plan?.steps[step.name];
    return {
      step: step.name,
      kind: step.kind,
      ...(model !== undefined && { model }),
      ...(price !== undefined && { price: { inputPerMTok: price.inputPerMTok, outputPerMTok: price.outputPerMTok } }),
      ...(planned !== undefined && { planned }),
    };
  });
}

/**
 * The spend of one item to add to its step in drive `drive`: its tries as `spent` tells them, or —
 * when nothing was reported (`spent` undefined) — the item counted as unreported.
 */
export function spendDelta(
  place: { readonly run: string; readonly drive: number; readonly step: string },
  spent: Spent | undefined,
  how: { readonly tries: number; readonly failed: boolean },
): SpendDelta {
  const failed = how.failed ? 1 : 0;
  // Built field by field, no spreads: one of these is made for every item computed.
  if (spent === undefined) {
    return {
      run: place.run,
      drive: place.drive,
      step: place.step,
      items: 1,
      failed,
      tries: how.tries,
      unreportedItems: 1,
    };
  }
  return {
    run: place.run,
    drive: place.drive,
    step: place.step,
    items: 1,
    failed,
    tries: spent.tries,
    itemMs: spent.durationMs ?? 0,
    inputTokens: spent.inputTokens ?? 0,
    outputTokens: spent.outputTokens ?? 0,
    // A measured item without a duration (none do today) is as unreported as one without anything.
    unreportedItems: spent.durationMs === undefined ? 1 : 0,
    unreportedTokens: spent.unreportedTokens ?? 0,
  };
}

/** Spent figures; `null`: unknown, as the summary's `unknown` says why. */
export interface SpendFigures {
  /** Items computed (at least one try), over the drives: an item computed in two drives counts twice. */
  readonly items: number;
  /** Of those, failed with a defect. */
  readonly failed: number;
  readonly tries: number;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly usd: number | null;
  /** The tries' durations, summed. */
  readonly itemHours: number | null;
  /** Wall-clock hours the steps took in the drives. */
  readonly hours: number;
}

/** Planned figures summed over drives; `null` where a plan could not tell. */
export type PlannedFigures = PlannedSpend;

/** A step's spend over a run's drives, or the run's total. */
export interface SpendSummary {
  readonly spent: SpendFigures;
  /** What was reported, summed, where a figure of `spent` is unknown. */
  readonly known: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly usd: number;
    readonly itemHours: number;
  };
  /** Why a figure is unknown, one phrase a reason. */
  readonly unknown: readonly string[];
  /** The plan of the run's latest drive (null: it had none), and the plans of all its drives (null: none had one). */
  readonly planned: { readonly latest: PlannedFigures | null; readonly total: PlannedFigures | null };
}

export interface StepSpendSummary extends SpendSummary {
  readonly step: string;
  /** The model of a model step (in the latest drive that ran it). */
  readonly model?: string;
}

export interface RunSpendSummary {
  /** The drives recorded: 0 for a run from before spend was recorded (its spend is unknown). */
  readonly drives: number;
  readonly steps: readonly StepSpendSummary[];
  readonly total: SpendSummary;
}

const HOUR_MS = 3_600_000;

/** The spend of each of several runs: listSpend's rows of `runs`, summarized per run (none: a run's total is unknown). */
export function summarizeRuns(runs: readonly string[], rows: readonly StepSpend[]): Map<string, RunSpendSummary> {
  const byRun = new Map<string, StepSpend[]>(runs.map((run) => [run, []]));
  for (const row of rows) byRun.get(row.run)?.push(row);
  return new Map([...byRun].map(([run, ofRun]) => [run, summarizeSpend(ofRun)]));
}

/** A run's spend rows (listSpend, one run's), added up per step — in the latest drive's order — and in total. */
export function summarizeSpend(rows: readonly StepSpend[]): RunSpendSummary {
  const drives = rows.reduce((last, row) => Math.max(last, row.drive), 0);
  const latestFirst = [...rows].sort((a, b) => b.drive - a.drive || a.position - b.position);
  const byStep = new Map<string, StepSpend[]>();
  for (const row of latestFirst) {
    const list = byStep.get(row.step) ?? [];
    list.push(row);
    byStep.set(row.step, list);
  }
  const steps = [...byStep].map(([step, list]): StepSpendSummary => {
    const model = list.find((row) => row.model !== undefined)?.model;
    return { step, ...(model !== undefined && { model }), ...summarize(list, drives) };
  });
  if (rows.length === 0) {
    const none = summarize([], 0);
    const unknownFigures = { inputTokens: null, outputTokens: null, usd: null, itemHours: null };
    const unknown = ['no spend recorded: the run is from a HarmFlow that did not record it'];
    return { drives, steps, total: { ...none, spent: { ...none.spent, ...unknownFigures }, unknown } };
  }
  const total = summarize(rows, drives);
  return { drives, steps, total };
}

/** The spend of `rows` (one step's, or a whole run's) over the drives, the latest being `latest`. */
function summarize(rows: readonly StepSpend[], latest: number): SpendSummary {
  let items = 0;
  let failed = 0;
  let tries = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let usd = 0;
  let itemMs = 0;
  let wallMs = 0;
  let unreportedTokens = 0;
  let unreportedItems = 0;
  const unpriced = new Map<string, number[]>();
  let agents = 0;
  for (const row of rows) {
    items += row.items;
    failed += row.failed;
    tries += row.tries;
    itemMs += row.itemMs;
    wallMs += row.wallMs;
    unreportedItems += row.unreportedItems;
    if (row.kind === 'agent') agents += row.items;
    if (row.model === undefined) continue;
    inputTokens += row.inputTokens;
    outputTokens += row.outputTokens;
    unreportedTokens += row.unreportedTokens;
    if (row.price !== undefined) {
      usd += (row.inputTokens * row.price.inputPerMTok + row.outputTokens * row.price.outputPerMTok) / 1_000_000;
    } else if (row.items > 0) {
      unpriced.set(row.model, [...(unpriced.get(row.model) ?? []), row.drive]);
    }
  }
  const unknown: string[] = [];
  for (const [model, inDrives] of unpriced) {
    unknown.push(`no price for model ${model} (drive ${[...new Set(inDrives)].sort((a, b) => a - b).join(', ')})`);
  }
  if (unreportedTokens > 0) {
    unknown.push(`${unreportedTokens} tr${unreportedTokens === 1 ? 'y' : 'ies'} of a model reported no tokens`);
  }
  if (unreportedItems > 0) {
    unknown.push(`${unreportedItems} item(s) computed by an executor that reported nothing of what they spent`);
  }
  if (agents > 0) {
    unknown.push(`${agents} agent item(s): their executions' model cost is theirs (\`harmflow ls\`), not counted here`);
  }
  const tokensKnown = unreportedTokens === 0 && unreportedItems === 0;
  return {
    spent: {
      items,
      failed,
      tries,
      inputTokens: tokensKnown ? inputTokens : null,
      outputTokens: tokensKnown ? outputTokens : null,
      usd: tokensKnown && unpriced.size === 0 && agents === 0 ? usd : null,
      itemHours: unreportedItems === 0 ? itemMs / HOUR_MS : null,
      hours: wallMs / HOUR_MS,
    },
    known: { inputTokens, outputTokens, usd, itemHours: itemMs / HOUR_MS },
    unknown,
    planned: {
      latest: sumPlanned(rows.filter((row) => row.drive === latest)),
      total: sumPlanned(rows),
    },
  };
}

/** The planned figures of the rows of drives that had a plan, summed; null when none had one. */
function sumPlanned(rows: readonly StepSpend[]): PlannedFigures | null {
  const planned = rows.flatMap((row) => (row.planned === undefined ? [] : [row.planned]));
  if (planned.length === 0) return null;
  const add = (figure: keyof PlannedSpend): number | null =>
    planned.reduce<number | null>(
      (sum, each) => (sum === null || each[figure] === null ? null : sum + each[figure]),
      0,
    );
  return {
    items: planned.reduce((sum, each) => sum + each.items, 0),
    inputTokens: add('inputTokens'),
    outputTokens: add('outputTokens'),
    usd: add('usd'),
    hours: add('hours'),
  };
}
