/**
 * What a run's items read, from the store, for `harmflow workflow why` (workflow-why.ts) and `why
 * --failed` (workflow-why-failed.ts): a run's items by step, items' newest earlier outputs, the
 * fingerprint components an item's output was computed from (for a failed item, those of an earlier
 * output, checked against its fingerprint), and how an input read stands now. Read-only; each cache
 * lives as long as one report.
 */
import type { ResumeStore, RunItem, StoredOutput } from '../store/resume-store.js';
import { type FingerprintComponents, fingerprintOf, parseComponents } from '../workflows/fingerprint.js';

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

/**
 * Where the components of a run item's output come from: `output`, stored with the output the run's
 * item points at; for a failed item, its newest earlier output's, `verified` when they give its
 * fingerprint with the run's current input digests (exactly what the failure read), `earlier` when
 * not (what that earlier output read).
 */
export type ReadBasis = 'output' | 'verified' | 'earlier';

/**
 * The fingerprint components a run item's output was computed from, and the stored output they come
 * with: `own`, the output stored under the item's fingerprint, when there is one (`output`); for a
 * failed item, its newest earlier output's, `verified` when they hash to its fingerprint with the
 * run's current inputs (exactly what the failure read), else `earlier`. A note when nothing stored
 * tells.
 */
export async function componentsRead(
  runItem: RunItem,
  own: StoredOutput | undefined,
  earlier: EarlierOutputs,
  items: RunItems,
): Promise<
  | { readonly basis: ReadBasis; readonly output: StoredOutput; readonly components: FingerprintComponents }
  | { readonly note: string }
> {
  if (own !== undefined) {
    const components = parseComponents(own.components);
    if (components === undefined)
      return { note: 'its output’s stored components are not in a form this version reads' };
    return { basis: 'output', output: own, components };
  }
  if (runItem.status === 'done') return { note: `no output is stored under its fingerprint ${runItem.fingerprint}` };
  const previous = await earlier.of(runItem.step, runItem.item);
  if (previous === undefined) return { note: 'it failed and no output of it is stored: what it read is not known' };
  const components = parseComponents(previous.components);
  if (components === undefined) {
    return { note: 'it failed, and its earlier output’s components are not in a form this version reads' };
  }
  const current = await currentInputs(components, items);
  if (current !== undefined && fingerprintOf(current) === runItem.fingerprint) {
    return { basis: 'verified', output: previous, components: current };
  }
  return { basis: 'earlier', output: previous, components };
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

/** How the run's item for an input stands against the digest that was read. */
export function stateOf(upstream: RunItem | undefined, read: string): InputState {
  if (upstream === undefined) return 'missing';
  if (upstream.status === 'failed') return 'failed';
  return upstream.digest === read ? 'as-read' : 'changed';
}

/** A run's items by step and key, each step read once. */
export class RunItems {
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
export class EarlierOutputs {
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
