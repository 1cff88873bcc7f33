/**
 * What the Workflows screen shows of a workflow run, as pure functions of `/api/workflows`'s answers:
 * a row's cells, the selected run's line under the table, the header's count of the runs that want
 * someone (waiting for a review, or interrupted: its process is gone), the filter, and an opened
 * run's text — its facts, its steps' progress, and where to review it. The Workbench's Workflows
 * columns that fit 80 columns (src/web/dom/workflows.ts): id, workflow, state, when it started, and
 * why it stopped or what it waits for, in the Workbench's words (src/web/workflow-records.ts).
 *
 * Text from the service (a run's message, its parameters) is cleaned of control sequences before it
 * is shown (detail/lines.ts), and the Workbench's review is only pointed to: the terminal shows a run,
 * it does not decide on it.
 */
import type { WorkflowRun, WorkflowRunWithSteps } from '../cli/client.js';
import { runLine, runWhy, stepPhrase } from '../web/workflow-records.js';
import { BLANK, fitLine, hanging, type Line, toned } from './detail/lines.js';
import { formatAge, SHOWN_ID_LENGTH } from './rows.js';

/** One listed workflow run, as the Workflows screen holds it. */
export type ListedRun = WorkflowRun;

/** The text of one run row's cells. */
export interface RunCells {
  readonly id: string;
  readonly workflow: string;
  readonly state: string;
  readonly started: string;
  readonly why: string;
}

/** The states that want someone: a review to make, or a run whose process is gone to resume. */
export const STANDOUT_STATES: readonly string[] = ['waiting', 'interrupted'];

export function runCellsOf(run: ListedRun, now: number): RunCells {
  return {
    id: run.id.slice(0, SHOWN_ID_LENGTH),
    workflow: fitLine(run.workflow, Number.POSITIVE_INFINITY),
    state: run.state,
    started: `${formatAge(now - Date.parse(run.createdAt))} ago`,
    why: fitLine(runWhy(run), Number.POSITIVE_INFINITY) || '–',
  };
}

/** The selected run's whole id and its line (state, why), under the table: the id the CLI's commands take. */
export function selectedRunLine(run: ListedRun, width: number): string {
  return fitLine(`${run.id}  ${runLine(run)}`, width);
}

/** How many of `runs` want someone, by state (`2 waiting · 1 interrupted`); `''` when none does. */
export function standoutCount(runs: readonly ListedRun[]): string {
  return STANDOUT_STATES.map((state) => [state, runs.filter((run) => run.state === state).length] as const)
    .filter(([, count]) => count > 0)
    .map(([state, count]) => `${count} ${state}`)
    .join(' · ');
}

/**
 * True when `needle` is empty, part of the workflow's name or of why the run stopped, the start of
 * its id, or the start of its state (case ignored): `wait` finds the runs waiting for a review.
 */
export function matchesRunFilter(run: ListedRun, needle: string): boolean {
  const wanted = needle.trim().toLowerCase();
  if (wanted === '') return true;
  return (
    run.workflow.toLowerCase().includes(wanted) ||
    run.id.toLowerCase().startsWith(wanted) ||
    run.state.startsWith(wanted) ||
    runWhy(run).toLowerCase().includes(wanted)
  );
}

/** Where the run is reviewed: its page in the Workbench of the service at `url`. */
export function reviewUrl(url: string, id: string): string {
  return `${url}/workflows/${id}`;
}

/**
 * An opened run as lines of at most `width` columns: its state and why, when it started and was last
 * updated, its file, its driver, its parameters; its steps' progress (`undefined` while the first
 * answer is on its way, an Error when it failed); and where to review it.
 */
export function runViewLines(
  run: ListedRun,
  steps: WorkflowRunWithSteps['steps'] | Error | undefined,
  url: string,
  width: number,
  now: number,
): Line[] {
  const fact = (label: string, text: string, tone?: Line['tone']) => hanging(label.padEnd(11), text, width, tone);
  const owner = run.owner;
  const lines: Line[] = [
    ...fact('State', runLine(run), STANDOUT_STATES.includes(run.state) ? 'warn' : undefined),
    ...fact('Started', `${when(run.createdAt)} (${formatAge(now - Date.parse(run.createdAt))} ago)`),
    ...fact('Updated', `${when(run.updatedAt)} (${formatAge(now - Date.parse(run.updatedAt))} ago)`),
    ...(run.module === undefined ? [] : fact('File', run.module)),
    ...(owner === undefined
      ? []
      : fact(
          'Driven by',
          `pid ${owner.pid} on ${owner.host} since ${owner.since}${owner.alive === false ? ' (gone)' : owner.alive === null ? ' (another machine: not checked)' : ''}`,
        )),
    ...fact('Params', Object.keys(run.params).length === 0 ? '–' : JSON.stringify(run.params)),
    BLANK,
    toned('Steps', 'heading'),
  ];
  if (steps === undefined) lines.push({ text: '  Loading…' });
  else if (steps instanceof Error)
    lines.push(...hanging('  ', `Cannot read its steps: ${steps.message}`, width, 'error'));
  else if (steps.length === 0) lines.push({ text: '  No item computed yet.' });
  else
    for (const step of steps)
      lines.push(...hanging('  ', stepPhrase(step), width, step.failed > 0 ? 'warn' : undefined));
  lines.push(
    BLANK,
    toned('Review it in the Workbench', 'heading'),
    ...hanging('  ', reviewUrl(url, run.id), width),
    toned('or on the command line', 'heading'),
    ...hanging('  ', `harmflow workflow review ${run.id}`, width),
  );
  return lines;
}

/** An ISO time as the API gives it (UTC), to the second: `2026-12-03 09:27:18 UTC`. */
function when(iso: string): string {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : iso;
}
