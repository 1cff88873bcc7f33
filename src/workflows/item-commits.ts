/**
 * The records a computed or failed step item is committed as: its run item and, when it computed a
 * new output, that output with the JSON texts the engine hashed. Built the same way wherever an item
 * is computed — in the driving process (run.ts) or on an item worker of a cluster (cluster-worker.ts)
 * — so a run's records do not depend on where its items ran. Pure functions; they own nothing.
 */
import type { ItemCommit, Json, RunItem, StoredOutput } from '../store/resume-store.js';
import type { Computed } from './compute-item.js';
import { digestOf } from './fingerprint.js';
import type { Fingerprinted } from './prepare.js';

/** What an item's run item was before, when it was done: what `replaced` is decided from. */
export interface PreviousOutput {
  readonly fingerprint: string;
  readonly digest: string;
  readonly replaced?: string;
}

/** The previous output of `before`, when it is a done run item. */
export function previousOutput(before: RunItem | undefined): PreviousOutput | undefined {
  return before?.status === 'done' ? before : undefined;
}

/** Where an item sits: its run, workflow, step and key. */
export interface ItemPlace {
  readonly run: string;
  readonly workflow: string;
  readonly step: string;
  readonly key: string;
}

/** A done run item that uses `output`, remembering the output this run's item had before (RunItem.replaced). */
export function doneItem(
  place: Pick<ItemPlace, 'run' | 'step' | 'key'>,
  output: Pick<StoredOutput, 'fingerprint' | 'digest'>,
  how: { readonly cached: boolean; readonly tries: number; readonly before: PreviousOutput | undefined },
  updatedAt: string,
): RunItem {
  const { before } = how;
  const replaced =
    before === undefined
      ? undefined
      : (before.replaced ?? (before.digest === output.digest ? undefined : before.fingerprint));
  return {
    run: place.run,
    step: place.step,
    item: place.key,
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
 * The commit of an item computed now: its new output (under `fingerprint`, with the components'
 * canonical text) and its done run item. The output's text is hashed here once, and handed to the
 * store so it need not serialize it again.
 */
export function computedCommit(
  place: ItemPlace,
  item: Fingerprinted,
  computed: Computed,
  how: { readonly tries: number; readonly before: PreviousOutput | undefined },
  at: string,
): ItemCommit & { readonly output: StoredOutput } {
  const { text, digest } = digestOf(computed.output);
  const output: StoredOutput = {
    fingerprint: item.fingerprint,
    workflow: place.workflow,
    step: place.step,
    item: place.key,
    digest,
    output: computed.output,
    components: item.components as unknown as Json,
    measured: computed.measured,
    createdAt: at,
  };
  return {
    item: doneItem(place, output, { cached: false, tries: how.tries, before: how.before }, at),
    output,
    texts: { output: text, components: item.componentsText },
  };
}

/** The run item of an item that failed with a defect. */
export function failedItem(
  place: Pick<ItemPlace, 'run' | 'step' | 'key'>,
  fingerprint: string,
  failure: { readonly error: string; readonly tries: number },
  updatedAt: string,
): RunItem {
  return {
    run: place.run,
    step: place.step,
    item: place.key,
    status: 'failed',
    fingerprint,
    error: failure.error,
    tries: failure.tries,
    updatedAt,
  };
}
