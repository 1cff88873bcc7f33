/**
 * The workflow engine: runs a workflow's steps in order, each step's items with bounded
 * concurrency. Every item's fingerprint (fingerprint.ts) is computed from what it reads; an output
 * stored under that fingerprint is reused, anything else is computed, with transient errors retried
 * (retry.ts) and defects recorded as the item's failure while the others go on. A fingerprint takes in
 * upstream digests, not values, so what to run is decided from digests alone (ResumeStore.outputDigests)
 * and a reused output's value is loaded only for what reads it (run-outputs.ts). Results are committed
 * to the ResumeStore in groups (group-commit.ts: within 100 ms of a result, one transaction a group),
 * so a crash never leaves a false "done": what was not committed is computed again on resume.
 *
 * When an item's transient error outlasts its tries or the run's retry budget, the run stops:
 * no new item starts, the ones running finish and are committed, and the run is `crashed at <step>
 * item <key>` — `resumeRun` carries it on from there. An item whose upstream failed is blocked; a
 * run with failed or blocked items ends `failed` (resume after a fix reruns just those).
 *
 * Each drive of a run (this start, each resume) records what its steps spent (spend.ts): every try
 * of every item it computes, added to the item's step in the drive in the commit of the item itself,
 * beside what the drive's plan estimated (`plan`), with dollars at the drive's `prices`.
 *
 * One process drives a run at a time: the one that takes it records itself as the run's owner
 * (run-owner.ts), cleared when the run stops, and a resume refuses a run another live process of
 * this machine drives. The caller owns the store.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { describeError, NotFoundError, UsageError } from '../core/errors.js';
import { newExecutionId } from '../core/ids.js';
import type { EffectLedger } from '../store/effect-ledger.js';
import type { Json, ResumeStore, RunItem, RunRecord } from '../store/resume-store.js';
import type { AgentContext } from './agent-item.js';
import type { ComputeContext } from './compute-item.js';
import type { ModelProvider, StepDefinition, WorkflowDefinition } from './define.js';
import { GroupCommit, type GroupCommitLimits } from './group-commit.js';
import { computedCommit, doneItem, failedItem, previousOutput } from './item-commits.js';
import {
  type DriveContext,
  IN_PROCESS,
  type ItemExecutor,
  type ItemOutcome,
  type ReadyItem,
  type StepWork,
} from './item-executor.js';
import { NOT_LOADED } from './on-demand-outputs.js';
import type { ModelPrice } from './plan-cost.js';
import { type Fingerprinted, fingerprintItem, inputOf, invalidationMarks, itemsOf } from './prepare.js';
import { RetryBudget, type RetryConfig, resolveRetryPolicy } from './retry.js';
import { approvalCommits, BY_RULE, sortOpenReviews } from './review.js';
import { RunOutputs } from './run-outputs.js';
import { refuseDrivenElsewhere, thisOwner } from './run-owner.js';
import { type DrivePlan, driveStepsOf, spendDelta } from './spend.js';
import { requireWhatStepsNeed, validateDefinition } from './validate.js';

export interface WorkflowOptions {
  readonly store: ResumeStore;
  readonly providers?: Readonly<Record<string, ModelProvider>>;
  /** The effects ledger; required when the workflow has effect steps. */
  readonly ledger?: EffectLedger;
  /** Where agent steps run their executions; required when the workflow has agent steps. */
  readonly agents?: AgentContext;
  readonly retry?: RetryConfig;
  /** When item results are committed (default: 1000 of them or 100 ms, group-commit.ts). */
  readonly groupCommit?: GroupCommitLimits;
  /**
   * Where a step's items are computed (item-executor.ts): in this process by default; a cluster
   * executor (cluster-executor.ts) sends them to item workers.
   */
  readonly executor?: ItemExecutor;
  readonly onEvent?: (event: WorkflowEvent) => void;
  readonly signal?: AbortSignal;
  /**
   * USD per million tokens by model name: the dollars of this drive's tokens are counted at these
   * (a model step whose model has none spends an unknown amount). The CLI passes the module's.
   */
  readonly prices?: Readonly<Record<string, ModelPrice>>;
  /** What this drive's plan estimated per step (spend.ts planEstimate), stored beside what it spends. */
  readonly plan?: DrivePlan;
  /** Injectable for tests: the clock, sleeping between retries, and the jitter source. */
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random?: () => number;
}

