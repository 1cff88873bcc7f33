import { describeError, UsageError } from '../core/errors.js';
import type { Json, Measured, OutputRecord, ResumeStore, RunItem, StoredOutput } from '../store/resume-store.js';
import type { RunView, StepDefinition, WorkflowDefinition } from './define.js';
import { type FingerprintComponents, parseComponents, type RerunReason, rerunReasons } from './fingerprint.js';
import { NOT_LOADED, OnDemandOutputs } from './on-demand-outputs.js';
import { type Fingerprinted, fingerprintItem, itemsOf } from './prepare.js';

/** Why an item will run: its fingerprint's components changed, it failed last time, or its step was invalidated. */
export type PlanReason = RerunReason | 'failed' | 'invalidated';

/** The reasons in the order a plan reports them. */
export const PLAN_REASONS: readonly PlanReason[] = [
  'new',
  'failed',
  'version',
  'params',
  'model',
  'upstream',
  'invalidated',
];

/**
 * A step's per-item cost is measured on a sample of 200 of the run's outputs of it (evenly spread,
 * plus any the plan reads anyway): 19 times in 20 their mean is within 0.14 standard deviations of
 * the mean of all (1.96/√200), and reading 200 outputs a step rather than 2,000 is what keeps a plan
 * of 2,000 items × 7 steps within its 200 ms.
 */
const HISTORY_SAMPLE = 200;

/**
 * What the plan expects of an item's stored output, for the items that read it: the same (cached),
 * the same by an `assumeChanged` assumption, unknown (it will or may run), or changed (assumed).
 * An item with no output at all has no state.
 */
type OutputState = 'same' | 'assumed-same' | 'unknown' | 'changed';

/** How much each state weighs when an item reads several: the worst one decides. */
const WEIGHT: Readonly<Record<OutputState, number>> = { same: 0, 'assumed-same': 1, unknown: 2, changed: 3 };

/** The output the plan expects of an item: the stored one under `fingerprint`, with its digest. */
interface Expected {
  readonly fingerprint: string;
  readonly digest: string;
  readonly state: OutputState;
}

/** Thrown by the plan's RunView when a step's output values are not loaded yet; the planner loads and retries. */
class OutputsNeeded extends Error {
  constructor(readonly step: string) {
    super(`the outputs of step ${step} are not loaded`);
  }
}

/**
 * The planner's picture of the run so far: each planned step's keys and expected outputs. Output
 * values are loaded only for steps an items function or a selector reads (`resolve`).
 */
export class PlanState extends OnDemandOutputs {
  readonly #store: ResumeStore;
  readonly #expected = new Map<string, ReadonlyMap<string, Expected>>();
  readonly #values = new Map<string, ReadonlyMap<string, Json>>();
  readonly #keys = new Map<string, readonly string[]>();
  /** What an items function or a read selector sees: the outputs the plan expects. */
  readonly view: RunView;

  constructor(store: ResumeStore, params: Readonly<Record<string, Json>>) {
    super();
    this.#store = store;
    this.view = {
      params,
      keys: (step) => this.#keys.get(step) ?? [],
      output: (step, key) => {
        const values = this.#values.get(step);
        if (values === undefined && this.#expected.get(step)?.has(key)) {
          this.markMissing(step);
          throw new OutputsNeeded(step);
        }
        const value = values?.get(key);
        if (value === undefined) throw new UsageError(`step ${step} has no stored output for item ${key}`);
        return value;
      },
    };
  }

  setKeys(step: string, keys: readonly string[]): void {
    this.#keys.set(step, keys);
  }

  setExpected(step: string, expected: ReadonlyMap<string, Expected>): void {
    this.#expected.set(step, expected);
  }

  /** The digest of the output the plan expects of an upstream item, if it has one. */
  digestOf(step: string, key: string): string | undefined {
    return this.#expected.get(step)?.get(key)?.digest;
  }

  /** The worst state among the upstream outputs an item's fingerprint took in. */
  inputState(inputs: FingerprintComponents['inputs']): OutputState {
    let worst: OutputState = 'same';
    for (const [step, key] of inputs) {
      const state = this.#expected.get(step)?.get(key)?.state ?? 'unknown';
      if (WEIGHT[state] > WEIGHT[worst]) worst = state;
    }
    return worst;
  }

