/** How `harmflow workflow …` prints plans, progress and runs: one idea per function, text only. */
import type { RunItem, RunRecord } from '../store/resume-store.js';
import { type CostSum, NEW_RUN, type Plan, type StepPlan } from '../workflows/plan.js';
import type { WorkflowEvent } from '../workflows/run.js';
import type { RunStatus } from '../workflows/run-owner.js';
import type { PlannedFigures, RunSpendSummary, SpendSummary } from '../workflows/spend.js';
import { alignColumns } from './columns.js';

/** Dollars to the cent; `?` when unknown. */
export const money = (usd: number | null): string => (usd === null ? '?' : `$${usd.toFixed(2)}`);
const hours = (value: number | null): string => (value === null ? '?' : `${value.toFixed(2)} h`);
const tokens = (count: number | null): string => {
  if (count === null) return '?';
  if (count >= 1_000_000) return `${(count / 1_000_000).toFixed(1)}M`;
  if (count >= 1_000) return `${(count / 1_000).toFixed(0)}k`;
  return String(count);
};

/** Hours, with the review's apart when there is any: `8.12 h (4.12 h of work + 4.00 h of review)`. */
function hoursOf(sum: CostSum): string {
  if (sum.reviewHours === 0) return hours(sum.hours);
  return `${hours(sum.hours)} (${hours(sum.hours - sum.reviewHours)} of work + ${hours(sum.reviewHours)} of review)`;
}

function reasonsOf(step: StepPlan): string {
  return Object.entries(step.willRun.reasons)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
}

/** The plan as a table, its totals, the full rerun beside it, the deadline and the budget. */
export function formatPlan(plan: Plan): string {
  const rows = [['step', 'kind', 'items', 'cached', 'will run', 'may run', 'tokens in/out', 'usd', 'hours', 'why']];
  for (const step of plan.steps) {
    rows.push([
      step.step,
      step.kind,
      String(step.items),
      String(step.cached),
      String(step.willRun.items),
      String(step.mayRun),
      step.kind === 'model' ? `${tokens(step.cost.inputTokens)} / ${tokens(step.cost.outputTokens)}` : '-',
      money(step.cost.usd),
      hours(step.cost.hours),
      `${step.kind === 'review' && step.willRun.items > 0 ? 'await review: ' : ''}${reasonsOf(step)}${step.alreadyDone ? `; ${step.alreadyDone} sent already` : ''}${step.estimated ? ' (estimated)' : ''}`,
    ]);
  }
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  const lines = rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  const target = plan.run === NEW_RUN ? `a new run of ${plan.workflow}` : `run ${plan.run} of ${plan.workflow}`;
  lines.unshift(`plan for ${target}`);
  lines.push(
    '',
    `total        ${money(plan.total.usd)}, ${hoursOf(plan.total)} (certain: ${money(plan.total.certain.usd)}, ${hours(plan.total.certain.hours)})`,
    `full rerun   from ${plan.full.from}: ${money(plan.full.total.usd)}, ${hoursOf(plan.full.total)}`,
  );
  const unknown = [...plan.total.unknown.usd, ...plan.total.unknown.hours];
  if (unknown.length > 0) lines.push(`unknown      no price or no estimate for: ${[...new Set(unknown)].join(', ')}`);
  if (plan.deadline) {
    const { at, hoursLeft, fits, fullFits } = plan.deadline;
    lines.push(
      `deadline     ${at}: ${hoursLeft.toFixed(1)} h left — ${fits ? 'fits' : 'does NOT fit'} (full rerun ${fullFits ? 'fits' : 'does not fit'})`,
    );
  }
  if (plan.budget) {
    const { maxUsd, fits, fullFits } = plan.budget;
    lines.push(`budget       ${money(maxUsd)}: ${fits ? 'fits' : 'OVER'} (full rerun ${fullFits ? 'fits' : 'over'})`);
  }
  for (const step of plan.steps) for (const note of step.notes) lines.push(`note         ${step.step}: ${note}`);
  return lines.join('\n');
}

/** One progress line per event worth a line; undefined for the rest. */
export function formatEvent(event: WorkflowEvent): string | undefined {
  switch (event.type) {
    case 'step.started':
      return `${event.step}: ${event.items} item(s), ${event.cached} reused`;
    case 'item.retry':
      return `  retry ${event.step} ${event.item}: ${event.error} (try ${event.tryNumber + 1} in ${(event.delayMs / 1000).toFixed(1)} s)`;
    case 'item.failed':
      return `  failed ${event.step} ${event.item}: ${event.error}`;
    case 'step.ended':
      return `${event.step}: ${event.computed} computed, ${event.cached} reused, ${event.failed} failed, ${event.blocked} blocked`;
    case 'item.done':
    case 'run.ended':
      return undefined;
  }
}

/**
 * A run as it is now (`status`: runStatus's, its owner checked), the command that resumes it when it
 * was interrupted, and per step — in the order of its latest drive, then any other step it has items
 * of — its items (done, reused, failed) and what it spent over every drive (spend.ts) beside what
 * the plans estimated: the latest drive's plan, and all drives' plans added up when there were
 * several. A total row, then why each `?` is unknown.
 */
