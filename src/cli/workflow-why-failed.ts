/**
 * `harmflow workflow why RUN STEP --failed`: what a step's failures read that its passes did not.
 * The step's items in the run are split into failures — items that FAILED (a defect) and items
 * whose output is a failing verdict (`{ok: false, …}`, as the statements fact-check gives) — and
 * passes (every other item with a stored output). What each read is followed up `depth` levels
 * through the fingerprint components stored with outputs, as `why` follows one item. Each upstream
 * output read (step, item, digest, and the version that computed it), each version of a step and
 * each step whose outputs were read other than as they are now is counted among the failures and the
 * passes, and ranked by how unlikely so many failures among its readers would be by chance. Nothing
 * is computed but counts, and nothing of an output's meaning is read but `ok: false`: the report is
 * correlation over what was read, as the verdict says.
 *
 * The measure: for an upstream output read by `n` of the `N` compared items, `f` of them failures
 * (of `F`), the one-sided Fisher exact test — the hypergeometric chance of at least `f` failures
 * among `n` items drawn from `N` holding `F` — which weighs both how many failures read it and how
 * few passes do (lift alone ranks an input read by one failure and no pass first, and each item's
 * own upstream items are such inputs). It is called strong when at least 2 failures read it and its
 * chance is at most ALPHA divided by the number of things the failures read (Bonferroni): among a
 * thousand outputs a 1-in-a-thousand coincidence is expected once. The verdict names the deepest
 * step with a strong output, version or state: the furthest upstream the failures' inputs part from
 * the passes'.
 *
 * Read-only; it reads every compared item's output and, for the version, every output they read
 * (in the statements case the pull output's 16 MB once).
 */
import { NotFoundError } from '../core/errors.js';
import type { Json, ResumeStore, RunItem, RunRecord, StoredOutput } from '../store/resume-store.js';
import { parseComponents } from '../workflows/fingerprint.js';
import {
  componentsRead,
  DEFAULT_DEPTH,
  DEFAULT_INPUTS,
  EarlierOutputs,
  type InputState,
  RunItems,
  stateOf,
} from './workflow-why-reads.js';

/**
 * 0.05 over the whole report: the chance that any output the report calls strong is a coincidence
 * is at most 5% (Bonferroni over what the failures read).
 */
export const ALPHA = 0.05;

/**
 * 1,000 outputs per store read: the statements fact-check's 1,411 outputs and their ≈1,200 upstream
 * items in a few reads, while the values of one read (categorise batches of ≈4 kB) stay a few MB.
 */
const CHUNK = 1000;

/** What a compared item may have read that the failures and the passes are counted against. */
export interface Feature {
  /**
   * `output`: one upstream output (step, item, digest); `version`: any output of `step` computed at
   * `version`; `not-as-read`: any output of `step` whose run item is no longer the one read.
   */
  readonly kind: 'output' | 'version' | 'not-as-read';
  readonly step: string;
  /** The fewest levels up it was read at (1: by the failed step's items themselves). */
  readonly level: number;
  readonly item?: string;
  readonly digest?: string;
  /** Of an `output`: the step version that computed it, when the store still tells (its run item is as read). */
  readonly version?: string;
  /** Compared failures that read it. */
  readonly failures: number;
  /** Compared passes that read it. */
  readonly passes: number;
  /** The failures expected among its readers by chance: readers × F / N. */
  readonly expected: number;
  /** (failures / F) / (passes / P): how much more often failures read it; null when no pass does. */
  readonly lift: number | null;
  /** The one-sided Fisher exact test: the chance of at least `failures` failures among its readers. */
  readonly chance: number;
  /** At least 2 failures read it and `chance` is at most the report's threshold. */
  readonly strong: boolean;
}

