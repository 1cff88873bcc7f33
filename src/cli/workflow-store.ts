/**
 * What every `harmflow workflow …` command opens: the state directory's resume store, the effects
 * ledger when the workflow has effect steps, a run by its id, and the workflow file a run came from.
 * Each opener closes what it opened when the work is done.
 */
import { mkdirSync } from 'node:fs';
import { NotFoundError, UsageError } from '../core/errors.js';
import { harmflowHome } from '../core/home.js';
import type { EffectLedger } from '../store/effect-ledger.js';
import type { ResumeStore, RunRecord } from '../store/resume-store.js';
import { openSqliteEffectLedger } from '../store/sqlite/effect-ledger.js';
import { openSqliteResumeStore } from '../store/sqlite/resume-store.js';
import type { AgentContext } from '../workflows/agent-item.js';
import { loadWorkflowModule, type WorkflowModule } from '../workflows/module.js';
import { openHome } from './context-home.js';

/** Runs `work` with the resume store of HARMFLOW_HOME (or `home`) open. */
export async function withStore(home: string | undefined, work: (store: ResumeStore) => Promise<void>): Promise<void> {
  const paths = harmflowHome(home);
  mkdirSync(paths.root, { recursive: true });
  const store = openSqliteResumeStore(paths.database);
  try {
    await work(store);
  } finally {
    await store.close();
  }
}

/** What a workflow's steps need open besides the resume store: the effects ledger, the executions store. */
export interface StepNeeds {
  readonly ledger?: EffectLedger;
  readonly agents?: AgentContext;
}

/**
 * Runs `work` with what the workflow's steps need open: the effects ledger when it has effect steps
 * (a ledger holds a lock while it is open: it is closed only after every effect it started has
 * finished), the executions' store when it has agent steps (their executions are listed by
 * `harmflow ls` like any other).
 */
export async function withStepNeeds<T>(
  home: string | undefined,
  module: WorkflowModule,
  work: (needs: StepNeeds) => Promise<T>,
): Promise<T> {
  const kinds = new Set(module.workflow.steps.map((step) => step.kind));
  const paths = harmflowHome(home);
  const ledger = kinds.has('effect') ? openSqliteEffectLedger(paths.database) : undefined;
  const executions = kinds.has('agent') ? openHome(home) : undefined;
  try {
    return await work({
      ...(ledger !== undefined && { ledger }),
      ...(executions !== undefined && { agents: { home: executions.home, store: executions.store } }),
    });
  } finally {
    await ledger?.close();
    await executions?.store.close();
  }
}

/** The run `id`, or NotFoundError. */
export async function getRun(store: ResumeStore, id: string): Promise<RunRecord> {
  const run = await store.getRun(id);
  if (run === undefined) throw new NotFoundError(`no workflow run ${id} in this HARMFLOW_HOME`);
  return run;
}

/** The workflow file of a run: the one given, else the one it was started from. */
export async function moduleOf(store: ResumeStore, id: string, file: string | undefined): Promise<WorkflowModule> {
  const run = await getRun(store, id);
  const path = file ?? run.module;
  if (path === undefined) throw new UsageError(`run ${id} does not say which workflow file it came from: pass --file`);
  return loadWorkflowModule(path);
}