export function formatStatus(
  run: RunRecord,
  status: RunStatus,
  resume: string | undefined,
  items: readonly RunItem[],
  spend: RunSpendSummary,
): string {
  const steps = new Map<string, ItemCounts>();
  for (const { step } of spend.steps) steps.set(step, { done: 0, reused: 0, failed: 0 });
  for (const item of items) {
    const counts = steps.get(item.step) ?? { done: 0, reused: 0, failed: 0 };
    steps.set(item.step, counts);
    count(counts, item);
  }
  const why = [ownerPhrase(status), run.message].filter((part) => part !== undefined && part !== '');
  const lines = [`run ${run.id} of ${run.workflow}: ${[status.state, ...why].join(' — ')}`];
  if (resume !== undefined) lines.push(`resume it: ${resume}`);
  lines.push(`started ${run.createdAt}, last update ${run.updatedAt}${run.module ? `, from ${run.module}` : ''}`);
  if (steps.size === 0) return lines.join('\n');

  const several = spend.drives > 1;
  const planned = (summary: SpendSummary | undefined, figure: (plan: PlannedFigures) => string): string => {
    const { latest, total } = summary?.planned ?? { latest: null, total: null };
    const shown = (plan: PlannedFigures | null) => (plan === null ? '-' : figure(plan));
    return several ? `${shown(latest)} / ${shown(total)}` : shown(latest);
  };
  /** A row: the item counts, then what `summary` spent (`-` for a step with no spend recorded) and planned. */
  const row = (label: string, counts: ItemCounts, summary: SpendSummary | undefined, model: boolean): string[] => {
    const figures = summary?.spent;
    return [
      label,
      String(counts.done),
      String(counts.reused),
      String(counts.failed),
      figures === undefined ? '-' : String(figures.items),
      figures === undefined ? '-' : String(figures.tries),
      summary === undefined || !model
        ? '-'
        : `${atLeast(summary, 'inputTokens', tokens)} / ${atLeast(summary, 'outputTokens', tokens)}`,
      summary === undefined ? '-' : atLeast(summary, 'usd', money),
      planned(summary, (plan) => money(plan.usd)),
      figures === undefined ? '-' : hours(figures.hours),
      planned(summary, (plan) => hours(plan.hours)),
    ];
  };
  const header = ['STEP', 'DONE', 'REUSED', 'FAILED', 'COMPUTED', 'TRIES', 'TOKENS IN / OUT', 'SPENT'];
  header.push(several ? 'PLANNED (LAST / ALL)' : 'PLANNED', 'HOURS', several ? 'PLANNED H (LAST / ALL)' : 'PLANNED H');
  const rows = [header];
  const bySpend = new Map(spend.steps.map((summary) => [summary.step, summary]));
  const all: ItemCounts = { done: 0, reused: 0, failed: 0 };
  for (const [step, counts] of steps) {
    const summary = bySpend.get(step);
    rows.push(row(step, counts, summary, summary?.model !== undefined));
    all.done += counts.done;
    all.reused += counts.reused;
    all.failed += counts.failed;
  }
  rows.push(
    row(
      'TOTAL',
      all,
      spend.total,
      spend.steps.some((summary) => summary.model !== undefined),
    ),
  );
  lines.push('', ...alignColumns(rows), '');
  if (spend.drives === 0) {
    lines.push(`? spent: ${spend.total.unknown.join('; ')}`);
    return lines.join('\n');
  }
  const resumes = spend.drives - 1;
  const drives =
    resumes === 0 ? '1 drive' : `${spend.drives} drives (the start and ${resumes} resume${resumes === 1 ? '' : 's'})`;
  lines.push(`spent in ${drives}: every try of every item computed, failed or retried; hours: each step's wall clock`);
  for (const summary of spend.steps) {
    if (summary.unknown.length === 0) continue;
    const { known } = summary;
    const reported =
      summary.model === undefined
        ? `${hours(known.itemHours)} of item time`
        : `${money(known.usd)}, ${tokens(known.inputTokens)} / ${tokens(known.outputTokens)} tokens`;
    lines.push(`? ${summary.step}: ${summary.unknown.join('; ')} (reported: ${reported})`);
  }
  return lines.join('\n');
}

/**
 * A spent figure: as it is when known; when some of it is unknown (`?` in the summary), what was
 * reported marked as a floor — `≥ $28.90` — since the unknown part only adds; `?` when nothing was.
 */
export function atLeast(
  summary: SpendSummary,
  figure: 'inputTokens' | 'outputTokens' | 'usd',
  format: (value: number) => string,
): string {
  const value = summary.spent[figure];
  if (value !== null) return format(value);
  const known = summary.known[figure];
  return known > 0 ? `≥ ${format(known)}` : '?';
}

/** Who drives a running run, or that the process which drove an interrupted one is gone. */
function ownerPhrase(status: RunStatus): string | undefined {
  const { owner } = status;
  if (owner === undefined || (status.state !== 'running' && status.state !== 'interrupted')) return undefined;
  const who = `pid ${owner.pid} on ${owner.host} since ${owner.since}`;
  if (status.state === 'interrupted') return `the process driving it is gone: ${who}`;
  return owner.alive === null ? `driven by ${who} (another machine: not checked from here)` : `driven by ${who}`;
}

interface ItemCounts {
  done: number;
  reused: number;
  failed: number;
}

function count(counts: ItemCounts, item: RunItem): void {
  if (item.status === 'failed') {
    counts.failed += 1;
    return;
  }
  counts.done += 1;
  if (item.cached) counts.reused += 1;
}
