/**
 * A run's outputs as the runner (run.ts) holds them while it drives the run: each item's fingerprint
 * and digest — all a downstream fingerprint takes in — and its value only once something needs it.
 * The outputs this drive computes come with their values; those it reuses come without, and their
 * values are loaded only for what reads them: the items that compute (loadInputs, one getOutputs a
 * step), and the items functions and read selectors that ask the view (a step's values at a time). A
 * resume that finds everything cached so reads no value at all. Owned by one drive; not shared.
 */
import { NotFoundError, UsageError } from '../core/errors.js';
import type { Json, ResumeStore } from '../store/resume-store.js';
import type { RunView } from './define.js';
import type { FingerprintComponents } from './fingerprint.js';
import { OnDemandOutputs } from './on-demand-outputs.js';

/** An item's output in this run; `output` is undefined until its value is loaded (JSON has no undefined). */
interface Held {
  readonly fingerprint: string;
  readonly digest: string;
  output: Json | undefined;
}

/** Outputs whose values are to be loaded, by fingerprint. */
type Wanted = Map<string, { readonly step: string; readonly key: string; readonly held: Held }>;

/** Thrown by the view for an output whose value is not loaded; `attempt` sees it whatever the caller did with it. */
class ValueNotLoaded extends Error {
  constructor(step: string, key: string) {
    super(`the output of step ${step} item ${key} is not loaded`);
  }
}

export class RunOutputs extends OnDemandOutputs {
  readonly #store: ResumeStore;
  readonly #held = new Map<string, Map<string, Held>>();
  readonly #keys = new Map<string, readonly string[]>();
  /** What an items function or a read selector sees: the run's parameters and the outputs held. */
  readonly view: RunView;

  constructor(store: ResumeStore, params: Readonly<Record<string, Json>>) {
    super();
    this.#store = store;
    this.view = {
      params,
      keys: (step) => this.#keys.get(step) ?? [],
      output: (step, key) => {
        const held = this.#held.get(step)?.get(key);
        if (held === undefined) throw new UsageError(`step ${step} has no output for item ${key} in this run`);
        if (held.output === undefined) {
          this.markMissing(step);
          throw new ValueNotLoaded(step, key);
        }
        return held.output;
      },
    };
  }

  /** Starts a step: its item keys, in order, and no outputs yet. */
  startStep(step: string, keys: readonly string[]): void {
    this.#keys.set(step, keys);
    this.#held.set(step, new Map());
  }

  /** Holds the output of item `key` of `step`: its value when the caller has it, else loaded when needed. */
  hold(step: string, key: string, fingerprint: string, digest: string, output?: Json): void {
    this.#held.get(step)?.set(key, { fingerprint, digest, output });
  }

  /** The digest of the output held for an item, if it has one. */
  digestOf(step: string, key: string): string | undefined {
    return this.#held.get(step)?.get(key)?.digest;
  }

  /** Loads the values of the step the last `attempt` found missing, in one getOutputs. */
  async loadMissing(): Promise<void> {
    const step = this.missingStep;
    if (step === undefined) return;
    const wanted: Wanted = new Map();
    for (const key of this.#held.get(step)?.keys() ?? []) this.#want(wanted, step, key);
    await this.#load(wanted);
  }

  /** Loads the values of the outputs `items` read (their fingerprints' inputs), in one getOutputs. */
  async loadInputs(items: Iterable<{ readonly components: FingerprintComponents }>): Promise<void> {
    const wanted: Wanted = new Map();
    for (const { components } of items) for (const [step, key] of components.inputs) this.#want(wanted, step, key);
    await this.#load(wanted);
  }

  /** Adds the output held for item `key` of `step` to `wanted`, unless its value is loaded. */
  #want(wanted: Wanted, step: string, key: string): void {
    const held = this.#held.get(step)?.get(key);
    if (held !== undefined && held.output === undefined) wanted.set(held.fingerprint, { step, key, held });
  }

  /**
   * Loads the values of `wanted`. Rejects with NotFoundError when one is no longer stored (pruned
   * since this drive found its digest): the drive stops, and a resume computes it again.
   */
  async #load(wanted: Wanted): Promise<void> {
    if (wanted.size === 0) return;
    const found = await this.#store.getOutputs([...wanted.keys()]);
    for (const [fingerprint, { step, key, held }] of wanted) {
      const stored = found.get(fingerprint);
      if (stored === undefined) {
        throw new NotFoundError(
          `the output of step ${step} item ${key} is no longer stored: resume to compute it again`,
        );
      }
      held.output = stored.output;
    }
  }
}
