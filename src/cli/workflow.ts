import type { Command } from 'commander';
import { EXIT, HarmflowError, UsageError } from '../core/errors.js';
import type { EffectLedger } from '../store/effect-ledger.js';
import type { Json, ResumeStore, RunRecord } from '../store/resume-store.js';
import { loadWorkflowModule, type WorkflowModule } from '../workflows/module.js';
import { type Plan, planExitCode, planResume } from '../workflows/plan.js';
import { type RunResult, resumeRun, startRun, type WorkflowEvent } from '../workflows/run.js';
import { refuseDrivenElsewhere } from '../workflows/run-owner.js';
import { planEstimate } from '../workflows/spend.js';
import { collect } from './option-values.js';
import { registerEffects } from './workflow-effects.js';
import { formatPlan } from './workflow-format.js';
import { registerLs } from './workflow-ls.js';
import { openProgress, progressMode } from './workflow-progress-output.js';
import { registerReview } from './workflow-review.js';
import { registerStatus } from './workflow-status.js';
import {
  type ClusterOptions,
  clusterOptions,
  getRun,
  moduleOf,
  type StepNeeds,
  type StoreOptions,
  type StorePlace,
  storeOptions,
  storePlace,
  withStepNeeds,
  withStore,
} from './workflow-store.js';
import { registerWhy } from './workflow-why.js';

interface Common extends ClusterOptions {
  json?: boolean;
}
interface Shown {
  quiet?: boolean;
  progressEvery?: string;
}
interface Limits {
  deadline?: string;
  maxUsd?: string;
  yes?: boolean;
}

