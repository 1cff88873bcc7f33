/**
 * What the runner's and the planner's views of a run's outputs share (RunOutputs, PlanState): output
 * values load on demand, so a computation over the view (an items function, a read selector) may ask
 * for a value not loaded yet. The view then marks that step missing and throws; `attempt` tells such
 * a computation apart from one that failed on its own — whether it let the throw through or caught it
 * and went on — and `resolve` loads what was missing and tries again.
 */

/** What `attempt` returns when the computation asked the view for a value not loaded yet. */
export const NOT_LOADED: unique symbol = Symbol('not loaded');

export abstract class OnDemandOutputs {
  /** The first step whose values the view was asked for and did not have, since `attempt` began. */
  #missing: string | undefined;

  /** For the view: it was asked for a value of `step` that is not loaded. */
  protected markMissing(step: string): void {
    this.#missing ??= step;
  }

  /** The step the last `attempt` found missing, if any. */
  protected get missingStep(): string | undefined {
    return this.#missing;
  }

  /** Loads the values of the step the last `attempt` found missing. */
  abstract loadMissing(): Promise<void>;

  /**
   * `compute()`, or NOT_LOADED when it asked the view for a value not loaded yet (whether it threw
   * then or caught the error and went on): load it (loadMissing) and attempt again. Synchronous, so a
   * caller may use it per item at no cost once the values are loaded. Any other error it throws is
   * thrown.
   */
  attempt<T>(compute: () => T): T | typeof NOT_LOADED {
    this.#missing = undefined;
    try {
      const value = compute();
      if (this.#missing === undefined) return value;
    } catch (error) {
      if (this.#missing === undefined) throw error;
    }
    return NOT_LOADED;
  }

  /** `compute()`, once every value it asks the view for is loaded. */
  async resolve<T>(compute: () => T): Promise<T> {
    for (;;) {
      const value = this.attempt(compute);
      if (value !== NOT_LOADED) return value;
      await this.loadMissing();
    }
  }
}
