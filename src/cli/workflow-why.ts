import type { Command } from 'commander';
import { z } from 'zod';
import { NotFoundError, UsageError } from '../core/errors.js';
import type { Json, ResumeStore, RunItem, RunRecord, StoredOutput } from '../store/resume-store.js';
import type { ModelSettings } from '../workflows/define.js';
import { type FingerprintComponents, fingerprintOf, parseComponents } from '../workflows/fingerprint.js';
import { type StoreOptions, storeOptions, storePlace, withStore } from './workflow-store.js';
import { formatWhy } from './workflow-why-format.js';

/**
 * 2 levels: the item's inputs and theirs. In the statements case that reaches from a fact-check
 * through its narrative and totals to the categorise batches the totals read: the step that broke.
 */
export const DEFAULT_DEPTH = 2;

/**
 * 10 inputs of each upstream step shown, the rest counted: a totals item reads ≈59 categorise
 * batches, and ten are enough to see a pattern while a report at depth 2 stays on a screen or two.
 * Inputs that are not as read are shown first.
 */
export const DEFAULT_INPUTS = 10;

/** How an input stands now against the digest the item's output was computed from. */
export type InputState = 'as-read' | 'changed' | 'failed' | 'missing';

/** A step item in the report: the run's item for it, and, on the nodes followed, what it read. */
export interface WhyNode {
  readonly step: string;
  readonly item: string;
  /** The run's item; absent when the run has none for (step, item). */
  readonly runItem?: RunItem;
  /** What its output was computed from: on the nodes followed (down to the depth) when it is known. */
  readonly source?: WhySource;
  /** Why `source` is absent on a node that was followed (nothing is stored that tells). */
  readonly note?: string;
  /** It was followed at another place in this report: its inputs are listed there. */
  readonly repeated?: true;
}

/**
 * The fingerprint components the node's inputs come from. `output`: those stored with the output the
 * run's item points at. For a failed item, those of the item's newest earlier output: `verified` when
 * they give its fingerprint with the run's current input digests (exactly what the failure read),
 * `earlier` when not (what that earlier output read).
 */
export interface WhySource {
  readonly basis: 'output' | 'verified' | 'earlier';
  /** The output the components were stored with. */
  readonly fingerprint: string;
  readonly createdAt: string;
  readonly version: string;
  readonly params: Readonly<Record<string, Json>>;
  readonly model?: ModelSettings;
  /** Its inputs, grouped by upstream step in the components' order. */
  readonly inputs: readonly InputGroup[];
}

/** The inputs read from one upstream step: how many, how many are not as read, and the first shown. */
export interface InputGroup {
  readonly step: string;
  readonly count: number;
  readonly notAsRead: number;
  /** Up to the `inputs` limit: those not as read first, then in key order. */
  readonly shown: readonly WhyInput[];
}

export interface WhyInput {
  /** The digest of the upstream output the item's output was computed from. */
  readonly read: string;
  readonly now: InputState;
  readonly node: WhyNode;
}

export interface WhyReport {
  readonly run: RunRecord;
  readonly item: WhyNode;
  /** The item's own output, whole; absent when none is stored under its fingerprint (a failed item). */
  readonly output?: Json;
  readonly depth: number;
}

export interface WhyOptions {
  /** Levels of inputs to follow; at least 1. */
  readonly depth?: number;
  /** Inputs shown per upstream step; at least 1. */
  readonly inputs?: number;
}

const Count = z.coerce.number().int().min(1);

/** Mutable while the report is built. */
interface Building {
  step: string;
  item: string;
  runItem?: RunItem;
  source?: WhySource;
  note?: string;
  repeated?: true;
}

/**
 * The provenance of (step, item) in run `runId`. Rejects with NotFoundError for an unknown run, a step
 * with no items in the run, or an item the run has none for.
 */
