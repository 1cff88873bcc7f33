/**
 * `harmflow workflow run|resume|status|plan` — resumable workflows from the command line. A workflow
 * file is an ES module exporting `{ workflow, providers?, prices? }` (src/workflows/module.ts); runs,
 * outputs and items live in the state directory's database. `run` and `resume` plan first and refuse
 * to start past `--max-usd` or the deadline without `--yes`. Exit codes: `run`/`resume` 0 when the
 * run succeeded, 10 when it failed or crashed (resumable); `plan` 0 nothing to do, 1 work pending,
 * 2 over budget or past the deadline.
 */
import { mkdirSync } from 'node:fs';
import type { Command } from 'commander';
import { EXIT, NotFoundError, UsageError } from '../core/errors.js';
import { harmflowHome } from '../core/home.js';
import type { EffectLedger } from '../store/effect-ledger.js';
import type { Json, ResumeStore, RunRecord } from '../store/resume-store.js';
import { openSqliteEffectLedger } from '../store/sqlite/effect-ledger.js';
import { openSqliteResumeStore } from '../store/sqlite/resume-store.js';
import { loadWorkflowModule, type WorkflowModule } from '../workflows/module.js';
import { type Plan, planExitCode, planResume } from '../workflows/plan.js';
import { resumeRun, startRun } from '../workflows/run.js';
import { formatEvent, formatPlan, formatStatus } from './workflow-format.js';

interface Common {
  home?: string;
  json?: boolean;
}
interface Limits {
  deadline?: string;
  maxUsd?: string;
  yes?: boolean;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function registerWorkflow(program: Command): void {
  const workflow = program.command('workflow').description('resumable multi-step workflows: run, resume, plan, status');

  workflow
    .command('run <file>')
    .description('start a run of the workflow file (plans it first)')
    .option('--param <name=value>', 'a run parameter (a JSON value, else a string); repeatable', collect)
    .option('--deadline <iso>', 'refuse to start when the plan does not fit before this time (without --yes)')
    .option('--max-usd <n>', 'refuse to start when the plan costs more (without --yes)')
    .option('--yes', 'start even past the deadline or the budget')
    .option('--json', 'print the plan and the result as JSON')
    .option('--home <dir>', 'state directory')
    .action(async (file: string, options: Common & Limits & { param?: string[] }) => {
      const module = await loadWorkflowModule(file);
      const params = parseParams(options.param ?? []);
      await withStore(options.home, async (store) => {
        const plan = await planResume(module.workflow, { store, params, ...limits(options), prices: module.prices });
        gate(plan, options);
        const result = await withLedger(options.home, module, (ledger) =>
          startRun(module.workflow, {
            store,
            params,
            module: module.path,
            providers: module.providers,
            ...(ledger !== undefined && { ledger }),
            ...progress(options),
          }),
        );
        report(result.run, options);
      });
    });

  workflow
    .command('resume <run>')
    .description('carry a run on with its workflow file (as it is now): reuses every stored output it can')
    .option('--file <file>', 'the workflow file (default: the one the run was started from)')
    .option('--deadline <iso>', 'refuse to start when the plan does not fit before this time (without --yes)')
    .option('--max-usd <n>', 'refuse to start when the plan costs more (without --yes)')
    .option('--yes', 'start even past the deadline or the budget')
    .option('--json', 'print the plan and the result as JSON')
    .option('--home <dir>', 'state directory')
    .action(async (id: string, options: Common & Limits & { file?: string }) => {
      await withStore(options.home, async (store) => {
        const module = await moduleOf(store, id, options.file);
        const plan = await planResume(module.workflow, { store, run: id, ...limits(options), prices: module.prices });
        gate(plan, options);
        const result = await withLedger(options.home, module, (ledger) =>
          resumeRun(module.workflow, id, {
            store,
            providers: module.providers,
            ...(ledger !== undefined && { ledger }),
            ...progress(options),
          }),
        );
        report(result.run, options);
      });
    });

  workflow
    .command('plan <run>')
    .description('what resuming the run would compute, cost and take (runs nothing)')
    .option('--file <file>', 'the workflow file (default: the one the run was started from)')
    .option('--invalidate <step>', 'treat every item of the step as changed; repeatable', collect)
    .option('--assume-changed <step=n>', "assume n of the step's recomputed outputs change; repeatable", collect)
    .option('--full-from <step>', 'the step the full rerun compared with starts at')
    .option('--deadline <iso>', 'the deadline to plan against')
    .option('--max-usd <n>', 'the budget to plan against')
    .option('--json', 'print the plan as JSON')
    .option('--home <dir>', 'state directory')
    .action(
      async (
        id: string,
        options: Common &
          Limits & { file?: string; invalidate?: string[]; assumeChanged?: string[]; fullFrom?: string },
      ) => {
        await withStore(options.home, async (store) => {
          const module = await moduleOf(store, id, options.file);
          const plan = await planResume(module.workflow, {
            store,
            run: id,
            prices: module.prices,
            ...(options.invalidate && { invalidate: options.invalidate }),
            ...(options.assumeChanged && { assumeChanged: parseAssumed(options.assumeChanged) }),
            ...(options.fullFrom !== undefined && { fullFrom: options.fullFrom }),
            ...limits(options),
          });
          process.stdout.write(`${options.json ? JSON.stringify(plan, null, 2) : formatPlan(plan)}\n`);
          process.exitCode = planExitCode(plan);
        });
      },
    );

  workflow
    .command('status <run>')
    .description('a run: its state, why it stopped, and its items per step')
    .option('--json', 'print the run and its items as JSON')
    .option('--home <dir>', 'state directory')
    .action(async (id: string, options: Common) => {
      await withStore(options.home, async (store) => {
        const run = await getRun(store, id);
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ run, items: await store.listRunItems(id) }, null, 2)}\n`);
        } else {
          process.stdout.write(`${await formatStatus(run, store)}\n`);
        }
      });
    });
}

async function withStore(home: string | undefined, work: (store: ResumeStore) => Promise<void>): Promise<void> {
  const paths = harmflowHome(home);
  mkdirSync(paths.root, { recursive: true });
  const store = openSqliteResumeStore(paths.database);
  try {
    await work(store);
  } finally {
    await store.close();
  }
}

/**
 * Runs `work` with the effects ledger open when the workflow has effect steps (a ledger holds a lock
 * while it is open: it is closed only after every effect it started has finished).
 */
async function withLedger<T>(
  home: string | undefined,
  module: WorkflowModule,
  work: (ledger: EffectLedger | undefined) => Promise<T>,
): Promise<T> {
  if (!module.workflow.steps.some((step) => step.kind === 'effect')) return work(undefined);
  const ledger = openSqliteEffectLedger(harmflowHome(home).database);
  try {
    return await work(ledger);
  } finally {
    await ledger.close();
  }
}

async function getRun(store: ResumeStore, id: string): Promise<RunRecord> {
  const run = await store.getRun(id);
  if (run === undefined) throw new NotFoundError(`no workflow run ${id} in this HARMFLOW_HOME`);
  return run;
}

/** The workflow file of a run: the one given, else the one it was started from. */
async function moduleOf(store: ResumeStore, id: string, file: string | undefined): Promise<WorkflowModule> {
  const run = await getRun(store, id);
  const path = file ?? run.module;
  if (path === undefined) throw new UsageError(`run ${id} does not say which workflow file it came from: pass --file`);
  return loadWorkflowModule(path);
}

/** `name=value` pairs; a value that parses as JSON is that value, else the text itself. */
function parseParams(pairs: readonly string[]): Record<string, Json> {
  const params: Record<string, Json> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--param ${JSON.stringify(pair)}: write name=value`);
    const text = pair.slice(at + 1);
    let value: Json;
    try {
      value = JSON.parse(text) as Json;
    } catch {
      value = text;
    }
    params[pair.slice(0, at)] = value;
  }
  return params;
}

