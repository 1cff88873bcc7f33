/**
 * The workflow engine: runs a workflow's steps in order, each step's items with bounded
 * concurrency. Every item's fingerprint (fingerprint.ts) is computed from what it reads; an output
 * stored under that fingerprint is reused, anything else is computed, with transient errors retried
 * (retry.ts) and defects recorded as the item's failure while the others go on. Results are committed
 * to the ResumeStore in groups (group-commit.ts: within 100 ms of a result, one transaction a group),
 * so a crash never leaves a false "done": what was not committed is computed again on resume.
 *
 * When an item's transient error outlasts its tries or the run's retry budget, the run stops:
 * no new item starts, the ones running finish and are committed, and the run is `crashed at <step>
 * item <key>` — `resumeRun` carries it on from there. An item whose upstream failed is blocked; a
 * run with failed or blocked items ends `failed` (resume after a fix reruns just those).
 *
 * One process drives a run at a time; the caller owns the store.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { describeError, NotFoundError, UsageError } from '../core/errors.js';
import { newExecutionId } from '../core/ids.js';
import type { EffectLedger } from '../store/effect-ledger.js';
import type { Json, ResumeStore, RunItem, RunRecord, StoredOutput } from '../store/resume-store.js';
import type { AgentContext } from './agent-item.js';
import { type ComputeContext, computeItem } from './compute-item.js';
import type { ModelProvider, RunView, WorkflowDefinition } from './define.js';
import { digestOf } from './fingerprint.js';
import { GroupCommit, type GroupCommitLimits } from './group-commit.js';
import { invalidationMarks, itemsOf, type PreparedItem, type Produced, prepareItem } from './prepare.js';
import { RetryBudget, type RetryConfig, resolveRetryPolicy, runWithRetries } from './retry.js';
import { approvalCommits, BY_RULE, sortOpenReviews } from './review.js';
import { defaultConcurrency, requireWhatStepsNeed, validateDefinition } from './validate.js';

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
  readonly onEvent?: (event: WorkflowEvent) => void;
  readonly signal?: AbortSignal;
  /** Injectable for tests: the clock, sleeping between retries, and the jitter source. */
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random?: () => number;
}

/** Progress, for the CLI and tests. */
export type WorkflowEvent =
  | { readonly type: 'step.started'; readonly step: string; readonly items: number; readonly cached: number }
  | {
      readonly type: 'item.retry';
      readonly step: string;
      readonly item: string;
      readonly tryNumber: number;
      readonly delayMs: number;
      readonly error: string;
    }
  | { readonly type: 'item.failed'; readonly step: string; readonly item: string; readonly error: string }
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
    createdAt: now,
    updatedAt: now,
  };
  await options.store.createRun(run);
  return drive(definition, run, options);
}