/** One upstream step, as the compared items read it. */
export interface UpstreamStep {
  readonly step: string;
  /** The fewest levels up it is read at. */
  readonly level: number;
  /** The steps whose items read it (the failed step itself at level 1). */
  readonly via: readonly string[];
  /** Its distinct outputs read by the compared items. */
  readonly outputs: number;
  /** Of those, read by at least one failure, and by two failures or more. */
  readonly readByFailures: number;
  readonly sharedByFailures: number;
  /** Compared failures and passes that read any of its outputs. */
  readonly failuresReading: number;
  readonly passesReading: number;
  /** Each version its outputs were computed at, as read. */
  readonly versions: readonly Feature[];
  /** The items that read an output of it that is no longer as read; absent when every item read them as they are. */
  readonly notAsRead?: Feature;
  /** Its outputs read by two failures or more, least likely by chance first, up to the `shown` limit. */
  readonly ranked: readonly Feature[];
  /** Its strong outputs, all of them (`ranked` may show fewer). */
  readonly strong: number;
}

/** What the counts say, in one line's worth. */
export type FailureVerdict =
  | { readonly kind: 'no-failures' }
  /** Nothing to compare: fewer than 2 failures with known reads, or no pass. */
  | { readonly kind: 'not-comparable'; readonly reason: 'one-failure' | 'no-passes' }
  | {
      readonly kind: 'separated';
      /** The deepest step with a strong feature, and its strongest. */
      readonly step: string;
      readonly level: number;
      readonly best: Feature;
      /** The step's strong features, and the failures and passes that read any of them. */
      readonly strong: number;
      readonly failures: number;
      readonly passes: number;
      /** Other steps with strong features, deepest first. */
      readonly also: readonly { readonly step: string; readonly level: number }[];
    }
  | {
      readonly kind: 'not-separated';
      /** The feature least likely by chance among those read by 2 failures or more and not by every item. */
      readonly strongest?: Feature;
      /**
       * The steps with an output read by 2 failures or more that not every compared item read,
       * deepest first: where a shared cause among what was read could be.
       */
      readonly shared: readonly { readonly step: string; readonly level: number }[];
    };

export interface FailureReport {
  readonly run: RunRecord;
  readonly step: string;
  readonly depth: number;
  /** The step's items in the run. */
  readonly items: number;
  /** Failures: items that FAILED, and items whose output is a failing verdict. */
  readonly failed: number;
  readonly verdicts: number;
  readonly passes: number;
  /** Done items whose output is no longer stored: neither a failure nor a pass. */
  readonly unstored: number;
  /** The first failures, in key order (up to 10). */
  readonly examples: readonly string[];
  /** Failures whose reads are not known (a FAILED item with no output of the same inputs stored): left out. */
  readonly unknownReads: number;
  /** The failures and passes whose reads were compared. */
  readonly compared: { readonly failures: number; readonly passes: number };
  /** Features read by at least one failure: the Bonferroni count. */
  readonly tested: number;
  /** ALPHA / tested: a feature's chance at most this is strong. */
  readonly threshold: number;
  /** Upstream steps, by level and then in the order they were first read. */
  readonly steps: readonly UpstreamStep[];
  readonly verdict: FailureVerdict;
}

export interface FailedOptions {
  /** Levels of inputs to follow; at least 1. */
  readonly depth?: number;
  /** Outputs ranked per upstream step; at least 1. */
  readonly shown?: number;
}

/** Failures listed by key in the report. */
const EXAMPLES = 10;

/** An output read: what a compared item read, at the fewest levels up. */
interface Read {
  readonly step: string;
  readonly item: string;
  readonly digest: string;
  readonly state: InputState;
  readonly level: number;
}

/** A step item's inputs as the run's item for it says, and the version that computed its output. */
interface Expanded {
  readonly inputs: readonly (readonly [string, string, string])[] | undefined;
  readonly version: string | undefined;
}

/** Counting one feature. */
interface Tally {
  readonly kind: Feature['kind'];
  readonly step: string;
  level: number;
  readonly item?: string;
  readonly digest?: string;
  version?: string;
  failures: number;
  passes: number;
}

