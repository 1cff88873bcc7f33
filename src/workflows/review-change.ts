/**
 * What changed in a run for a review item: the item as the review step showed it before this run
 * replaced an output it reads (a statement redrafted after a fix), and why — the chain of replaced
 * outputs from the item it reads back to the step whose version, parameters, model or invalidation
 * changed, e.g. `narrative c-0010 ← totals c-0010 ← categorise b-0003: version 1 → 2`. Built from
 * the run items' `replaced` fingerprints and the components stored with each output; reads the
 * ResumeStore, writes nothing. The reviewer (review.ts) and the runner (run.ts) both use it.
 */
import type { Json, ResumeStore, RunItem, StoredOutput } from '../store/resume-store.js';
import type { ItemInput, ReviewStep } from './define.js';
import { canonicalJson, type FingerprintComponents, parseComponents, rerunReasons } from './fingerprint.js';

/** A review item's change in this run. */
export interface ReviewChange {
  /** What the step showed of the item before this run changed what it reads. */
  readonly earlier: Json;
  /** Why it changed: the chain of replaced outputs down to the change that started it. */
  readonly because: string;
}

/** A review item with its input, as the caller prepared it. */
export interface ReviewItem {
  readonly key: string;
  readonly input: ItemInput;
}

/** Hops followed at most: a chain longer than any workflow's steps means stored data loops. */
const MAX_HOPS = 64;

/** What the reviewer sees of an item: the step's `show` of its input, else its inputs. */
export function shownOf(step: ReviewStep, input: ItemInput): Json {
  return step.show?.(input) ?? (input.inputs as unknown as Json);
}

/**
 * The changes of `items` of review step `step` in run `runId`, by item key: only items an output of
 * which was replaced in this run, and whose shown value differs because of it.
 */
export async function reviewChanges(
  store: ResumeStore,
  runId: string,
  step: ReviewStep,
  items: readonly ReviewItem[],
): Promise<Map<string, ReviewChange>> {
  const changes = new Map<string, ReviewChange>();
  const runItems = new RunItems(store, runId);
  const replacedOf = new Map<string, Map<string, DoneItem>>();
  for (const read of new Set((step.reads ?? []).map((entry) => entry.step))) {
    const replaced = new Map([...(await runItems.of(read))].filter(([, item]) => item.replaced !== undefined));
    if (replaced.size > 0) replacedOf.set(read, replaced);
  }
  if (replacedOf.size === 0) return changes;
  const earlierOutputs = await store.getOutputs(
    [...replacedOf.values()].flatMap((ofStep) => [...ofStep.values()].map((item) => item.replaced as string)),
  );

  for (const item of items) {
    let first: { step: string; key: string } | undefined;
    const inputs: Record<string, Record<string, Json>> = {};
    for (const [upstream, outputs] of Object.entries(item.input.inputs)) {
      const earlier: Record<string, Json> = { ...outputs };
      for (const key of Object.keys(outputs)) {
        const replaced = replacedOf.get(upstream)?.get(key)?.replaced;
        const output = replaced === undefined ? undefined : earlierOutputs.get(replaced);
        if (output === undefined) continue;
        earlier[key] = output.output;
        first ??= { step: upstream, key };
      }
      inputs[upstream] = earlier;
    }
    if (first === undefined) continue;
    const earlier = shownOf(step, { ...item.input, inputs });
    if (canonicalJson(earlier) === canonicalJson(shownOf(step, item.input))) continue;
    changes.set(item.key, { earlier, because: await chainOf(store, runItems, first) });
  }
  return changes;
}

type DoneItem = Extract<RunItem, { status: 'done' }>;

/** The run's done items, one step at a time, loaded once each. */
class RunItems {
  readonly #loaded = new Map<string, Map<string, DoneItem>>();

  constructor(
    private readonly store: ResumeStore,
    private readonly runId: string,
  ) {}

  async of(step: string): Promise<Map<string, DoneItem>> {
    let items = this.#loaded.get(step);
    if (items === undefined) {
      items = new Map(
        (await this.store.listRunItems(this.runId, step)).flatMap((item) =>
          item.status === 'done' ? [[item.item, item] as const] : [],
        ),
      );
      this.#loaded.set(step, items);
    }
    return items;
  }
}

/** Follows replaced outputs from `start` down to the change that started it; one line. */
async function chainOf(store: ResumeStore, runItems: RunItems, start: { step: string; key: string }): Promise<string> {
  const hops: string[] = [];
  let at: { step: string; key: string } | undefined = start;
  while (at !== undefined && hops.length < MAX_HOPS) {
    const name = `${at.step} ${at.key}`;
    const item = (await runItems.of(at.step)).get(at.key);
    const pair = item?.replaced === undefined ? undefined : await componentsOf(store, item.replaced, item.fingerprint);
    if (pair === undefined) {
      hops.push(name);
      break;
    }
    const own = ownChange(pair.before, pair.now);
    if (own !== undefined) {
      hops.push(`${name}: ${own}`);
      break;
    }
    hops.push(name);
    at = changedInput(pair.before, pair.now);
  }
  return hops.join(' ← ');
}

async function componentsOf(
  store: ResumeStore,
  before: string,
  now: string,
): Promise<{ before: FingerprintComponents; now: FingerprintComponents } | undefined> {
  const outputs: Map<string, StoredOutput> = await store.getOutputs([before, now]);
  const earlier = parseComponents(outputs.get(before)?.components);
  const current = parseComponents(outputs.get(now)?.components);
  return earlier === undefined || current === undefined ? undefined : { before: earlier, now: current };
}

/** What changed in the item itself (not upstream), as words; undefined when only upstream did. */
function ownChange(before: FingerprintComponents, now: FingerprintComponents): string | undefined {
  const words = rerunReasons(before, now).flatMap((reason) => {
    switch (reason) {
      case 'version':
        return [`version ${before.version} → ${now.version}`];
      case 'params':
        return [`parameters ${changedParams(before, now).join(', ')}`];
      case 'model':
        return [`model ${before.model?.name ?? 'none'} → ${now.model?.name ?? 'none'}`];
      case 'invalidated':
        return ['invalidated'];
      default:
        return [];
    }
  });
  return words.length > 0 ? words.join(', ') : undefined;
}

function changedParams(before: FingerprintComponents, now: FingerprintComponents): string[] {
  const names = new Set([...Object.keys(before.params), ...Object.keys(now.params)]);
  return [...names].filter(
    (name) => canonicalJson(before.params[name] ?? null) !== canonicalJson(now.params[name] ?? null),
  );
}

/** The first upstream item whose digest differs between the two, or undefined. */
function changedInput(
  before: FingerprintComponents,
  now: FingerprintComponents,
): { step: string; key: string } | undefined {
  const earlier = new Map(before.inputs.map(([step, key, digest]) => [`${step}\u0000${key}`, digest]));
  const changed = now.inputs.find(([step, key, digest]) => earlier.get(`${step}\u0000${key}`) !== digest);
  return changed === undefined ? undefined : { step: changed[0], key: changed[1] };
}