/** Carries on run `id` with `definition` (a fixed version of it, typically): reuses every stored output it can. */
export async function resumeRun(
  definition: WorkflowDefinition,
  id: string,
  options: WorkflowOptions,
): Promise<RunResult> {
  const stored = await options.store.getRun(id);
  if (stored === undefined) throw new NotFoundError(`no workflow run ${id}`);
  if (stored.workflow !== definition.name) {
    throw new UsageError(
      `run ${id} is of workflow ${JSON.stringify(stored.workflow)}, not ${JSON.stringify(definition.name)}`,
    );
  }
  validateDefinition(definition, stored.params, options.providers ?? {});
  requireWhatStepsNeed(definition, options);
  const updatedAt = new Date((options.now ?? Date.now)()).toISOString();
  await options.store.updateRun(id, { state: 'running', message: null, updatedAt });
  return drive(definition, { ...stored, state: 'running', updatedAt }, options);
}

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

  const produced = new Map<string, Map<string, Produced>>();
  const itemKeys = new Map<string, readonly string[]>();
  const view: RunView = {
    params: run.params,
    keys: (step) => itemKeys.get(step) ?? [],
    output: (step, key) => {
      const found = produced.get(step)?.get(key);
      if (found === undefined) throw new UsageError(`step ${step} has no output for item ${key} in this run`);
      return found.output;
    },
  };

  const commits = new GroupCommit((batch) => store.commitItems(batch), options.groupCommit);

  const summaries: StepSummary[] = [];
  let crash: Crash | undefined;
  let failures = 0;
  let firstFailure: string | undefined;
  try {
    await driveSteps();
  } catch (error) {
    // An abort, a step's items function that throws, a store that fails: what finished is kept,
    // and the run is left resumable.
    await commits.flush().catch(() => {});
    const message = `crashed: ${describeError(error)}`;
    await store.updateRun(run.id, { state: 'crashed', message, updatedAt: stamp() }).catch(() => {});
    emit({ type: 'run.ended', state: 'crashed', message });
    throw error;
  }

  async function driveSteps(): Promise<void> {
    const marks = invalidationMarks(await store.listInvalidations(run.id));
    for (const step of definition.steps) {
      const keys = itemsOf(step, definition, view, run.params);
      itemKeys.set(step.name, keys);
      const outputs = new Map<string, Produced>();
      produced.set(step.name, outputs);
      const earlier = new Map((await store.listRunItems(run.id, step.name)).map((item) => [item.item, item]));

      const plans: ({ key: string } & PreparedItem)[] = [];
      let blocked = 0;
      for (const key of keys) {
        const prepared = prepareItem(definition, step, key, view, produced, run.params, marks.get(step.name));
        if (prepared === undefined) {
          blocked += 1;
          continue;
        }
        const { components, componentsText, fingerprint, input } = prepared;
        plans.push({ key, components, componentsText, fingerprint, input });
      }
      const stored = await store.getOutputs(plans.map((plan) => plan.fingerprint));
      const toCompute: typeof plans = [];
      for (const plan of plans) {
        const hit = stored.get(plan.fingerprint);
        if (hit === undefined) {
          toCompute.push(plan);
          continue;
        }
        outputs.set(plan.key, { output: hit.output, digest: hit.digest });
        const before = earlier.get(plan.key);
        if (before?.status === 'done' && before.fingerprint === plan.fingerprint) continue;
        await commits.add({
          item: doneItem(run.id, step.name, plan.key, hit, { cached: true, tries: 0, before }, stamp()),
        });
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
        const open = toCompute.filter((plan) => !isRejected(plan));
        const { byRule, forPerson } = await sortOpenReviews(store, run.id, step, open);
        const approvals = approvalCommits(definition.name, run.id, step, byRule, BY_RULE, stamp());
        for (const { item, output } of approvals) {
          if (output !== undefined) outputs.set(item.item, { output: output.output, digest: output.digest });
        }
        if (approvals.length > 0) await store.commitItems(approvals);
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

      let computed = 0;
      let failed = 0;
      await forEachLimited(
        toCompute,
        defaultConcurrency(step),
        () => crash !== undefined,
        async (plan) => {
          const result = await runWithRetries(() => computeItem(step, plan.input, compute), {
            policy,
            budget,
            sleep,
            random,
            now,
            ...(options.signal !== undefined && { signal: options.signal }),
            onRetry: (info) =>
              emit({
                type: 'item.retry',
                step: step.name,
                item: plan.key,
                tryNumber: info.tryNumber,
                delayMs: info.delayMs,
                error: info.error.message,
              }),
          });
          if (result.ok) {
            const { text, digest } = digestOf(result.value.output);
            const output: StoredOutput = {
              fingerprint: plan.fingerprint,
              workflow: definition.name,
              step: step.name,
              item: plan.key,
              digest,
              output: result.value.output,
              components: plan.components as unknown as Json,
              measured: result.value.measured,
              createdAt: stamp(),
            };
            outputs.set(plan.key, { output: output.output, digest });
            const done = { cached: false, tries: result.tries, before: earlier.get(plan.key) };
            // The texts just hashed are the JSON the store keeps: it need not serialize them again.
            await commits.add({
              item: doneItem(run.id, step.name, plan.key, output, done, stamp()),
              output,
              texts: { output: text, components: plan.componentsText },
            });
            computed += 1;
          } else if (result.kind === 'defect') {
            failed += 1;
            failures += 1;
            firstFailure ??= `step ${step.name} item ${plan.key}: ${result.error}`;
            emit({ type: 'item.failed', step: step.name, item: plan.key, error: result.error });
            await commits.add({
              item: {
                run: run.id,
                step: step.name,
                item: plan.key,
                status: 'failed',
                fingerprint: plan.fingerprint,
                error: result.error,
                tries: result.tries,
                updatedAt: stamp(),
              },
            });
          } else {
            const why = result.reason === 'item' ? ` (${result.tries} tries)` : '';
            const index = toCompute.indexOf(plan);
            if (crash === undefined || index < crash.index) {
              crash = { step: step.name, item: plan.key, index, message: `${result.error}${why}` };
            }
          }
        },
      );
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
    updatedAt,
  });
  emit({ type: 'run.ended', state: end.state, ...(end.message !== undefined && { message: end.message }) });
  return {
    run: {
      ...withoutMessage(run),
      state: end.state,
      ...(end.message !== undefined && { message: end.message }),
      updatedAt,
    },
    steps: summaries,
  };
}

function withoutMessage(run: RunRecord): RunRecord {
  const { message: _earlier, ...rest } = run;
  return rest;
}

function failureMessage(failures: number, summaries: readonly StepSummary[], first: string | undefined): string {
  const blocked = summaries.reduce((sum, summary) => sum + summary.blocked, 0);
  const parts = [`${failures} item(s) failed`];
  if (blocked > 0) parts.push(`${blocked} blocked by a failed upstream item`);
  return `${parts.join(', ')}${first ? `; first: ${first}` : ''}`;
}

/** A done run item that uses `output`, remembering the output this run's item had before (RunItem.replaced). */
function doneItem(
  run: string,
  step: string,
  item: string,
  output: Pick<StoredOutput, 'fingerprint' | 'digest'>,
  how: { readonly cached: boolean; readonly tries: number; readonly before: RunItem | undefined },
  updatedAt: string,
): RunItem {
  const { before } = how;
  const replaced =
    before?.status !== 'done'
      ? undefined
      : (before.replaced ?? (before.digest === output.digest ? undefined : before.fingerprint));
  return {
    run,
    step,
    item,
    status: 'done',
    fingerprint: output.fingerprint,
    digest: output.digest,
    cached: how.cached,
    ...(replaced !== undefined && { replaced }),
    tries: how.tries,
    updatedAt,
  };
}

/**
 * Runs `work` over `items`, at most `limit` at a time, in order of start; stops starting new ones
 * once `stop()` is true. Resolves when every started one has finished; rejects with the first error
 * `work` throws (after the others finished).
 */
async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  stop: () => boolean,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (next < items.length && !stop() && failure === undefined) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure !== undefined) throw failure.error;
}
