/**
 * The figures of `harmflow workflow run|resume`'s live progress, from the engine's events and the
 * plan the command made: for the step computing now, its items done of those to compute, items per
 * minute, what this drive has spent so far, and when it will end (ETA). Pure: every figure is taken
 * at a time the caller gives (`at`, ms since the epoch), so tests use a fake clock. How the figures
 * are shown (redrawn on a terminal, periodic lines in a pipe) is workflow-progress-output.ts's.
 *
 * The ETA is the plan's own model (plan.ts, plan-cost.ts costOf), carried on with what this drive
 * measures: the current step's remaining items in rounds of its `concurrency`, each round the seconds
 * one item takes, plus the plan's hours for the steps after it. The seconds per item are the plan's
 * rate (the mean of the step's stored outputs' measured durations, else its estimate) until items of
 * this drive complete, then the mean of their measured durations: the same mean, over today's items,
 * so a provider slower today than the history shows moves the ETA within a round. A review step's
 * hours are left out: a drive takes no time on it (the rule approves items at once, the rest wait
 * for a person and the drive ends). The ETA is unknown (`null`) when a figure it needs is: no rate
 * for the step, or a later step the plan could not put hours on.
 *
 * A step's items to compute are its items less those reused (step.started's `cached`): those it
 * cannot compute because an upstream item failed (`blocked`) are known only when it ends, so a step
 * with blocked items ends short of 100%.
 *
 * Spend is this drive's, over every step so far: each computed or failed item's tokens at its step's
 * model's price (`prices`, by model name). Unknown (`null`) once a model step's item is done without
 * token figures (an item a cluster worker committed) or its model has no price; steps that call no
 * model cost nothing; a failed item's spend counts when its event carries it. Not concurrency-safe, and needs none: the engine emits its events in order on
 * one thread.
 */
import type { Plan, StepPlan } from '../workflows/plan.js';
import type { ModelPrice } from '../workflows/plan-cost.js';
import type { Spent, WorkflowEvent } from '../workflows/run.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** The live figures of the step computing now. */
export interface StepFigures {
  readonly step: string;
  /** Items of this drive computed or failed in the step. */
  readonly done: number;
  /** Of `done`, those that failed. */
  readonly failed: number;
  /** The step's items less those reused. */
  readonly total: number;
  /** `done` per minute of the step's elapsed time; 0 before any time has passed. */
  readonly perMinute: number;
  /** USD this drive has spent so far, over all its steps; null when unknown. */
  readonly usd: number | null;
  /** Milliseconds until the drive ends, by the plan's model; null when unknown. */
  readonly etaMs: number | null;
  /** When these figures were taken (ms since the epoch). */
  readonly at: number;
}

interface Current {
  readonly step: string;
  readonly plan: StepPlan | undefined;
  readonly startedAt: number;
  readonly total: number;
  done: number;
  failed: number;
  /** Items of this drive with a measured duration, and the sum of those durations. */
  timed: number;
  timedMs: number;
}

/**
 * The progress of one drive. Feed it every event in order (`apply`); read the figures at any time
 * (`figures`), undefined while no step computes items (between steps, a review step, one with
 * nothing to compute).
 */
export class DriveProgress {
  readonly #steps: ReadonlyMap<string, { readonly plan: StepPlan; readonly index: number }>;
  readonly #planned: readonly StepPlan[];
  readonly #prices: Readonly<Record<string, ModelPrice>>;
  #current: Current | undefined;
  #usd = 0;
  #usdKnown = true;

  constructor(plan: Pick<Plan, 'steps'>, prices: Readonly<Record<string, ModelPrice>>) {
    this.#planned = plan.steps;
    this.#steps = new Map(plan.steps.map((step, index) => [step.step, { plan: step, index }]));
    this.#prices = prices;
  }

