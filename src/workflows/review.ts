/**
 * Reviews: what a person approves or rejects between a run's stops. An item of a review step waits
 * when no approval is stored under its fingerprint — the hash of exactly what it reviews — so an
 * approval holds for those inputs only, and a changed upstream output needs a new one. A step's
 * `needsPerson` rule may let items through (approved `by: "rule"`); the others wait for a person, who
 * sees what the step shows, the last approved version beside it, and why it is up again (the
 * fingerprint components that changed), or, for an item this run changed, the version before the
 * change and the chain of outputs that changed it (review-change.ts). Approving stores the approval as the item's
 * output; rejecting records the item as failed for these inputs. Resume the run afterwards. Reads and
 * writes go through the ResumeStore; nothing here runs a step.
 */
import { NotFoundError, UsageError } from '../core/errors.js';
import type { ItemCommit, Json, ResumeStore, RunItem, RunRecord, StoredOutput } from '../store/resume-store.js';
import type { ItemInput, ReviewStep, RunView, WorkflowDefinition } from './define.js';
import {
  digestOf,
  type FingerprintComponents,
  parseComponents,
  type RerunReason,
  rerunReasons,
} from './fingerprint.js';
import { invalidationMarks, itemsOf, type Produced, prepareItem } from './prepare.js';
import { type ReviewChange, reviewChanges, shownOf } from './review-change.js';

/** One item waiting for a person. */
export interface PendingReview {
  readonly step: string;
  readonly key: string;
  readonly fingerprint: string;
  /** What the reviewer sees: the step's `show` of the item's input, else its inputs. */
  readonly shown: Json;
  /** The last approval of this item (in any run), with what it showed then. */
  readonly previous?: Approval;
  /** What changed in this run: the item as shown before an output it reads was replaced, and why. */
  readonly change?: ReviewChange;
  /** Why it is up: `new` (never approved), or what changed since the last approval. */
  readonly reasons: readonly RerunReason[];
  /** Its components, to store with the approval. */
  readonly components: FingerprintComponents;
}

/** A review item's output. */
export interface Approval {
  readonly approved: true;
  /** Who approved it: a person's name, or `rule` for the step's `needsPerson` rule. */
  readonly by: string;
  readonly at: string;
  readonly shown: Json;
}

/** Who approves the items a review step's `needsPerson` rule lets through. */
export const BY_RULE = 'rule';

/** An item of a review step that has no approval of its inputs and was not rejected as it is. */
export interface OpenReview {
  readonly key: string;
  readonly fingerprint: string;
  readonly components: FingerprintComponents;
  readonly input: ItemInput;
}

/**
 * Sorts a review step's open items: those its `needsPerson` rule lets through, and those a person
 * must see, each with what changed in this run (absent when nothing it reads did).
 */
export async function sortOpenReviews<T extends OpenReview>(
  store: ResumeStore,
  runId: string,
  step: ReviewStep,
  open: readonly T[],
): Promise<{ byRule: T[]; forPerson: (T & { readonly change?: ReviewChange })[] }> {
  const changes = await reviewChanges(store, runId, step, open);
  const byRule: T[] = [];
  const forPerson: (T & { readonly change?: ReviewChange })[] = [];
  for (const item of open) {
    const change = changes.get(item.key);
    const needed = step.needsPerson?.(item.input, change === undefined ? {} : { earlier: change.earlier }) ?? true;
    if (needed) forPerson.push(change === undefined ? item : { ...item, change });
    else byRule.push(item);
  }
  return { byRule, forPerson };
}

/** The commits that approve `items` of review step `step`, by `by` at `at`: each approval stored under the item's fingerprint. */
export function approvalCommits(
  workflow: string,
  runId: string,
  step: ReviewStep,
  items: readonly OpenReview[],
  by: string,
  at: string,
): ItemCommit[] {
  return items.map((item) => {
    const approval: Approval = { approved: true, by, at, shown: shownOf(step, item.input) };
    const output: StoredOutput = {
      fingerprint: item.fingerprint,
      workflow,
      step: step.name,
      item: item.key,
      digest: digestOf(approval as unknown as Json).digest,
      output: approval as unknown as Json,
      components: item.components as unknown as Json,
      measured: { durationMs: 0 },
      createdAt: at,
    };
    const done: RunItem = {
      run: runId,
      step: step.name,
      item: item.key,
      status: 'done',
      fingerprint: item.fingerprint,
      digest: output.digest,
      cached: false,
      tries: 1,
      updatedAt: at,
    };
    return { item: done, output };
  });
}

/**
 * The items of the run's review steps that wait for a person, in step and item order: those with no
 * approval of their inputs, not rejected as they are, that the step's rule does not let through.
 */
export async function pendingReviews(
  definition: WorkflowDefinition,
  runId: string,
  store: ResumeStore,
): Promise<PendingReview[]> {
  return (await openReviews(definition, runId, store)).map(({ input: _input, ...item }) => item);
}

