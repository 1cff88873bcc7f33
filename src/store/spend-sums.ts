/**
 * SpendDeltas added up per (run, drive, step) as they come: what a commit writes to `run_spend`, one
 * row a step of a drive. The engine's group commit keeps one while results wait (one small object a
 * step, not one an item), and the adapters merge what a commit is given through one (mergeSpend,
 * resume-rows.ts). Every figure added must be a finite number ≥ 0: `add` throws otherwise, before
 * anything is written.
 */
import { EXIT, HarmflowError } from '../core/errors.js';
import type { SpendDelta } from './resume-store.js';

/** The figures of a SpendDelta, which commits only ever add to. */
export const SPEND_FIGURES = [
  'items',
  'failed',
  'tries',
  'itemMs',
  'inputTokens',
  'outputTokens',
  'unreportedTokens',
  'unreportedItems',
  'wallMs',
] as const satisfies readonly (keyof SpendDelta)[];

export type SpendFigure = (typeof SPEND_FIGURES)[number];

/** One step of one drive and its figures summed. */
export type SpendSum = Pick<SpendDelta, 'run' | 'drive' | 'step'> & Record<SpendFigure, number>;

export class SpendSums {
  readonly #sums = new Map<string, SpendSum>();

  get size(): number {
    return this.#sums.size;
  }

  add(delta: SpendDelta): void {
    const key = `${delta.run}\u0000${delta.drive}\u0000${delta.step}`;
    let sum = this.#sums.get(key);
    if (sum === undefined) {
      sum = { run: delta.run, drive: delta.drive, step: delta.step, ...NOTHING_SPENT };
      this.#sums.set(key, sum);
    }
    for (const figure of SPEND_FIGURES) {
      const value = delta[figure];
      if (value === undefined) continue;
      if (!Number.isFinite(value) || value < 0) {
        throw new HarmflowError(`spend ${figure} ${value} of step ${delta.step} is not a number ≥ 0`, EXIT.internal);
      }
      sum[figure] += value;
    }
  }

  /** The sums, in their key's code unit order: rows are always taken in one order (no deadlock between committers). */
  list(): SpendSum[] {
    return [...this.#sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, sum]) => sum);
  }
}

/** A drive step's figures before anything is spent: every figure 0. */
export const NOTHING_SPENT = Object.fromEntries(SPEND_FIGURES.map((figure) => [figure, 0])) as Readonly<
  Record<SpendFigure, 0>
>;