/** An output with a failing verdict: an object with `ok: false`. */
export function isFailingVerdict(output: Json): boolean {
  return (
    typeof output === 'object' && output !== null && !Array.isArray(output) && (output as { ok?: Json }).ok === false
  );
}

/**
 * What the failures of `step` in run `runId` read that its passes did not. Rejects with NotFoundError
 * for an unknown run or a step with no items in the run.
 */
export async function explainFailures(
  store: ResumeStore,
  runId: string,
  step: string,
  options: FailedOptions = {},
): Promise<FailureReport> {
  const depth = options.depth ?? DEFAULT_DEPTH;
  const shown = options.shown ?? DEFAULT_INPUTS;
  const run = await store.getRun(runId);
  if (run === undefined) throw new NotFoundError(`no workflow run ${runId} in this HARMFLOW_HOME`);
  const items = new RunItems(store, runId);
  const ofStep = [...(await items.of(step)).values()];
  if (ofStep.length === 0) throw new NotFoundError(`run ${runId} has no items of step ${step}`);
  const earlier = new EarlierOutputs(store, run.workflow);

  // The step's items: failures and passes, each with what it read.
  let failed = 0;
  let verdicts = 0;
  let unstored = 0;
  let unknownReads = 0;
  const examples: string[] = [];
  const roots: { readonly item: string; readonly failure: boolean; readonly inputs: Expanded['inputs'] }[] = [];
  for (const chunk of chunks(ofStep)) {
    const stored = await store.getOutputs(chunk.flatMap((item) => (item.status === 'done' ? [item.fingerprint] : [])));
    for (const runItem of chunk) {
      const own = stored.get(runItem.fingerprint);
      if (runItem.status === 'done' && own === undefined) {
        unstored += 1;
        continue;
      }
      const failure = runItem.status === 'failed' || (own !== undefined && isFailingVerdict(own.output));
      if (failure) {
        if (runItem.status === 'failed') failed += 1;
        else verdicts += 1;
        if (examples.length < EXAMPLES) examples.push(runItem.item);
      }
      const read = await componentsRead(runItem, own, earlier, items);
      if ('note' in read || read.basis === 'earlier') {
        if (failure) unknownReads += 1;
        continue;
      }
      roots.push({ item: runItem.item, failure, inputs: read.components.inputs });
    }
  }
  const base = { run, step, depth, items: ofStep.length, failed, verdicts, unstored, examples, unknownReads };
  const F = roots.filter((root) => root.failure).length;
  const P = roots.length - F;
  const compared = { failures: F, passes: P };
  if (failed + verdicts === 0) {
    return { ...base, passes: P, compared, tested: 0, threshold: ALPHA, steps: [], verdict: { kind: 'no-failures' } };
  }

  // Each root's reads, level by level, through the run's items now (as `why` follows them).
  const expanded = new Map<string, Expanded>();
  const readsOf = roots.map(() => new Map<string, Read>());
  let frontier: { root: number; step: string; inputs: Expanded['inputs'] }[] = roots.map((root, index) => ({
    root: index,
    step,
    inputs: root.inputs,
  }));
  const visited = roots.map((root) => new Set([nodeKey(step, root.item)]));
  /** The steps whose items read each upstream step. */
  const via = new Map<string, Set<string>>();
  for (let level = 1; level <= depth && frontier.length > 0; level += 1) {
    const reached: { root: number; step: string; item: string }[] = [];
    for (const { root, step: reader, inputs } of frontier) {
      const reads = readsOf[root] as Map<string, Read>;
      for (const [upstream, item, digest] of inputs ?? []) {
        const readers = via.get(upstream) ?? new Set<string>();
        via.set(upstream, readers.add(reader));
        const key = readKey(upstream, item, digest);
        if (!reads.has(key)) {
          const now = (await items.of(upstream)).get(item);
          reads.set(key, { step: upstream, item, digest, state: stateOf(now, digest), level });
        }
        const node = nodeKey(upstream, item);
        const seen = visited[root] as Set<string>;
        if (level < depth && !seen.has(node)) {
          seen.add(node);
          reached.push({ root, step: upstream, item });
        }
      }
    }
    await expand(store, items, earlier, expanded, reached);
    frontier = reached.map(({ root, step: upstream, item }) => ({
      root,
      step: upstream,
      inputs: expanded.get(nodeKey(upstream, item))?.inputs,
    }));
  }
  // The version of every output read whose run item is still the one read.
  const asRead = readsOf.flatMap((reads) => [...reads.values()].filter((read) => read.state === 'as-read'));
  await expand(store, items, earlier, expanded, asRead);

  // Counts: each root counts a feature once, however many of its reads have it.
  const versionOf = (read: Read): string | undefined =>
    read.state === 'as-read' ? expanded.get(nodeKey(read.step, read.item))?.version : undefined;
  const tallies = new Map<string, Tally>();
  const stepOrder = new Map<string, { level: number; failures: number; passes: number }>();
  for (const [index, root] of roots.entries()) {
    const seen = new Set<string>();
    const steps = new Set<string>();
    for (const read of (readsOf[index] as Map<string, Read>).values()) {
      const at = stepOrder.get(read.step) ?? { level: read.level, failures: 0, passes: 0 };
      stepOrder.set(read.step, at);
      at.level = Math.min(at.level, read.level);
      if (!steps.has(read.step)) {
        steps.add(read.step);
        if (root.failure) at.failures += 1;
        else at.passes += 1;
      }
      for (const { key, tally } of featuresOf(read, versionOf(read))) {
        if (seen.has(key)) continue;
        seen.add(key);
        const counted = tallies.get(key) ?? tally;
        tallies.set(key, counted);
        counted.level = Math.min(counted.level, read.level);
        if (root.failure) counted.failures += 1;
        else counted.passes += 1;
      }
    }
  }

  const tested = [...tallies.values()].filter((tally) => tally.failures > 0).length;
  const threshold = ALPHA / Math.max(1, tested);
  const logFactorials = logFactorialsTo(F + P);
  const features = new Map<string, Feature>();
  for (const [key, tally] of tallies) {
    const readers = tally.failures + tally.passes;
    const chance = hypergeometricTail(F + P, F, readers, tally.failures, logFactorials);
    features.set(key, {
      ...tally,
      expected: F + P === 0 ? 0 : (readers * F) / (F + P),
      lift: tally.passes === 0 || F === 0 ? null : tally.failures / F / (tally.passes / P),
      chance,
      strong: tally.failures >= 2 && P > 0 && chance <= threshold,
    });
  }

  const steps: UpstreamStep[] = [...stepOrder]
    .sort(([, a], [, b]) => a.level - b.level)
    .map(([upstream, at]) => {
      const of = (kind: Feature['kind']) =>
        [...features.values()].filter((feature) => feature.kind === kind && feature.step === upstream);
      const outputs = of('output');
      const shared = outputs.filter((feature) => feature.failures >= 2).sort(byChance);
      const notAsRead = of('not-as-read')[0];
      return {
        step: upstream,
        level: at.level,
        via: [...(via.get(upstream) ?? [])],
        outputs: outputs.length,
        readByFailures: outputs.filter((feature) => feature.failures > 0).length,
        sharedByFailures: shared.length,
        failuresReading: at.failures,
        passesReading: at.passes,
        versions: of('version').sort((a, b) => a.version?.localeCompare(b.version ?? '') ?? 0),
        ...(notAsRead !== undefined && { notAsRead }),
        ranked: shared.slice(0, shown),
        strong: outputs.filter((feature) => feature.strong).length,
      };
    });

  return {
    ...base,
    passes: P,
    compared,
    tested,
    threshold,
    steps,
    verdict: verdictOf(F, P, features, steps, roots, readsOf, versionOf),
  };
}

