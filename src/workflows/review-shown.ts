/**
 * How a waiting review item is put before a person, the same in the CLI (`workflow review`) and the
 * Workbench's Review page: why it is up — `changed in this run`, or its reasons (`new`, what changed
 * since its last approval) — the chain of outputs that changed it, and a line diff of what the
 * reviewer sees against the last approved version, or the version before the change, with a sentence
 * saying which. Pure: review.ts finds the items.
 */
import { lineDiff } from '../core/line-diff.js';
import type { Json } from '../store/resume-store.js';
import type { PendingReview } from './review.js';

/** A waiting item as a person reads it. */
export interface ShownReview {
  readonly step: string;
  readonly key: string;
  /** Why it is up, one phrase. */
  readonly why: string;
  /** The chain of outputs this run changed that changed it, e.g. `narrative c-0010 ← totals c-0010 ← …`. */
  readonly because?: string;
  /** Lines marked kept (`  `), removed (`- `) or added (`+ `); all added when nothing came before. */
  readonly diff: readonly string[];
  /** What the diff is against, when anything: `the version Dana approved at …`, `the version before the change`. */
  readonly against?: string;
}

export function shownReview(item: PendingReview): ShownReview {
  const before = item.previous?.shown ?? item.change?.earlier;
  const against = item.previous
    ? `the version ${item.previous.by} approved at ${item.previous.at}`
    : item.change
      ? 'the version before the change'
      : undefined;
  return {
    step: item.step,
    key: item.key,
    why: item.change && !item.previous ? 'changed in this run' : item.reasons.join(', '),
    ...(item.change && { because: item.change.because }),
    diff: lineDiff(before === undefined ? [] : linesOf(before), linesOf(item.shown)),
    ...(against !== undefined && { against }),
  };
}

function linesOf(value: Json): string[] {
  return (typeof value === 'string' ? value : JSON.stringify(value, null, 2)).split('\n');
}