export function registerWorkflow(program: Command): void {
  const workflow = program
    .command('workflow')
    .description('resumable multi-step workflows: run, resume, plan, status, ls');

  limitOptions(
    workflow
      .command('run <file>')
      .description('start a run of the workflow file (plans it first)')
      .option('--param <name=value>', 'a run parameter (a JSON value, else a string); repeatable', collect),
  ).action(async (file: string, options: Common & Limits & Shown & { param?: string[] }) => {
    const place = storePlace(options, true);
    const params = parseParams(options.param ?? []);
    const module = await loadWorkflowModule(file);
    await withStore(place, (store) =>
      planThenDrive(store, place, module, { params }, options, (needs, progress, plan) =>
        startRun(module.workflow, {
          store,
          params,
          module: module.path,
          providers: module.providers,
          prices: module.prices,
          plan: planEstimate(plan),
          ...needs,
          ...progress,
        }),
      ),
    );
  });

  limitOptions(
    workflow
      .command('resume <run>')
      .description('carry a run on with its workflow file (as it is now): reuses every stored output it can')
      .option('--file <file>', 'the workflow file (default: the one the run was last started or resumed with)'),
  ).action(async (id: string, options: Common & Limits & Shown & { file?: string }) => {
    const place = storePlace(options, true);
    await withStore(place, async (store) => {
      refuseDrivenElsewhere(await getRun(store, id)); // before anything is planned or printed
      const module = await moduleOf(store, id, options.file);
      await planThenDrive(store, place, module, { run: id }, options, (needs, progress, plan) =>
        resumeRun(module.workflow, id, {
          store,
          module: module.path,
          providers: module.providers,
          prices: module.prices,
          plan: planEstimate(plan),
          ...needs,
          ...progress,
        }),
      );
    });
  });

  storeOptions(
    workflow.command('plan <run>').description('what resuming the run would compute, cost and take (runs nothing)'),
  )
    .option('--file <file>', 'the workflow file (default: the one the run was last started or resumed with)')
    .option('--invalidate <step>', 'treat every item of the step as changed; repeatable', collect)
    .option('--assume-changed <step=n>', "assume n of the step's recomputed outputs change; repeatable", collect)
    .option('--full-from <step>', 'the step the full rerun compared with starts at')
    .option('--deadline <iso>', 'the deadline to plan against')
    .option('--max-usd <n>', 'the budget to plan against')
    .option('--json', 'print the plan as JSON')
    .action(
      async (
        id: string,
        options: Common &
          Limits & { file?: string; invalidate?: string[]; assumeChanged?: string[]; fullFrom?: string },
      ) => {
        const place = storePlace(options);
        await withStore(place, async (store) => {
          const module = await moduleOf(store, id, options.file);
          await withStepNeeds(place, module, async (needs) => {
            const plan = await planResume(module.workflow, {
              store,
              run: id,
              prices: module.prices,
              ...(options.invalidate && { invalidate: options.invalidate }),
              ...(options.assumeChanged && { assumeChanged: parseAssumed(options.assumeChanged) }),
              ...(options.fullFrom !== undefined && { fullFrom: options.fullFrom }),
              ...limits(options),
              ...ledgerOf(needs),
            });
            process.stdout.write(`${options.json ? JSON.stringify(plan, null, 2) : formatPlan(plan)}\n`);
            process.exitCode = planExitCode(plan);
          });
        });
      },
    );

  registerStatus(workflow);
  registerLs(workflow);

  storeOptions(
    workflow
      .command('invalidate <run> <step>')
      .description("record that a step's outputs in the run are wrong: its items are computed again on resume"),
  )
    .requiredOption('--reason <text>', 'why (kept with the run)')
    .option('--file <file>', 'the workflow file (default: the one the run was last started or resumed with)')
    .action(async (id: string, stepName: string, options: StoreOptions & { reason: string; file?: string }) => {
      const place = storePlace(options);
      if (options.reason.trim() === '') throw new UsageError('--reason must say why');
      await withStore(place, async (store) => {
        const module = await moduleOf(store, id, options.file);
        if (!module.workflow.steps.some((step) => step.name === stepName)) {
          throw new UsageError(`workflow ${module.workflow.name} has no step ${JSON.stringify(stepName)}`);
        }
        await store.invalidate({
          run: id,
          step: stepName,
          reason: options.reason.trim(),
          at: new Date().toISOString(),
        });
        process.stdout.write(
          `invalidated ${stepName} in run ${id}: \`harmflow workflow plan ${id}\` shows the cost, \`resume\` recomputes it\n`,
        );
      });
    });

  registerWhy(workflow);
  registerEffects(workflow);
  registerReview(workflow);
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

/** Prints the plan; refuses (exit 15) when it is past the deadline or over the budget and --yes was not given. */
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

/** A plan past the deadline or over the budget, refused without --yes. Exit code 15, as `plan` gives it. */
class PlanRefused extends HarmflowError {
  constructor(message: string) {
    super(message, EXIT.planOverLimits);
  }
}

/**
 * The options `run` and `resume` share: the limits their plan is held to, output, and where the run's
 * state is and its items compute (workflow-store.ts; agent steps run here in cluster mode too).
 */
function limitOptions(command: Command): Command {
  return clusterOptions(
    command
      .option('--deadline <iso>', 'refuse to start when the plan does not fit before this time (without --yes)')
      .option('--max-usd <n>', 'refuse to start when the plan costs more (without --yes)')
      .option('--yes', 'start even past the deadline or the budget')
      .option('--json', 'print the plan and the result as JSON')
      .option('--quiet', 'print no progress: the plan and how the run ended only (errors still go to stderr)')
      .option(
        '--progress-every <seconds>',
        `when stdout is not a terminal, print the running step's progress line this often (default ${DEFAULT_PROGRESS_EVERY_S} s)`,
      ),
  );
}

/**
 * What `run` and `resume` do: with what the workflow's steps need open, plan (a new run with
 * `target.params`, or the run `target.run`), refuse a plan past its limits without --yes, then drive
 * the run — `drive` spreads `progress` (the engine's `onEvent`, when progress is shown) into its
 * options, and gives the engine what `plan` estimated (stored with the drive, beside its spend) — and
 * report how it ended.
 */
async function planThenDrive(
  store: ResumeStore,
  place: StorePlace,
  module: WorkflowModule,
  target: { readonly run?: string; readonly params?: Readonly<Record<string, Json>> },
  options: Common & Limits & Shown,
  drive: (
    needs: StepNeeds,
    progress: { readonly onEvent?: (event: WorkflowEvent) => void },
    plan: Plan,
  ) => Promise<RunResult>,
): Promise<void> {
  const everyMs = progressEvery(options);
  await withStepNeeds(place, module, async (needs) => {
    const plan = await planResume(module.workflow, {
      store,
      ...target,
      ...limits(options),
      prices: module.prices,
      ...ledgerOf(needs),
    });
    gate(plan, options);
    const mode = progressMode(options, process.stdout, process.env);
    const progress = openProgress({ mode, plan, prices: module.prices, out: process.stdout, everyMs });
    let result: RunResult;
    try {
      result = await drive(needs, progress.onEvent === undefined ? {} : { onEvent: progress.onEvent }, plan);
    } finally {
      progress.close();
    }
    report(result.run, options);
  });
}

/** The ledger a plan reads sends already made from, when the workflow's steps opened one. */
function ledgerOf(needs: StepNeeds): { ledger?: EffectLedger } {
  return needs.ledger === undefined ? {} : { ledger: needs.ledger };
}

/** 30 s: a line a step's half-minute is enough for a log someone reads later, and few enough for a 2-hour step (240). */
const DEFAULT_PROGRESS_EVERY_S = 30;

/** `--progress-every` in milliseconds: at least 0.1 s. */
function progressEvery(options: Shown): number {
  if (options.progressEvery === undefined) return DEFAULT_PROGRESS_EVERY_S * 1000;
  const seconds = Number(options.progressEvery);
  if (!Number.isFinite(seconds) || seconds < 0.1) {
    throw new UsageError(`--progress-every ${JSON.stringify(options.progressEvery)}: a number of seconds, 0.1 or more`);
  }
  return seconds * 1000;
}

function report(run: RunRecord, options: Common): void {
  if (options.json) process.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
  else process.stdout.write(`\nrun ${run.id}: ${run.state}${run.message ? ` — ${run.message}` : ''}\n`);
  process.exitCode =
    run.state === 'succeeded' ? EXIT.ok : run.state === 'waiting' ? EXIT.workflowWaiting : EXIT.executionFailed;
}
