/**
 * Group commit of a run's item results. Results are committed together, in one transaction, when
 * `maxItems` are waiting, when the oldest has waited `windowMs`, or when the owner flushes (a step's
 * end, a stop). A fast step so commits thousands of items a transaction, and a slow one (a model
 * call a minute) commits each result within `windowMs` of its arrival: a crash loses at most that
 * window's results, or `maxItems` of a step too fast to let the timer run. Commits happen one after
 * another, in the order the results came. The runner (run.ts) owns one per drive.
 *
 * A result's spend (what computing it cost, ResumeStore SpendDelta) is committed in its result's
 * transaction, added up per step of the drive as it comes (SpendSums: one small object a step, not
 * one an item); spend without a result (an item out of tries, a step's wall-clock time) goes with the
 * next commit. A crash loses at most the uncommitted group, its spend with it.
 */
import type { ItemCommit, SpendDelta } from '../store/resume-store.js';
import { SpendSums } from '../store/spend-sums.js';

export interface GroupCommitLimits {
  readonly maxItems: number;
  readonly windowMs: number;
}

/**
 * 1000 results or 100 ms, whichever comes first: 1000 code-step results are a few tens of
 * milliseconds of work (larger groups measured no faster), and 100 ms is what a slow step's result
 * waits at most before it is durable.
 */
export const DEFAULT_GROUP_COMMIT: GroupCommitLimits = { maxItems: 1000, windowMs: 100 };

export class GroupCommit {
  readonly #commit: (batch: readonly ItemCommit[], spend: readonly SpendDelta[]) => Promise<void>;
  readonly #limits: GroupCommitLimits;
  #pending: ItemCommit[] = [];
  #spend = new SpendSums();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The last commit started: the next one starts after it. */
  #committing: Promise<void> = Promise.resolve();
  /** A commit the timer started failed: the next add or flush throws it. */
  #failure: { readonly error: unknown } | undefined;

  constructor(
    commit: (batch: readonly ItemCommit[], spend: readonly SpendDelta[]) => Promise<void>,
    limits: GroupCommitLimits = DEFAULT_GROUP_COMMIT,
  ) {
    this.#commit = commit;
    this.#limits = limits;
  }

  /**
   * Adds a result, and the spend it counts; commits the waiting ones when they are `maxItems`.
   * Rejects with a failed commit's error.
   */
  async add(result: ItemCommit, spend?: SpendDelta): Promise<void> {
    this.#throwFailure();
    this.#pending.push(result);
    if (spend !== undefined) this.#spend.add(spend);
    if (this.#pending.length >= this.#limits.maxItems) return this.flush();
    this.#timer ??= setTimeout(() => {
      this.flush().catch((error: unknown) => {
        this.#failure ??= { error };
      });
    }, this.#limits.windowMs);
  }

  /** Adds spend of no result: committed with the next commit (a flush, or the results that follow). */
  addSpend(spend: SpendDelta): void {
    this.#spend.add(spend);
  }

  /** Commits every waiting result; resolves once they and those before them are committed. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending;
    const spend = this.#spend.list();
    this.#pending = [];
    this.#spend = new SpendSums();
    const previous = this.#committing;
    const commit = async (): Promise<void> => {
      await previous;
      if (batch.length > 0 || spend.length > 0) await this.#commit(batch, spend);
    };
    this.#committing = commit();
    await this.#committing;
    this.#throwFailure();
  }

  #throwFailure(): void {
    if (this.#failure !== undefined) throw this.#failure.error;
  }
}
