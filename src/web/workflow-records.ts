/**
 * `/api/workflows`'s answers as the Workbench reads them (docs/api.md): a run with the state it is
 * shown in, its items per step, and its review — the items waiting, each as a person reads it, and
 * the decisions made. The service builds them from its ResumeStore; the browser takes the shapes as
 * given, reading optional fields as optional. Plain data: no DOM, no Node.
 */

export interface RunRow {
  readonly id: string;
  readonly workflow: string;
  /** As shown: a `running` run whose process is gone is `interrupted`. */
  readonly state: string;
  readonly message?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly owner?: { readonly pid: number; readonly host: string; readonly since: string };
}

export interface StepCounts {
  readonly step: string;
  readonly done: number;
  readonly reused: number;
  readonly failed: number;
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