/**
 * What computing one item spent in a drive: its tries, the time they took and the model tokens they
 * used. Figures a computer did not report (an item a cluster worker committed) are absent, not zero.
 * Of a model step, `inputTokens` and `outputTokens` sum the tries that reported tokens, and
 * `unreportedTokens` counts the others (a call that failed before it answered).
 */
export interface Spent {
  readonly tries: number;
  readonly durationMs?: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly unreportedTokens?: number;
}

/** Progress, for the CLI and tests. */
export type WorkflowEvent =
  | { readonly type: 'step.started'; readonly step: string; readonly items: number; readonly cached: number }
  | { readonly type: 'item.done'; readonly step: string; readonly item: string; readonly spent: Spent }
  | {
      readonly type: 'item.retry';
      readonly step: string;
      readonly item: string;
      readonly tryNumber: number;
      readonly delayMs: number;
      readonly error: string;
    }
  | {
      readonly type: 'item.failed';
      readonly step: string;
      readonly item: string;
      readonly error: string;
      /** What the failed item's tries spent, when its executor measured it. */
      readonly spent?: Spent;
    }
  | ({ readonly type: 'step.ended' } & StepSummary)
  | { readonly type: 'run.ended'; readonly state: RunRecord['state']; readonly message?: string };

/** What a step did in this drive. */
export interface StepSummary {
  readonly step: string;
  readonly items: number;
  /** Items computed; of a review step, those its rule approved. */
  readonly computed: number;
  readonly cached: number;
  readonly failed: number;
  readonly blocked: number;
  /** Review items waiting for a person. */
  readonly awaiting: number;
}

export interface RunResult {
  readonly run: RunRecord;
  readonly steps: readonly StepSummary[];
}

/** Creates a run of `definition` (parameters: its defaults, then `params`) and drives it. */
export async function startRun(
  definition: WorkflowDefinition,
  options: WorkflowOptions & {
    readonly params?: Readonly<Record<string, Json>>;
    /** The workflow file it comes from, recorded so the run can be resumed by its id. */
    readonly module?: string;
  },
): Promise<RunResult> {
  const params = { ...definition.params, ...options.params };
  validateDefinition(definition, params, options.providers ?? {});
  requireWhatStepsNeed(definition, options);
  const now = new Date((options.now ?? Date.now)()).toISOString();
  const run: RunRecord = {
    id: newExecutionId(),
    workflow: definition.name,
    params,
    state: 'running',
    ...(options.module !== undefined && { module: options.module }),
    owner: thisOwner(now),
    createdAt: now,
    updatedAt: now,
  };
  await options.store.createRun(run);
  return drive(definition, run, options);
}

/**
 * Carries on run `id` with `definition` (a fixed version of it, typically): reuses every stored output
 * it can. Rejects with ConflictError, changing nothing, while another live process of this machine
 * drives the run.
 */
export async function resumeRun(
  definition: WorkflowDefinition,
  id: string,
  options: WorkflowOptions & {
    /** The workflow file it is resumed with: recorded, so a later resume by the id alone uses it too. */
    readonly module?: string;
  },
): Promise<RunResult> {
  const stored = await options.store.getRun(id);
  if (stored === undefined) throw new NotFoundError(`no workflow run ${id}`);
  if (stored.workflow !== definition.name) {
    throw new UsageError(
      `run ${id} is of workflow ${JSON.stringify(stored.workflow)}, not ${JSON.stringify(definition.name)}`,
    );
  }
  refuseDrivenElsewhere(stored);
  validateDefinition(definition, stored.params, options.providers ?? {});
  requireWhatStepsNeed(definition, options);
  const updatedAt = new Date((options.now ?? Date.now)()).toISOString();
  const owner = thisOwner(updatedAt);
  const module = options.module !== undefined && { module: options.module };
  await options.store.updateRun(id, { state: 'running', message: null, owner, updatedAt, ...module });
  return drive(definition, { ...stored, state: 'running', owner, updatedAt, ...module }, options);
}

/** A step's item and its fingerprint. */
interface Planned extends Fingerprinted {
  readonly key: string;
}

/** An item that will compute, with its input. */
type Ready = ReadyItem;

const NO_DIGESTS: ReadonlyMap<string, string> = new Map();

/** Why the drive stopped early: the first item, in its step's order, whose transient errors outlasted the retry limits. */
interface Crash {
  readonly step: string;
  readonly item: string;
  /** The item's place in its step: of items that run out at once, the run names the first. */
  readonly index: number;
  readonly message: string;
}