/** The verdict from the features: the deepest step with a strong one, or the strongest there is. */
function verdictOf(
  F: number,
  P: number,
  features: Map<string, Feature>,
  steps: readonly UpstreamStep[],
  roots: readonly { readonly failure: boolean }[],
  readsOf: readonly Map<string, Read>[],
  versionOf: (read: Read) => string | undefined,
): FailureVerdict {
  if (F < 2) return { kind: 'not-comparable', reason: 'one-failure' };
  if (P === 0) return { kind: 'not-comparable', reason: 'no-passes' };
  const all = [...features.values()];
  const strong = all.filter((feature) => feature.strong);
  const deepestFirst = (a: { level: number }, b: { level: number }) => b.level - a.level;
  if (strong.length === 0) {
    // A feature every compared item reads cannot separate them: not a candidate.
    const strongest = all
      .filter((feature) => feature.failures >= 2 && feature.failures + feature.passes < F + P)
      .sort(byChance)[0];
    const shared = steps
      .filter((upstream) =>
        all.some(
          (feature) =>
            feature.kind === 'output' &&
            feature.step === upstream.step &&
            feature.failures >= 2 &&
            feature.failures + feature.passes < F + P,
        ),
      )
      .map(({ step, level }) => ({ step, level }))
      .sort(deepestFirst);
    return { kind: 'not-separated', ...(strongest !== undefined && { strongest }), shared };
  }
  const byStep = new Map<string, Feature[]>();
  for (const feature of strong) byStep.set(feature.step, [...(byStep.get(feature.step) ?? []), feature]);
  const ranked = [...byStep]
    .map(([step, list]) => ({
      step,
      level: Math.min(...list.map((feature) => feature.level)),
      list: list.sort(byChance),
    }))
    .sort((a, b) => deepestFirst(a, b) || (a.list[0]?.chance ?? 1) - (b.list[0]?.chance ?? 1));
  const top = ranked[0] as (typeof ranked)[number];
  // Failures and passes that read any of the step's strong features.
  const keys = new Set(top.list.map(keyOf));
  let failures = 0;
  let passes = 0;
  for (const [index, root] of roots.entries()) {
    const hit = [...(readsOf[index] as Map<string, Read>).values()].some(
      (read) => read.step === top.step && featuresOf(read, versionOf(read)).some(({ key }) => keys.has(key)),
    );
    if (hit && root.failure) failures += 1;
    else if (hit) passes += 1;
  }
  return {
    kind: 'separated',
    step: top.step,
    level: top.level,
    best: top.list[0] as Feature,
    strong: top.list.length,
    failures,
    passes,
    also: ranked.slice(1).map(({ step, level }) => ({ step, level })),
  };
}