export async function explainItem(
  store: ResumeStore,
  runId: string,
  step: string,
  item: string,
  options: WhyOptions = {},
): Promise<WhyReport> {
  const depth = options.depth ?? DEFAULT_DEPTH;
  const limit = options.inputs ?? DEFAULT_INPUTS;
  const run = await store.getRun(runId);
  if (run === undefined) throw new NotFoundError(`no workflow run ${runId} in this HARMFLOW_HOME`);
  const items = new RunItems(store, runId);
  const ofStep = await items.of(step);
  if (ofStep.size === 0) throw new NotFoundError(`run ${runId} has no items of step ${step}`);
  const runItem = ofStep.get(item);
  if (runItem === undefined) {
    const stopped = run.message !== undefined ? ` (the run is ${run.state}: ${run.message})` : '';
    throw new NotFoundError(`run ${runId} has no item ${step} ${item}${stopped}`);
  }

  const root: Building = { step, item, runItem };
  const earlier = new EarlierOutputs(store, run.workflow);
  const followed = new Set<string>();
  let output: Json | undefined;
  let frontier: Building[] = [root];
  for (let level = 0; level < depth && frontier.length > 0; level += 1) {
    const toFollow: Building[] = [];
    for (const node of frontier) {
      const id = nodeId(node);
      if (followed.has(id)) node.repeated = true;
      else {
        followed.add(id);
        toFollow.push(node);
      }
    }
    const fingerprints = toFollow.flatMap((node) => (node.runItem ? [node.runItem.fingerprint] : []));
    const stored = await store.getOutputs(fingerprints);
    if (level === 0 && runItem.status === 'done') output = stored.get(runItem.fingerprint)?.output;
    const next: Building[] = [];
    for (const node of toFollow) {
      const source = await sourceOf(node, stored, earlier, items, limit);
      if ('note' in source) {
        node.note = source.note;
        continue;
      }
      node.source = source;
      for (const group of source.inputs) for (const input of group.shown) next.push(input.node as Building);
    }
    frontier = next;
  }
  for (const node of frontier) if (followed.has(nodeId(node))) node.repeated = true;
  return { run, item: root, ...(output !== undefined && { output }), depth };
}

const nodeId = (node: { step: string; item: string }): string => `${node.step}\u0000${node.item}`;

/** What a node's output was computed from, or a note saying why that is not known. */
async function sourceOf(
  node: Building,
  stored: Map<string, StoredOutput>,
  earlier: EarlierOutputs,
  items: RunItems,
  limit: number,
): Promise<WhySource | { note: string }> {
  const runItem = node.runItem;
  if (runItem === undefined) return { note: 'the run has no item for it' };
  const own = stored.get(runItem.fingerprint);
  if (own !== undefined) {
    const components = parseComponents(own.components);
    if (components === undefined)
      return { note: 'its output’s stored components are not in a form this version reads' };
    return sourceFrom('output', own, components, items, limit);
  }
  if (runItem.status === 'done') return { note: `no output is stored under its fingerprint ${runItem.fingerprint}` };
  const previous = await earlier.of(node.step, node.item);
  if (previous === undefined) return { note: 'it failed and no output of it is stored: what it read is not known' };
  const components = parseComponents(previous.components);
  if (components === undefined) {
    return { note: 'it failed, and its earlier output’s components are not in a form this version reads' };
  }
  const current = await currentInputs(components, items);
  if (current !== undefined && fingerprintOf(current) === runItem.fingerprint) {
    return sourceFrom('verified', previous, current, items, limit);
  }
  return sourceFrom('earlier', previous, components, items, limit);
}

/** The components with each input's digest replaced by the run's current one; undefined if one is not done. */
async function currentInputs(
  components: FingerprintComponents,
  items: RunItems,
): Promise<FingerprintComponents | undefined> {
  const inputs: [string, string, string][] = [];
  for (const [step, key] of components.inputs) {
    const upstream = (await items.of(step)).get(key);
    if (upstream?.status !== 'done') return undefined;
    inputs.push([step, key, upstream.digest]);
  }
  return { ...components, inputs };
}

