/**
 * What a step item is computed from, and its fingerprint: the one place both the runner (run.ts)
 * and the planner (plan.ts) derive a step's item keys, the upstream outputs an item reads and the
 * fingerprint those give, so a plan's "cached" is exactly what a resume would reuse. Pure functions
 * of the definition, the run's parameters and the upstream outputs the caller holds; they own
 * nothing and run nothing.
 */
import type { Invalidation, Json } from '../store/resume-store.js';
import type { ItemInput, Read, RunView, StepDefinition, WorkflowDefinition } from './define.js';
import { SINGLE_ITEM } from './define.js';
import { type FingerprintComponents, fingerprintWithText } from './fingerprint.js';

/** An upstream item's output, as the caller holds it: the value and its digest. */
export interface Produced {
  readonly output: Json;
  readonly digest: string;
}

/** The step's item keys in a run: `all` for a single step, the source's items, or its items function's. */
export function itemsOf(
  step: StepDefinition,
  definition: WorkflowDefinition,
  view: RunView,
  params: Readonly<Record<string, Json>>,
): readonly string[] {
  if (step.items === 'single') return [SINGLE_ITEM];
  if (step.items === 'source') return definition.source?.(params) ?? [];
  return step.items(view);
}

/** The keys of `read.step` that item `key` reads. */
function readKeys(read: Read, key: string, view: RunView): readonly string[] {
  return read.items === 'same' ? [key] : read.items === 'all' ? view.keys(read.step) : read.items(key, view);
}

/** An item's fingerprint and what it is made of. */
export interface Fingerprinted {
  readonly components: FingerprintComponents;
  /** The components' canonical JSON: what the fingerprint hashes, kept beside the output. */
  readonly componentsText: string;
  readonly fingerprint: string;
}

/** An item ready to compute: what its fingerprint is made of, the fingerprint, and its input. */
export interface PreparedItem extends Fingerprinted {
  readonly input: ItemInput;
}

/** Orders input triples by upstream step, then item key (code point order). */
function byStepThenKey(a: readonly [string, string, string], b: readonly [string, string, string]): number {
  return a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1;
}

/**
 * The item's fingerprint from the digests of the upstream outputs it reads, or undefined when
 * `digestOf` has none for one of them (it failed, was blocked, or has not run).
 */
export function fingerprintItem(
  definition: WorkflowDefinition,
  step: StepDefinition,
  key: string,
  view: RunView,
  runParams: Readonly<Record<string, Json>>,
  digestOf: (step: string, key: string) => string | undefined,
  /** The mark of the step's latest invalidation in this run (`workflow invalidate`), if any. */
  invalidated?: string,
): Fingerprinted | undefined {
  const digests: (readonly [string, string, string])[] = [];
  for (const read of step.reads ?? []) {
    for (const upstreamKey of readKeys(read, key, view)) {
      const digest = digestOf(read.step, upstreamKey);
      if (digest === undefined) return undefined;
      digests.push([read.step, upstreamKey, digest]);
    }
  }
  if (digests.length > 1) digests.sort(byStepThenKey);
  const params: Record<string, Json> = {};
  for (const name of step.params ?? []) params[name] = runParams[name] as Json;
  const components: FingerprintComponents = {
    workflow: definition.name,
    step: step.name,
    version: step.version,
    item: key,
    params,
    ...(step.kind === 'model' && { model: step.model }),
    inputs: digests,
    ...(invalidated !== undefined && { invalidated }),
  };
  const { text, fingerprint } = fingerprintWithText(components);
  return { components, componentsText: text, fingerprint };
}

/**
 * The item's input and fingerprint, or undefined when an upstream item it reads has no output in
 * `produced` (it failed, was blocked, or has not run). `view` must show the outputs of `produced`.
 */
export function prepareItem(
  definition: WorkflowDefinition,
  step: StepDefinition,
  key: string,
  view: RunView,
  produced: ReadonlyMap<string, ReadonlyMap<string, Produced>>,
  runParams: Readonly<Record<string, Json>>,
  invalidated?: string,
): PreparedItem | undefined {
  const digestOf = (upstreamStep: string, upstreamKey: string) => produced.get(upstreamStep)?.get(upstreamKey)?.digest;
  const fingerprinted = fingerprintItem(definition, step, key, view, runParams, digestOf, invalidated);
  if (fingerprinted === undefined) return undefined;
  // Named fields rather than a spread of `fingerprinted`: this runs once per item, and is faster so.
  const { components, componentsText, fingerprint } = fingerprinted;
  return { components, componentsText, fingerprint, input: inputOf(step, key, view, components.params) };
}

/**
 * What item `key` of `step` computes from: `params` (the run parameters it declares, as its
 * fingerprint took them) and the upstream outputs it reads, taken from `view` — step → item key →
 * output, steps in the order the reads name them, keys in the order each read gives them. Call it
 * for an item whose fingerprint was made (every output it reads exists); the view throws for an
 * output it cannot show.
 */
export function inputOf(
  step: StepDefinition,
  key: string,
  view: RunView,
  params: Readonly<Record<string, Json>>,
): ItemInput {
  const inputs: Record<string, Record<string, Json>> = {};
  const reads = step.reads ?? [];
  for (const read of reads) inputs[read.step] = {};
  for (const read of reads) {
    const ofStep = inputs[read.step] as Record<string, Json>;
    for (const upstreamKey of readKeys(read, key, view)) ofStep[upstreamKey] = view.output(read.step, upstreamKey);
  }
  return { key, params, inputs };
}

/** Each step's invalidation mark: the time of its latest recorded invalidation in the run. */
export function invalidationMarks(invalidations: readonly Invalidation[]): Map<string, string> {
  const marks = new Map<string, string>();
  for (const { step, at } of invalidations) if ((marks.get(step) ?? '') < at) marks.set(step, at);
  return marks;
}