async function drive(definition: WorkflowDefinition, run: RunRecord, options: WorkflowOptions): Promise<RunResult> {
  const { store } = options;
  const now = options.now ?? Date.now;
  const providers = options.providers ?? {};
  const policy = resolveRetryPolicy(options.retry ?? {});
  const budget = new RetryBudget(policy.runBudget);
  const sleep = options.sleep ?? ((ms: number, signal?: AbortSignal) => delay(ms, undefined, signal && { signal }));
  const random = options.random ?? Math.random;
  const emit = options.onEvent ?? (() => {});
  // Items finish many to a millisecond: the text is made once per millisecond, not twice per item.
  let stamped: { readonly ms: number; readonly iso: string } | undefined;
  const stamp = (): string => {
    const ms = now();
    if (stamped?.ms !== ms) stamped = { ms, iso: new Date(ms).toISOString() };
    return stamped.iso;
  };
  const compute: ComputeContext = {
    providers,
    workflow: definition.name,
    run: run.id,
    now,
    ...(options.ledger !== undefined && { ledger: options.ledger }),
    ...(options.agents !== undefined && { agents: options.agents }),
    ...(options.signal !== undefined && { signal: options.signal }),
  };

  const executor = options.executor ?? IN_PROCESS;
  const driveContext: DriveContext = {
    compute,
    policy,
    budget,
    sleep,
    random,
    now,
    ...(options.signal !== undefined && { signal: options.signal }),
    onRetry: (key, info) => emit({ type: 'item.retry', step: stepNow, item: key, ...info }),
  };
  /** The step being driven, for the retry events. */
  let stepNow = '';

  const outputs = new RunOutputs(store, run.params);
  const { view } = outputs;
  const digestOfHeld = (step: string, key: string) => outputs.digestOf(step, key);

  const commits = new GroupCommit((batch, spend) => store.commitItems(batch, spend), options.groupCommit);
  /** This drive's number (ResumeStore.startDrive), once started. */
  let driveNumber = 0;
  /** The step being driven and when it began: its wall-clock time is added when it ends (or the drive stops). */
  let began: { readonly step: string; readonly at: number } | undefined;
  const addWallTime = (): void => {
    if (began === undefined) return;
    commits.addSpend({ run: run.id, drive: driveNumber, step: began.step, wallMs: Math.max(0, now() - began.at) });
    began = undefined;
  };

  const summaries: StepSummary[] = [];
  let crash: Crash | undefined;
  let failures = 0;
  let firstFailure: string | undefined;
  try {
    await driveSteps();
  } catch (error) {
    // An abort, a step's items function that throws, a store that fails: what finished is kept,
    // and the run is left resumable.
    addWallTime();
    await commits.flush().catch(() => {});
    const message = `crashed: ${describeError(error)}`;
    await store.updateRun(run.id, { state: 'crashed', message, owner: null, updatedAt: stamp() }).catch(() => {});
    emit({ type: 'run.ended', state: 'crashed', message });
    throw error;
  }

  async function driveSteps(): Promise<void> {
    driveNumber = await store.startDrive(run.id, driveStepsOf(definition, options.prices, options.plan), stamp());
    const marks = invalidationMarks(await store.listInvalidations(run.id));
    for (const step of definition.steps) {
      began = { step: step.name, at: now() };
      const keys = await outputs.resolve(() => itemsOf(step, definition, view, run.params));
      outputs.startStep(step.name, keys);
      const mark = marks.get(step.name);

      // Fingerprints from the digests held: no output value is needed to know what to run.
      const plans: Planned[] = [];
      let blocked = 0;
      for (const key of keys) {
        const fingerprint = () => fingerprintItem(definition, step, key, view, run.params, digestOfHeld, mark);
        let item = outputs.attempt(fingerprint);
        while (item === NOT_LOADED) {
          await outputs.loadMissing();
          item = outputs.attempt(fingerprint);
        }
        if (item === undefined) {
          blocked += 1;
          continue;
        }
        const { components, componentsText } = item;
        plans.push({ key, components, componentsText, fingerprint: item.fingerprint });
      }

      // An item this run has done with the same fingerprint, its output still stored, is reused as
      // it is. Any other is reused, and recorded, when an output is stored under its fingerprint, and
      // computed otherwise; the run's items of the step tell what each one replaces.
      const ofRun = await store.outputDigests({ run: run.id, step: step.name });
      const others = plans.filter((plan) => !ofRun.has(plan.fingerprint));
      const stored =
        others.length === 0
          ? NO_DIGESTS
          : await store.outputDigests({ fingerprints: others.map((plan) => plan.fingerprint) });
      const earlier = new Map<string, RunItem>(
        others.length === 0 ? [] : (await store.listRunItems(run.id, step.name)).map((item) => [item.item, item]),
      );
      const toCompute: Planned[] = [];
      for (const plan of plans) {
        const same = ofRun.get(plan.fingerprint);
        if (same !== undefined) {
          outputs.hold(step.name, plan.key, plan.fingerprint, same);
          continue;
        }
        const digest = stored.get(plan.fingerprint);
        if (digest === undefined) {
          toCompute.push(plan);
          continue;
        }
        outputs.hold(step.name, plan.key, plan.fingerprint, digest);
        const reused = { cached: true, tries: 0, before: previousOutput(earlier.get(plan.key)) };
        const hit = { fingerprint: plan.fingerprint, digest };
        await commits.add({ item: doneItem({ run: run.id, step: step.name, key: plan.key }, hit, reused, stamp()) });
      }
      emit({ type: 'step.started', step: step.name, items: keys.length, cached: plans.length - toCompute.length });
      if (step.kind === 'review') {
        // Nothing computes a review: an item without an approval of exactly these inputs is approved
        // by the step's rule or waits for a person (`harmflow workflow review`), and what reads it
        // waits with it; one rejected as it is has failed.
        await commits.flush();
        const isRejected = (plan: (typeof toCompute)[number]): boolean => {
          const before = earlier.get(plan.key);
          return before?.status === 'failed' && before.fingerprint === plan.fingerprint;
        };
        const rejected = toCompute.filter(isRejected);
        failures += rejected.length;
        for (const plan of rejected)
          firstFailure ??= `step ${step.name} item ${plan.key}: ${(earlier.get(plan.key) as { error: string }).error}`;
        const open = await withInputs(
          step,
          toCompute.filter((plan) => !isRejected(plan)),
        );
        const { byRule, forPerson } = await sortOpenReviews(store, run.id, step, open);
        const approvals = approvalCommits(definition.name, run.id, step, byRule, BY_RULE, stamp());
        for (const { item, output } of approvals) {
          if (output !== undefined)
            outputs.hold(step.name, item.item, output.fingerprint, output.digest, output.output);
        }
        if (approvals.length > 0) await store.commitItems(approvals);
        addWallTime();
        await commits.flush();
        const summary: StepSummary = {
          step: step.name,
          items: keys.length,
          computed: byRule.length,
          cached: plans.length - toCompute.length,
          failed: rejected.length,
          blocked,
          awaiting: forPerson.length,
        };
        summaries.push(summary);
        emit({ type: 'step.ended', ...summary });
        continue;
      }

      const ready = await withInputs(step, toCompute, earlier);
      stepNow = step.name;
      const place = { run: run.id, workflow: definition.name, step: step.name };
      const order = new Map(ready.map((plan, index) => [plan.key, index]));
      const fingerprints = new Map(ready.map((plan) => [plan.key, plan]));
      let computed = 0;
      let failed = 0;
      const work: StepWork = {
        definition,
        step,
        run: run.id,
        drive: driveNumber,
        items: ready,
        stopping: () => crash !== undefined,
      };
      const spendPlace = { run: run.id, drive: driveNumber, step: step.name };
      /** The spend of an outcome for the engine to record: none when its executor committed it. */
      const spendOf = (outcome: ItemOutcome, failed: boolean) =>
        outcome.spendRecorded === true
          ? undefined
          : spendDelta(spendPlace, outcome.spent, { tries: outcome.tries, failed });
      await executor.computeStep(work, driveContext, async (outcome) => {
        const plan = fingerprints.get(outcome.key) as Ready;
        if (outcome.status === 'computed') {
          const at = stamp();
          const commit = computedCommit(
            { ...place, key: plan.key },
            plan,
            outcome.computed,
            {
              tries: outcome.tries,
              before: plan.before,
            },
            at,
          );
          outputs.hold(step.name, plan.key, plan.fingerprint, commit.output.digest, commit.output.output);
          await commits.add(commit, spendOf(outcome, false));
          computed += 1;
          emit({
            type: 'item.done',
            step: step.name,
            item: plan.key,
            spent: outcome.spent ?? { tries: outcome.tries, ...outcome.computed.measured },
          });
        } else if (outcome.status === 'committed') {
          outputs.hold(step.name, plan.key, plan.fingerprint, outcome.digest, outcome.output);
          computed += 1;
          const spend = spendOf(outcome, false);
          if (spend !== undefined) commits.addSpend(spend);
          emit({
            type: 'item.done',
            step: step.name,
            item: plan.key,
            spent: outcome.spent ?? { tries: outcome.tries },
          });
        } else if (outcome.status === 'failed') {
          failed += 1;
          failures += 1;
          firstFailure ??= `step ${step.name} item ${plan.key}: ${outcome.error}`;
          emit({
            type: 'item.failed',
            step: step.name,
            item: plan.key,
            error: outcome.error,
            ...(outcome.spent !== undefined && { spent: outcome.spent }),
          });
          const spend = spendOf(outcome, true);
          if (!outcome.committed) {
            const item = failedItem({ ...place, key: plan.key }, plan.fingerprint, outcome, stamp());
            await commits.add({ item }, spend);
          } else if (spend !== undefined) {
            commits.addSpend(spend);
          }
        } else {
          // Out of tries: nothing is committed, but its tries were spent.
          const spend = spendOf(outcome, false);
          if (spend !== undefined) commits.addSpend(spend);
          const why = outcome.reason === 'item' ? ` (${outcome.tries} tries)` : '';
          const index = order.get(plan.key) ?? 0;
          if (crash === undefined || index < crash.index) {
            crash = { step: step.name, item: plan.key, index, message: `${outcome.error}${why}` };
          }
        }
      });
      addWallTime();
      await commits.flush();
      const summary: StepSummary = {
        step: step.name,
        items: keys.length,
        computed,
        cached: plans.length - toCompute.length,
        failed,
        blocked,
        awaiting: 0,
      };
      summaries.push(summary);
      emit({ type: 'step.ended', ...summary });
      if (crash !== undefined) break;
    }
  }

  /**
   * `items` with their inputs: the values they read are loaded first, together (any a read selector
   * asks for besides, a step at a time).
   */
  async function withInputs(
    step: StepDefinition,
    items: readonly Planned[],
    earlier?: ReadonlyMap<string, RunItem>,
  ): Promise<Ready[]> {
    await outputs.loadInputs(items);
    const ready: Ready[] = [];
    for (const { key, components, componentsText, fingerprint } of items) {
      const input = () => inputOf(step, key, view, components.params);
      let loaded = outputs.attempt(input);
      while (loaded === NOT_LOADED) {
        await outputs.loadMissing();
        loaded = outputs.attempt(input);
      }
      ready.push({
        key,
        components,
        componentsText,
        fingerprint,
        input: loaded,
        before: previousOutput(earlier?.get(key)),
      });
    }
    return ready;
  }

  const awaiting = summaries.reduce((sum, summary) => sum + summary.awaiting, 0);
  const end: Pick<RunRecord, 'state' | 'message'> =
    crash !== undefined
      ? { state: 'crashed', message: `crashed at ${crash.step} item ${crash.item}: ${crash.message}` }
      : failures > 0
        ? { state: 'failed', message: failureMessage(failures, summaries, firstFailure) }
        : awaiting > 0
          ? {
              state: 'waiting',
              message: `${awaiting} item(s) await review: \`harmflow workflow review ${run.id}\`, then resume`,
            }
          : summaries.some((summary) => summary.blocked > 0)
            ? { state: 'failed', message: failureMessage(failures, summaries, firstFailure) }
            : { state: 'succeeded' };
  const updatedAt = stamp();
  await store.updateRun(run.id, {
    state: end.state,
    message: end.message ?? null,
    owner: null,
    updatedAt,
  });
  emit({ type: 'run.ended', state: end.state, ...(end.message !== undefined && { message: end.message }) });
  return {
    run: {
      ...stopped(run),
      state: end.state,
      ...(end.message !== undefined && { message: end.message }),
      updatedAt,
    },
    steps: summaries,
  };
}

/** The run without what a run that stopped no longer has: the earlier message, the owner. */
function stopped(run: RunRecord): RunRecord {
  const { message: _earlier, owner: _driver, ...rest } = run;
  return rest;
}

function failureMessage(failures: number, summaries: readonly StepSummary[], first: string | undefined): string {
  const blocked = summaries.reduce((sum, summary) => sum + summary.blocked, 0);
  const parts = [`${failures} item(s) failed`];
  if (blocked > 0) parts.push(`${blocked} blocked by a failed upstream item`);
  return `${parts.join(', ')}${first ? `; first: ${first}` : ''}`;
}
