/**
 * `/api/workflows`'s answers as the Workbench reads them (docs/api.md): a run with the state it is
 * shown in, its items per step, and its review — the items waiting, each as a person reads it, and
 * the decisions made. The service builds them from its ResumeStore; the browser takes the shapes as
 * given, reading optional fields as optional. Plain data: no DOM, no Node.
 */

/**
 * What a run or a step spent over the run's drives (workflows/spend.ts's SpendSummary): a figure is
 * `null` when part of it is unknown, `known` holding what was reported; `planned` what the plans
 * estimated (the latest drive's, and all drives' added up; `null`: no plan).
 */
export interface Spend {
  readonly spent: { readonly usd: number | null; readonly hours: number; readonly tries: number };
  readonly known: { readonly usd: number };
  readonly unknown: readonly string[];
  readonly planned: {
    readonly latest: { readonly usd: number | null } | null;
    readonly total: { readonly usd: number | null } | null;
  };
}

export interface RunRow {
  readonly id: string;
  readonly workflow: string;
  /** As shown: a `running` run whose process is gone is `interrupted`. */
  readonly state: string;
  readonly message?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly owner?: { readonly pid: number; readonly host: string; readonly since: string };
  /** In the list: what the run spent in all. */
  readonly spend?: Spend;
}

export interface StepCounts {
  readonly step: string;
  readonly done: number;
  readonly reused: number;
  readonly failed: number;
  /** What the step spent, when any drive computed it. */
  readonly spend?: Spend;
}

export interface WaitingItem {
  readonly step: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly why: string;
  readonly because?: string;
  readonly diff: readonly string[];
  readonly against?: string;
}

export interface Decided {
  readonly step: string;
  readonly key: string;
  readonly at: string;
}

export interface RunReview {
  readonly run: RunRow;
  readonly waiting: readonly WaitingItem[];
  /** Approved by a person in this run (not by the step's rule). */
  readonly approved: readonly (Decided & { readonly by: string })[];
  /** Rejected: each waits until a fix changes its inputs. `error` says by whom and why. */
  readonly rejected: readonly (Decided & { readonly error: string })[];
}

/**
 * Why the run stopped or what it waits for, without its state: the process driving it (or, for an
 * `interrupted` run, that this process is gone), then its message; `''` when there is nothing to say.
 */
export function runWhy(run: RunRow): string {
  const parts: string[] = [];
  if (run.state === 'running' && run.owner) parts.push(`driven by pid ${run.owner.pid} on ${run.owner.host}`);
  if (run.state === 'interrupted' && run.owner) {
    parts.push(`the process driving it is gone (pid ${run.owner.pid} on ${run.owner.host})`);
  }
  if (run.message) parts.push(run.message);
  return parts.join(' — ');
}

/** What the run's line says: its state, and why it stopped or what it waits for. */
export function runLine(run: RunRow): string {
  const why = runWhy(run);
  return why === '' ? run.state : `${run.state} — ${why}`;
}

/** A step's counts as one phrase: `412 done (1,270 reused), 3 failed`. */
export function stepPhrase(step: StepCounts): string {
  const reused = step.reused > 0 ? ` (${step.reused.toLocaleString('en')} reused)` : '';
  const failed = step.failed > 0 ? `, ${step.failed.toLocaleString('en')} failed` : '';
  return `${step.step}: ${step.done.toLocaleString('en')} done${reused}${failed}`;
}

/**
 * Dollars spent, as `harmflow workflow status` writes them: `$12.40`; `≥ $12.40` when part of it is
 * unknown (what was reported, a floor); `?` when nothing was; `–` when nothing is recorded.
 */
export function spentUsd(spend: Spend | undefined): string {
  if (spend === undefined) return '–';
  if (spend.spent.usd !== null) return `$${spend.spent.usd.toFixed(2)}`;
  return spend.known.usd > 0 ? `≥ $${spend.known.usd.toFixed(2)}` : '?';
}

/** Spent beside planned: `$72.00 of $72.00 planned`, the plans of all drives added up. */
export function spentAgainstPlan(spend: Spend | undefined): string {
  const planned = spend?.planned.total?.usd;
  return planned === undefined || planned === null
    ? spentUsd(spend)
    : `${spentUsd(spend)} of $${planned.toFixed(2)} planned`;
}