  apply(event: WorkflowEvent, at: number): void {
    switch (event.type) {
      case 'step.started': {
        const plan = this.#steps.get(event.step)?.plan;
        const total = Math.max(0, event.items - event.cached);
        this.#current =
          plan?.kind === 'review' || total === 0
            ? undefined
            : { step: event.step, plan, startedAt: at, total, done: 0, failed: 0, timed: 0, timedMs: 0 };
        return;
      }
      case 'item.done':
        this.#spend(event.step, event.spent, false);
        return;
      case 'item.failed':
        this.#spend(event.step, spentOf(event), true);
        return;
      case 'step.ended':
        if (this.#current?.step === event.step) this.#current = undefined;
        return;
      case 'item.retry':
      case 'run.ended':
        return;
    }
  }

  figures(at: number): StepFigures | undefined {
    const current = this.#current;
    if (current === undefined) return undefined;
    const elapsed = at - current.startedAt;
    return {
      step: current.step,
      done: current.done,
      failed: current.failed,
      total: current.total,
      perMinute: elapsed > 0 ? (current.done * MINUTE_MS) / elapsed : 0,
      usd: this.#usdKnown ? this.#usd : null,
      etaMs: this.#eta(current),
      at,
    };
  }

  /** Counts an item computed (or failed) in this drive and what it spent. */
  #spend(step: string, spent: Spent | undefined, failed: boolean): void {
    const current = this.#current?.step === step ? this.#current : undefined;
    if (current !== undefined) {
      current.done += 1;
      if (failed) current.failed += 1;
      if (spent?.durationMs !== undefined) {
        current.timed += 1;
        current.timedMs += spent.durationMs;
      }
    }
    const planned = this.#steps.get(step)?.plan;
    if (planned?.kind !== 'model') return;
    // A failed item whose spend the event does not carry is counted as nothing spent.
    if (spent === undefined) return;
    const price = planned.model === undefined ? undefined : this.#prices[planned.model];
    if (price === undefined || spent.inputTokens === undefined || spent.outputTokens === undefined) {
      this.#usdKnown = false;
      return;
    }
    this.#usd += (spent.inputTokens * price.inputPerMTok + spent.outputTokens * price.outputPerMTok) / 1_000_000;
  }

  /** The current step's remaining rounds plus the plan's hours for the steps after it (review steps' aside). */
  #eta(current: Current): number | null {
    const plan = current.plan;
    if (plan === undefined) return null;
    const seconds = current.timed > 0 ? current.timedMs / current.timed / 1000 : plan.rate.seconds;
    const remaining = Math.max(0, current.total - current.done);
    let ms = 0;
    if (remaining > 0) {
      if (seconds === null) return null;
      const fixed = current.done === 0 ? plan.rate.fixedSeconds : 0;
      ms = (fixed + Math.ceil(remaining / plan.concurrency) * seconds) * 1000;
    }
    const index = this.#steps.get(current.step)?.index ?? this.#planned.length;
    for (const later of this.#planned.slice(index + 1)) {
      if (later.kind === 'review') continue;
      if (later.cost.hours === null) return null;
      ms += later.cost.hours * HOUR_MS;
    }
    return ms;
  }
}

/** What a failed item spent, when the event says (the field is optional). */
function spentOf(event: Extract<WorkflowEvent, { type: 'item.failed' }>): Spent | undefined {
  return (event as { readonly spent?: Spent }).spent;
}

/** `42 s`, `17 min`, `2 h 05 min`. */
export function formatDuration(ms: number): string {
  if (ms < 59_500) return `${Math.round(ms / 1000)} s`;
  const minutes = Math.round(ms / MINUTE_MS);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** When `at + ms` falls, in UTC: `14:32 UTC`, with the date when it is not `at`'s day. */
export function formatClock(at: number, ms: number): string {
  const end = new Date(at + ms).toISOString();
  const time = end.slice(11, 16);
  return end.slice(0, 10) === new Date(at).toISOString().slice(0, 10)
    ? `${time} UTC`
    : `${end.slice(0, 10)} ${time} UTC`;
}

/** The figures after the step's name, as words: `412/730 done (56%), 18.3/min, $4.12 so far, ETA 17 min (14:32 UTC)`. */
export function formatFiguresText(figures: StepFigures): string {
  const percent = figures.total === 0 ? 100 : Math.floor((figures.done / figures.total) * 100);
  const failed = figures.failed > 0 ? `, ${figures.failed} failed` : '';
  return [
    `${figures.done}/${figures.total} done (${percent}%${failed})`,
    `${figures.perMinute.toFixed(1)}/min`,
    `${figures.usd === null ? '?' : `$${figures.usd.toFixed(2)}`} so far`,
    `ETA ${figures.etaMs === null ? '?' : `${formatDuration(figures.etaMs)} (${formatClock(figures.at, figures.etaMs)})`}`,
  ].join(', ');
}

/** The plain progress line of a pipe: `fact-check: 412/730 done (56%), 18.3/min, $4.12 so far, ETA 17 min (14:32 UTC)`. */
export function formatProgressLine(figures: StepFigures): string {
  return `${figures.step}: ${formatFiguresText(figures)}`;
}

const BAR_WIDTH = 20;

/**
 * The live line of a terminal: the step, a bar, and the figures, cut to `columns` − 1 characters so
 * it never wraps (a wrapped line could not be redrawn in place).
 */
export function formatLiveLine(figures: StepFigures, columns: number): string {
  const filled = figures.total === 0 ? BAR_WIDTH : Math.floor((figures.done / figures.total) * BAR_WIDTH);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`;
  const line = `${figures.step} ${bar} ${formatFiguresText(figures)}`;
  const room = Math.max(1, columns - 1);
  return line.length <= room ? line : `${line.slice(0, Math.max(0, room - 1))}…`;
}