/** pendingReviews, each item with its input (what an approval shows). */
async function openReviews(
  definition: WorkflowDefinition,
  runId: string,
  store: ResumeStore,
): Promise<(PendingReview & { readonly input: ItemInput; readonly reviewStep: ReviewStep })[]> {
  const run = await getRun(store, runId, definition);
  const produced = await producedOf(store, runId);
  const view = viewOf(run, produced);
  const marks = invalidationMarks(await store.listInvalidations(runId));
  const pending: (PendingReview & { readonly input: ItemInput; readonly reviewStep: ReviewStep })[] = [];
  for (const step of definition.steps) {
    if (step.kind !== 'review') continue;
    const prepared = itemsOf(step, definition, view, run.params).flatMap((key) => {
      const item = prepareItem(definition, step, key, view, produced, run.params, marks.get(step.name));
      return item === undefined ? [] : [{ key, ...item }];
    });
    const stored = await store.getOutputs(prepared.map((item) => item.fingerprint));
    const rejected = new Set(
      (await store.listRunItems(runId, step.name)).flatMap((item) =>
        item.status === 'failed' ? [item.fingerprint] : [],
      ),
    );
    // Approved, or rejected as it is: nothing for a person to do until its inputs change.
    const open = prepared.filter((item) => !stored.has(item.fingerprint) && !rejected.has(item.fingerprint));
    const { forPerson } = await sortOpenReviews(store, runId, step, open);
    const latest = await store.latestOutputs(definition.name, step.name);
    for (const item of forPerson) {
      const before = latest.get(item.key);
      pending.push({
        step: step.name,
        key: item.key,
        fingerprint: item.fingerprint,
        shown: shownOf(step, item.input),
        ...(before !== undefined && { previous: before.output as unknown as Approval }),
        ...(item.change !== undefined && { change: item.change }),
        reasons: rerunReasons(before === undefined ? undefined : parseComponents(before.components), item.components),
        components: item.components,
        input: item.input,
        reviewStep: step,
      });
    }
  }
  return pending;
}

/** Approves the waiting items `keys` (or all of them): each approval is stored under the item's fingerprint. */
export async function approve(
  definition: WorkflowDefinition,
  runId: string,
  store: ResumeStore,
  decision: { readonly keys: readonly string[] | 'all'; readonly by: string; readonly now?: () => number },
): Promise<PendingReview[]> {
  const chosen = choose(await openReviews(definition, runId, store), decision.keys);
  const at = new Date((decision.now ?? Date.now)()).toISOString();
  const commits: ItemCommit[] = [];
  for (const step of new Set(chosen.map((item) => item.reviewStep))) {
    const ofStep = chosen.filter((item) => item.reviewStep === step);
    commits.push(...approvalCommits(definition.name, runId, step, ofStep, decision.by, at));
  }
  await store.commitItems(commits);
  return chosen.map(({ input: _input, reviewStep: _step, ...item }) => item);
}

/** Rejects the waiting items `keys`: each fails for these inputs, with the reason, until its inputs change. */
export async function reject(
  definition: WorkflowDefinition,
  runId: string,
  store: ResumeStore,
  decision: {
    readonly keys: readonly string[];
    readonly by: string;
    readonly reason: string;
    readonly now?: () => number;
  },
): Promise<PendingReview[]> {
  const chosen = choose(await pendingReviews(definition, runId, store), decision.keys);
  const at = new Date((decision.now ?? Date.now)()).toISOString();
  await store.commitItems(
    chosen.map((item) => ({
      item: {
        run: runId,
        step: item.step,
        item: item.key,
        status: 'failed',
        fingerprint: item.fingerprint,
        error: `rejected by ${decision.by}: ${decision.reason}`,
        tries: 1,
        updatedAt: at,
      },
    })),
  );
  return chosen;
}

function choose<T extends PendingReview>(pending: readonly T[], keys: readonly string[] | 'all'): T[] {
  if (keys === 'all') return [...pending];
  const byKey = new Map(pending.map((item) => [item.key, item]));
  return keys.map((key) => {
    const item = byKey.get(key);
    if (item === undefined) throw new UsageError(`item ${key} is not waiting for review in this run`);
    return item;
  });
}

async function getRun(store: ResumeStore, id: string, definition: WorkflowDefinition): Promise<RunRecord> {
  const run = await store.getRun(id);
  if (run === undefined) throw new NotFoundError(`no workflow run ${id}`);
  if (run.workflow !== definition.name) {
    throw new UsageError(
      `run ${id} is of workflow ${JSON.stringify(run.workflow)}, not ${JSON.stringify(definition.name)}`,
    );
  }
  return run;
}

/** The outputs the run's done items point at: step → item → output and digest. */
async function producedOf(store: ResumeStore, runId: string): Promise<Map<string, Map<string, Produced>>> {
  const done = (await store.listRunItems(runId)).filter((item) => item.status === 'done');
  const outputs = await store.getOutputs(done.map((item) => item.fingerprint));
  const produced = new Map<string, Map<string, Produced>>();
  for (const item of done) {
    const output = outputs.get(item.fingerprint);
    if (output === undefined) continue;
    const ofStep = produced.get(item.step) ?? new Map<string, Produced>();
    produced.set(item.step, ofStep);
    ofStep.set(item.item, { output: output.output, digest: output.digest });
  }
  return produced;
}

function viewOf(run: RunRecord, produced: ReadonlyMap<string, ReadonlyMap<string, Produced>>): RunView {
  return {
    params: run.params,
    keys: (step) => [...(produced.get(step)?.keys() ?? [])],
    output: (step, key) => {
      const found = produced.get(step)?.get(key);
      if (found === undefined) throw new UsageError(`step ${step} has no output for item ${key} in run ${run.id}`);
      return found.output;
    },
  };
}