function parseAssumed(pairs: readonly string[]): Record<string, number> {
  const assumed: Record<string, number> = {};
  for (const pair of pairs) {
    const match = /^([^=]+)=(\d+)$/.exec(pair);
    if (!match) throw new UsageError(`--assume-changed ${JSON.stringify(pair)}: write step=count`);
    assumed[match[1] as string] = Number(match[2]);
  }
  return assumed;
}

function limits(options: Limits): { deadline?: Date; maxUsd?: number } {
  const out: { deadline?: Date; maxUsd?: number } = {};
  if (options.deadline !== undefined) {
    const at = new Date(options.deadline);
    if (Number.isNaN(at.getTime()))
      throw new UsageError(`--deadline ${JSON.stringify(options.deadline)}: not a date (ISO 8601)`);
    out.deadline = at;
  }
  if (options.maxUsd !== undefined) {
    const usd = Number(options.maxUsd);
    if (!Number.isFinite(usd) || usd < 0)
      throw new UsageError(`--max-usd ${JSON.stringify(options.maxUsd)}: not an amount`);
    out.maxUsd = usd;
  }
  return out;
}

/** Prints the plan; refuses (exit 2) when it is past the deadline or over the budget and --yes was not given. */
function gate(plan: Plan, options: Common & Limits): void {
  if (!options.json) process.stdout.write(`${formatPlan(plan)}\n\n`);
  const over = [
    ...(plan.budget && !plan.budget.fits ? [`over the budget of $${plan.budget.maxUsd}`] : []),
    ...(plan.deadline && !plan.deadline.fits ? [`not done before the deadline ${plan.deadline.at}`] : []),
  ];
  if (over.length > 0 && !options.yes) {
    throw new PlanRefused(`the plan is ${over.join(' and ')}: nothing started (pass --yes to start anyway)`);
  }
}

/** A plan past the deadline or over the budget, refused without --yes. Exit code 2, as `plan` gives it. */
class PlanRefused extends UsageError {}

function progress(options: Common): { onEvent?: (event: Parameters<typeof formatEvent>[0]) => void } {
  if (options.json) return {};
  return {
    onEvent: (event) => {
      const line = formatEvent(event);
      if (line !== undefined) process.stdout.write(`${line}\n`);
    },
  };
}

function report(run: RunRecord, options: Common): void {
  if (options.json) process.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
  else process.stdout.write(`\nrun ${run.id}: ${run.state}${run.message ? ` — ${run.message}` : ''}\n`);
  process.exitCode = run.state === 'succeeded' ? EXIT.ok : EXIT.executionFailed;
}