/** The features a read has: its output, its version when known, and its state when not as read. */
function featuresOf(read: Read, version: string | undefined): { key: string; tally: Tally }[] {
  const { step, item, digest, level } = read;
  const zero = { step, level, failures: 0, passes: 0 };
  const output: Tally = { kind: 'output', item, digest, ...(version !== undefined && { version }), ...zero };
  const list = [{ key: keyOf(output), tally: output }];
  if (version !== undefined) {
    const tally: Tally = { kind: 'version', version, ...zero };
    list.push({ key: keyOf(tally), tally });
  }
  if (read.state !== 'as-read') {
    const tally: Tally = { kind: 'not-as-read', ...zero };
    list.push({ key: keyOf(tally), tally });
  }
  return list;
}

/** A feature's identity: kind, step and what it is of the step. */
function keyOf(feature: Pick<Feature, 'kind' | 'step' | 'item' | 'digest' | 'version'>): string {
  if (feature.kind === 'output') return `o\u0000${readKey(feature.step, feature.item ?? '', feature.digest ?? '')}`;
  if (feature.kind === 'version') return `v\u0000${nodeKey(feature.step, feature.version ?? '')}`;
  return `s\u0000${feature.step}`;
}

/** Least likely by chance first; then read by more failures; then by key. */
function byChance(a: Feature, b: Feature): number {
  return (
    a.chance - b.chance ||
    b.failures - a.failures ||
    (a.item ?? a.version ?? '').localeCompare(b.item ?? b.version ?? '', 'en', { numeric: true })
  );
}

