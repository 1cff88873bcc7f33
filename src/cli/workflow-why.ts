import type { Command } from 'commander';
import { z } from 'zod';
import { NotFoundError, UsageError } from '../core/errors.js';
import type { Json, ResumeStore, RunItem, RunRecord, StoredOutput } from '../store/resume-store.js';
import type { ModelSettings } from '../workflows/define.js';
import type { FingerprintComponents } from '../workflows/fingerprint.js';
import { type StoreOptions, storeOptions, storePlace, withStore } from './workflow-store.js';
import { explainFailures } from './workflow-why-failed.js';
import { formatFailures } from './workflow-why-failed-format.js';
import { formatWhy } from './workflow-why-format.js';
import {
  componentsRead,
  DEFAULT_DEPTH,
  DEFAULT_INPUTS,
  EarlierOutputs,
  type InputState,
  type ReadBasis,
  RunItems,
  stateOf,
} from './workflow-why-reads.js';

export type { InputState } from './workflow-why-reads.js';

export { DEFAULT_DEPTH, DEFAULT_INPUTS } from './workflow-why-reads.js';

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
  readonly basis: ReadBasis;
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
  const read = await componentsRead(runItem, stored.get(runItem.fingerprint), earlier, items);
  if ('note' in read) return read;
  return sourceFrom(read.basis, read.output, read.components, items, limit);
}

async function sourceFrom(
  basis: ReadBasis,
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

/**
 * Registers `why` under the `workflow` command: `why RUN STEP ITEM` explains one item, `why RUN STEP
 * --failed` what the step's failures read that its passes did not (workflow-why-failed.ts). An ITEM
 * with `--failed`, or neither, is a usage error (exit 2).
 */
export function registerWhy(workflow: Command): void {
  storeOptions(
    workflow
      .command('why <run> <step> [item]')
      .description(
        "which upstream outputs fed a run's item, or with --failed what the step's failures read that its passes did not: tells the step that broke from the step that failed",
      ),
  )
    .option('--failed', "compare what the step's failures read with what its passes read (no ITEM)")
    .option('--depth <n>', 'levels of inputs to follow', String(DEFAULT_DEPTH))
    .option(
      '--inputs <n>',
      'inputs shown per upstream step (the rest are counted); with --failed, outputs ranked per upstream step',
      String(DEFAULT_INPUTS),
    )
    .option('--json', 'print the report as JSON, with the whole output')
    .action(
      async (
        run: string,
        step: string,
        item: string | undefined,
        options: StoreOptions & { failed?: boolean; depth: string; inputs: string; json?: boolean },
      ) => {
        if (options.failed && item !== undefined) {
          throw new UsageError(`why --failed compares all of ${step}'s failures: give no ITEM (${item})`);
        }
        if (!options.failed && item === undefined) {
          throw new UsageError("why RUN STEP ITEM explains one item; why RUN STEP --failed, the step's failures");
        }
        const place = storePlace(options);
        const depth = count('--depth', options.depth);
        const inputs = count('--inputs', options.inputs);
        await withStore(place, async (store) => {
          if (item === undefined) {
            const report = await explainFailures(store, run, step, { depth, shown: inputs });
            process.stdout.write(`${options.json ? JSON.stringify(report, null, 2) : formatFailures(report)}\n`);
            return;
          }
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