  /** Loads the values of the step the last `attempt` found missing. */
  async loadMissing(): Promise<void> {
    if (this.missingStep !== undefined) await this.#load(this.missingStep);
  }

  /** Loads the values of the outputs the plan expects of `step` (one getOutputs). */
  async #load(step: string): Promise<void> {
    const expected = [...(this.#expected.get(step) ?? new Map<string, Expected>()).entries()];
    const found = await this.#store.getOutputs(expected.map(([, entry]) => entry.fingerprint));
    const values = new Map<string, Json>();
    for (const [key, entry] of expected) {
      const output = found.get(entry.fingerprint);
      if (output !== undefined) values.set(key, output.output);
    }
    this.#values.set(step, values);
  }
}

export interface StepItemsInput {
  readonly definition: WorkflowDefinition;
  readonly step: StepDefinition;
  readonly params: Readonly<Record<string, Json>>;
  readonly store: ResumeStore;
  /**
   * The digests of the outputs the run's done items of this step use, still stored, by fingerprint,
   * in item order (outputDigests): an item whose fingerprint is among them is the run's as it is.
   */
  readonly done: ReadonlyMap<string, string>;
  /** The run's items of this step, by key, loaded once when first asked for: only when some item is not done as it is. */
  readonly runItems: () => Promise<ReadonlyMap<string, RunItem>>;
  readonly invalidated: boolean;
  /** The mark of the step's latest recorded invalidation in the run (`workflow invalidate`). */
  readonly mark?: string;
  readonly assumeChanged: number | undefined;
  /** The step's newest stored outputs by item, loaded once when first asked for. */
  readonly latest: () => Promise<ReadonlyMap<string, StoredOutput>>;
}

/** One step's items, sorted by what a resume would do with them. */
export interface StepItems {
  /** The items' keys, when they could be listed (empty when counted from the estimate). */
  readonly keys: readonly string[];
  /** How many items the step has: its keys, or the estimate's count. */
  readonly count: number;
  readonly cached: number;
  readonly willRun: number;
  /** Items that will run, by reason; an item with several reasons counts under each. */
  readonly reasons: Partial<Record<PlanReason, number>>;
  readonly mayRun: number;
  /** The keys of the items that will or may run. */
  readonly pending: readonly string[];
  /**
   * True when the counts are estimates: they rest on which outputs an `assumeChanged` figure was
   * taken to change, or on the step's declared `estimate.items`.
   */
  readonly estimated: boolean;
  /** What the step's outputs the plan read were measured to cost (its history in this run). */
  readonly measured: readonly Measured[];
  readonly notes: readonly string[];
}

const NO_RUN_ITEMS: ReadonlyMap<string, RunItem> = new Map();

type Verdict =
  | { readonly run: 'cached' }
  | { readonly run: 'may' }
  | { readonly run: 'will'; readonly reasons: readonly PlanReason[] };
const CACHED: Verdict = { run: 'cached' };
const MAY: Verdict = { run: 'may' };

/** Plans `input.step`'s items against `state`, and records the step's expected outputs in it. */
export async function planStepItems(input: StepItemsInput, state: PlanState): Promise<StepItems> {
  const { definition, step, params, done } = input;
  const notes: string[] = [];
  const listed = await keysOf(input, state, notes);
  if (typeof listed === 'number') {
    state.setKeys(step.name, []);
    return estimatedItems(listed, notes);
  }
  const keys = listed;
  state.setKeys(step.name, keys);

  const prepared = new Map<string, Fingerprinted | undefined>();
  const digestOf = (upstream: string, key: string) => state.digestOf(upstream, key);
  let unresolved: string | undefined;
  for (const key of keys) {
    // Synchronous unless a selector asks for output values not loaded yet (state.resolve, inlined:
    // an await per item would cost more than the fingerprint).
    for (;;) {
      let item: Fingerprinted | undefined | typeof NOT_LOADED;
      try {
        item = state.attempt(() => fingerprintItem(definition, step, key, state.view, params, digestOf, input.mark));
      } catch (error) {
        // A read selector that needs an upstream output the run does not have: the item waits on it.
        item = undefined;
        unresolved ??= `${key}: ${describeError(error)}`;
      }
      if (item === NOT_LOADED) {
        await state.loadMissing();
        continue;
      }
      prepared.set(key, item);
      break;
    }
  }
  if (unresolved !== undefined) {
    notes.push(`reads of some items name upstream outputs not stored yet (first: ${unresolved}); they will run`);
  }

  // The run's items are read only for the items it has not done as they are now.
  const isDone = (item: Fingerprinted | undefined): boolean => item !== undefined && done.has(item.fingerprint);
  const runItems = keys.every((key) => isDone(prepared.get(key))) ? NO_RUN_ITEMS : await input.runItems();

  // What to ask the store: fingerprints other than the done item's (is an output stored under it?),
  // the done item's output then (its components say why), and a sample of outputs to measure. Their
  // records only: nothing here reads an output's value (the statements' pull output is 16 MB).
  const lookup = new Set<string>();
  for (const [key, item] of prepared) {
    if (item === undefined || isDone(item)) continue;
    const before = runItems.get(key);
    lookup.add(item.fingerprint);
    if (before?.status === 'done') lookup.add(before.fingerprint);
  }
  const sample = [...done.keys()];
  for (const fingerprint of spread(sample, Math.min(HISTORY_SAMPLE, sample.length))) lookup.add(fingerprint);
  const outputs = await input.store.getOutputRecords([...lookup]);
  const needsLatest = keys.some((key) => {
    const item = prepared.get(key);
    const before = runItems.get(key);
    return (
      item !== undefined &&
      !isDone(item) &&
      !outputs.has(item.fingerprint) &&
      (before === undefined || (before.status === 'failed' && before.fingerprint !== item.fingerprint))
    );
  });
  const latest: ReadonlyMap<string, OutputRecord> = needsLatest ? await input.latest() : new Map();

  const verdicts = new Map<string, Verdict>();
  const expected = new Map<string, Expected>();
  let estimated = false;
  for (const key of keys) {
    const item = prepared.get(key);
    const before = runItems.get(key);
    const stored = before?.status === 'done' ? before : undefined;
    const doneDigest = item === undefined ? undefined : done.get(item.fingerprint);
    const hit: Pick<Expected, 'fingerprint' | 'digest'> | undefined =
      item === undefined
        ? undefined
        : doneDigest !== undefined
          ? { fingerprint: item.fingerprint, digest: doneDigest }
          : outputs.get(item.fingerprint);
    const basis = item === undefined ? 'unknown' : state.inputState(item.components.inputs);
    let verdict: Verdict;
    if (item === undefined) {
      verdict = { run: 'will', reasons: [before?.status === 'failed' ? 'failed' : stored ? 'upstream' : 'new'] };
    } else if (hit !== undefined) {
      verdict = basis === 'changed' ? { run: 'will', reasons: ['upstream'] } : basis === 'unknown' ? MAY : CACHED;
      if (!input.invalidated && (basis === 'changed' || basis === 'assumed-same')) estimated = true;
    } else {
      const previous = stored === undefined ? undefined : outputs.get(stored.fingerprint);
      const reasons = reasonsFor(before, previous, latest.get(key), item);
      if (basis === 'changed' && !reasons.includes('upstream')) reasons.push('upstream');
      verdict = { run: 'will', reasons };
    }
    if (input.invalidated) {
      verdict = { run: 'will', reasons: [...(verdict.run === 'will' ? verdict.reasons : []), 'invalidated'] };
    }
    verdicts.set(key, verdict);
    const output = hit ?? stored;
    if (output !== undefined) {
      const outputState = verdict.run !== 'cached' ? 'unknown' : basis === 'assumed-same' ? 'assumed-same' : 'same';
      expected.set(key, { fingerprint: output.fingerprint, digest: output.digest, state: outputState });
    }
  }

  if (input.assumeChanged !== undefined) {
    const candidates = keys.filter((key) => verdicts.get(key)?.run !== 'cached' && expected.has(key));
    if (input.assumeChanged > candidates.length) {
      throw new UsageError(
        `assume-changed ${step.name}=${input.assumeChanged}: only ${candidates.length} of its items have a stored output a resume may change`,
      );
    }
    const chosen = new Set(spread(candidates, input.assumeChanged));
    for (const key of candidates) {
      const entry = expected.get(key) as Expected;
      expected.set(key, { ...entry, state: chosen.has(key) ? 'changed' : 'assumed-same' });
      if (chosen.has(key) && verdicts.get(key)?.run === 'may')
        verdicts.set(key, { run: 'will', reasons: ['upstream'] });
    }
  }
  state.setExpected(step.name, expected);

  let cached = 0;
  let willRun = 0;
  let mayRun = 0;
  const counts = new Map<PlanReason, number>();
  for (const verdict of verdicts.values()) {
    if (verdict.run === 'cached') cached += 1;
    else if (verdict.run === 'may') mayRun += 1;
    else {
      willRun += 1;
      for (const reason of verdict.reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
    }
  }
  const reasons: Partial<Record<PlanReason, number>> = {};
  for (const reason of PLAN_REASONS) {
    const count = counts.get(reason);
    if (count !== undefined) reasons[reason] = count;
  }
  const measured = [...outputs.values()].map((output) => output.measured);
  const pending = [...verdicts].flatMap(([key, verdict]) => (verdict.run === 'cached' ? [] : [key]));
  return { keys, count: keys.length, cached, willRun, reasons, mayRun, pending, estimated, measured, notes };
}

/**
 * The step's item keys: from its items function over the expected outputs; when that throws (an
 * upstream output it needs is not stored yet), the run's own items of the step, else those earlier
 * runs stored, else the count the step's estimate declares (`estimate.items`) — said in a note, since
 * the item set may differ once the upstream has run.
 */
async function keysOf(input: StepItemsInput, state: PlanState, notes: string[]): Promise<readonly string[] | number> {
  try {
    return await state.resolve(() => itemsOf(input.step, input.definition, state.view, input.params));
  } catch (error) {
    const why = `its items cannot be listed yet (${describeError(error)})`;
    const fromRun = [...(await input.runItems()).keys()];
    if (fromRun.length > 0) {
      notes.push(`${why}: counted from the run's items of the step`);
      return fromRun;
    }
    const fromEarlier = [...(await input.latest()).keys()];
    if (fromEarlier.length > 0) {
      notes.push(`${why}: counted from earlier runs' outputs of the step`);
      return fromEarlier;
    }
    const declared = input.step.estimate?.items;
    if (declared !== undefined) {
      notes.push(`${why}: ${declared} counted from the step's estimate`);
      return declared;
    }
    notes.push(`${why}: none counted (declare estimate.items to count them)`);
    return [];
  }
}

/**
 * A step whose items cannot be listed, counted from its estimate: every one of them is new and will
 * run, and no output of it is expected (what reads it is planned as reading unknown outputs).
 */
function estimatedItems(count: number, notes: readonly string[]): StepItems {
  return {
    keys: [],
    count,
    cached: 0,
    willRun: count,
    reasons: count > 0 ? { new: count } : {},
    mayRun: 0,
    pending: [],
    estimated: true,
    measured: [],
    notes,
  };
}

/**
 * Why an item with no output under its fingerprint will run: it failed last time (and whatever
 * changed since), or what differs from the components of its previous output — the run's, else the
 * newest stored one — `new` when there is none.
 */
function reasonsFor(
  before: RunItem | undefined,
  previous: OutputRecord | undefined,
  latest: OutputRecord | undefined,
  item: Fingerprinted,
): PlanReason[] {
  if (before?.status === 'failed') {
    if (before.fingerprint === item.fingerprint) return ['failed'];
    const components = componentsOf(latest);
    const changed = components ? rerunReasons(components, item.components).filter((reason) => reason !== 'new') : [];
    return ['failed', ...changed];
  }
  const reasons: PlanReason[] = rerunReasons(componentsOf(previous ?? latest), item.components);
  // Components equal but the fingerprint differs: an output stored by another engine version.
  return reasons.length > 0 ? reasons : ['new'];
}

function componentsOf(output: OutputRecord | undefined): FingerprintComponents | undefined {
  return output === undefined ? undefined : parseComponents(output.components);
}

/** `count` of `entries`, spread evenly over them in order (the middle of each of `count` equal slices). */
function spread<T>(entries: readonly T[], count: number): T[] {
  const chosen: T[] = [];
  for (let index = 0; index < count; index += 1) {
    chosen.push(entries[Math.floor(((index + 0.5) * entries.length) / count)] as T);
  }
  return chosen;
}