/**
 * Reads what each of `nodes` read, and the version that computed its output, from the run's item
 * for it now (a failed item's only when verified), once per (step, item).
 */
async function expand(
  store: ResumeStore,
  items: RunItems,
  earlier: EarlierOutputs,
  expanded: Map<string, Expanded>,
  nodes: readonly { readonly step: string; readonly item: string }[],
): Promise<void> {
  const wanted = new Map<string, RunItem | undefined>();
  for (const { step, item } of nodes) {
    const key = nodeKey(step, item);
    if (!expanded.has(key) && !wanted.has(key)) wanted.set(key, (await items.of(step)).get(item));
  }
  for (const chunk of chunks([...wanted])) {
    const stored: Map<string, StoredOutput> = await store.getOutputs(
      chunk.flatMap(([, runItem]) => (runItem?.status === 'done' ? [runItem.fingerprint] : [])),
    );
    for (const [key, runItem] of chunk) {
      if (runItem === undefined) {
        expanded.set(key, { inputs: undefined, version: undefined });
        continue;
      }
      const read = await componentsRead(runItem, stored.get(runItem.fingerprint), earlier, items);
      const known = !('note' in read) && read.basis !== 'earlier';
      const own = runItem.status === 'done' ? parseComponents(stored.get(runItem.fingerprint)?.components) : undefined;
      expanded.set(key, {
        inputs: known ? read.components.inputs : undefined,
        version: own?.version,
      });
    }
  }
}

function* chunks<T>(list: readonly T[]): Generator<T[]> {
  for (let start = 0; start < list.length; start += CHUNK) yield list.slice(start, start + CHUNK);
}

const nodeKey = (step: string, item: string): string => `${step}\u0000${item}`;
const readKey = (step: string, item: string, digest: string): string => `${step}\u0000${item}\u0000${digest}`;

/** ln k! for k = 0 … n. */
export function logFactorialsTo(n: number): Float64Array {
  const table = new Float64Array(n + 1);
  for (let k = 2; k <= n; k += 1) table[k] = (table[k - 1] as number) + Math.log(k);
  return table;
}

/**
 * The chance of at least `atLeast` successes in `draws` drawn without replacement from `population`
 * holding `successes`: the one-sided Fisher exact test's p-value. Summed in logs from `atLeast` up,
 * stopping past the mode once a term adds nothing a double holds.
 */
export function hypergeometricTail(
  population: number,
  successes: number,
  draws: number,
  atLeast: number,
  logFactorials: Float64Array = logFactorialsTo(population),
): number {
  const low = Math.max(atLeast, 0, draws - (population - successes));
  const high = Math.min(draws, successes);
  if (low > high) return 0;
  if (low <= Math.max(0, draws - (population - successes))) return 1;
  const lf = (k: number): number => logFactorials[k] as number;
  const logChoose = (n: number, k: number): number => lf(n) - lf(k) - lf(n - k);
  const whole = logChoose(population, draws);
  const mode = Math.floor(((draws + 1) * (successes + 1)) / (population + 2));
  let sum = 0;
  for (let k = low; k <= high; k += 1) {
    const term = Math.exp(logChoose(successes, k) + logChoose(population - successes, draws - k) - whole);
    sum += term;
    if (k > mode && term <= sum * Number.EPSILON) break;
  }
  return Math.min(1, sum);
}