async function sourceFrom(
  basis: WhySource['basis'],
  output: StoredOutput,
  components: FingerprintComponents,
  items: RunItems,
  limit: number,
): Promise<WhySource> {
  const groups = new Map<string, WhyInput[]>();
  for (const [step, key, read] of components.inputs) {
    const upstream = (await items.of(step)).get(key);
    const node: Building = { step, item: key, ...(upstream !== undefined && { runItem: upstream }) };
    const list = groups.get(step) ?? [];
    groups.set(step, list);
    list.push({ read, now: stateOf(upstream, read), node });
  }
  const inputs: InputGroup[] = [...groups].map(([step, list]) => {
    const off = list.filter((input) => input.now !== 'as-read');
    const shown = [...off, ...list.filter((input) => input.now === 'as-read')].slice(0, limit);
    return { step, count: list.length, notAsRead: off.length, shown };
  });
  return {
    basis,
    fingerprint: output.fingerprint,
    createdAt: output.createdAt,
    version: components.version,
    params: components.params,
    ...(components.model !== undefined && { model: components.model }),
    inputs,
  };
}

function stateOf(upstream: RunItem | undefined, read: string): InputState {
  if (upstream === undefined) return 'missing';
  if (upstream.status === 'failed') return 'failed';
  return upstream.digest === read ? 'as-read' : 'changed';
}

/** A run's items by step and key, each step read once. */
class RunItems {
  readonly #store: ResumeStore;
  readonly #run: string;
  readonly #steps = new Map<string, Promise<Map<string, RunItem>>>();

  constructor(store: ResumeStore, run: string) {
    this.#store = store;
    this.#run = run;
  }

  of(step: string): Promise<Map<string, RunItem>> {
    let found = this.#steps.get(step);
    if (found === undefined) {
      found = this.#store.listRunItems(this.#run, step).then((list) => new Map(list.map((item) => [item.item, item])));
      this.#steps.set(step, found);
    }
    return found;
  }
}

/** The newest stored output of each item of a step, each step read once (only for failed items). */
class EarlierOutputs {
  readonly #store: ResumeStore;
  readonly #workflow: string;
  readonly #steps = new Map<string, Promise<Map<string, StoredOutput>>>();

  constructor(store: ResumeStore, workflow: string) {
    this.#store = store;
    this.#workflow = workflow;
  }

  async of(step: string, item: string): Promise<StoredOutput | undefined> {
    let found = this.#steps.get(step);
    if (found === undefined) {
      found = this.#store.latestOutputs(this.#workflow, step);
      this.#steps.set(step, found);
    }
    return (await found).get(item);
  }
}

/** Registers `why` under the `workflow` command. */
export function registerWhy(workflow: Command): void {
  storeOptions(
    workflow
      .command('why <run> <step> <item>')
      .description("which upstream outputs fed a run's item: tells the step that broke from the step that failed"),
  )
    .option('--depth <n>', 'levels of inputs to follow', String(DEFAULT_DEPTH))
    .option('--inputs <n>', 'inputs shown per upstream step (the rest are counted)', String(DEFAULT_INPUTS))
    .option('--json', 'print the report as JSON, with the whole output')
    .action(
      async (
        run: string,
        step: string,
        item: string,
        options: StoreOptions & { depth: string; inputs: string; json?: boolean },
      ) => {
        const place = storePlace(options);
        const depth = count('--depth', options.depth);
        const inputs = count('--inputs', options.inputs);
        await withStore(place, async (store) => {
          const report = await explainItem(store, run, step, item, { depth, inputs });
          process.stdout.write(`${options.json ? JSON.stringify(report, null, 2) : formatWhy(report)}\n`);
        });
      },
    );
}

function count(option: string, text: string): number {
  const parsed = Count.safeParse(text);
  if (!parsed.success) throw new UsageError(`${option} ${JSON.stringify(text)}: a whole number of at least 1`);
  return parsed.data;
}
