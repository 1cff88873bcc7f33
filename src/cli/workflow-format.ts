/** How `harmflow workflow …` prints plans, progress and runs: one idea per function, text only. */
import type { RunItem, RunRecord } from '../store/resume-store.js';
import { type CostSum, NEW_RUN, type Plan, type StepPlan } from '../workflows/plan.js';
import type { WorkflowEvent } from '../workflows/run.js';
import type { RunStatus } from '../workflows/run-owner.js';

const money = (usd: number | null): string => (usd === null ? '?' : `$${usd.toFixed(2)}`);
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
 * was interrupted, and what its items are, per step (steps in name order).
 */
export function formatStatus(
  run: RunRecord,
  status: RunStatus,
  resume: string | undefined,
  items: readonly RunItem[],
): string {
  const steps = new Map<string, { done: number; reused: number; failed: number }>();
  for (const item of items) {
    const counts = steps.get(item.step) ?? { done: 0, reused: 0, failed: 0 };
    steps.set(item.step, counts);
    count(counts, item);
  }
  const why = [ownerPhrase(status), run.message].filter((part) => part !== undefined && part !== '');
  const lines = [`run ${run.id} of ${run.workflow}: ${[status.state, ...why].join(' — ')}`];
  if (resume !== undefined) lines.push(`resume it: ${resume}`);
  lines.push(`started ${run.createdAt}, last update ${run.updatedAt}${run.module ? `, from ${run.module}` : ''}`);
  for (const [step, counts] of steps) {
    lines.push(`  ${step}: ${counts.done} done (${counts.reused} reused), ${counts.failed} failed`);
  }
  return lines.join('\n');
}

/** Who drives a running run, or that the process which drove an interrupted one is gone. */
function ownerPhrase(status: RunStatus): string | undefined {
  const { owner } = status;
  if (owner === undefined || (status.state !== 'running' && status.state !== 'interrupted')) return undefined;
  const who = `pid ${owner.pid} on ${owner.host} since ${owner.since}`;
  if (status.state === 'interrupted') return `the process driving it is gone: ${who}`;
  return owner.alive === null ? `driven by ${who} (another machine: not checked from here)` : `driven by ${who}`;
}

function count(counts: { done: number; reused: number; failed: number }, item: RunItem): void {
  if (item.status === 'failed') {
    counts.failed += 1;
    return;
  }
  counts.done += 1;
  if (item.cached) counts.reused += 1;
}
