/**
 * The ResumeStore: the seam between the workflow engine (src/workflows) and its database of runs,
 * step outputs and run items. Outputs are kept under their **fingerprint** (a hash of everything the
 * output depends on) and never overwritten or deleted by a run, so a rerun reuses every output whose
 * fingerprint it computes again, and reverting a change costs nothing. A run's **items** point at the
 * outputs it used (or record the item's failure). Adapters: sqlite/ (the embedded default, in the
 * same database file as the Store) and postgres/ (in the same PostgreSQL schema as its Store, shared
 * by several processes). Every adapter passes test/store/resume-conformance.ts.
 *
 * Records are exact: a field never set is absent. Timestamps are ISO 8601 strings. JSON values are
 * passed as parsed values and stored as their JSON text; `digest` is the caller's hash of that text.
 * Fingerprints and digests (`replaced` too) are SHA-256 hashes, passed as 64 lowercase hex
 * characters: an adapter may keep their 32 bytes, so it refuses text that is not the hex of 32 bytes
 * (a commit with such text rejects and commits nothing), and getOutputs and outputDigests find
 * nothing under it.
 */

/** A JSON value: what step outputs, parameters and fingerprint components are made of. */
export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

/**
 * The process that drives a run: it names itself when it takes the run (a new run, a resume) and is
 * cleared when the run stops. Its pid and start time are those src/proc/process-identity.ts reads,
 * so a reader on the same machine tells a live owner from a dead one or a recycled pid
 * (src/workflows/run-owner.ts).
 */
export interface RunOwner {
  readonly pid: number;
  /** The machine it runs on (its host name): pids are checked only there. */
  readonly host: string;
  /** The process's start time in clock ticks since boot; `0` where the system does not tell it. */
  readonly startTime: string;
  /** When it took the run. */
  readonly since: string;
}

/** One run of a workflow. */
export interface RunRecord {
  readonly id: string;
  readonly workflow: string;
  /** The run's parameters, as given when it was created. */
  readonly params: { readonly [key: string]: Json };
  /**
   * `running` while a process drives it (its `owner`: a run whose owner died stays `running` here,
   * and is shown `interrupted`, run-owner.ts); `crashed` when it stopped on an error it may resume
   * from; `waiting` when items wait for a person's review (resume after reviewing).
   */
  readonly state: 'running' | 'crashed' | 'waiting' | 'succeeded' | 'failed';
  /** Why it stopped, e.g. `crashed at fact-check item c-1412: overloaded (retry budget spent)`. */
  readonly message?: string;
  /**
   * The absolute path of the workflow file it was started from, or last resumed with, so it can be
   * resumed (planned, invalidated) by its id alone with the file that fixed it.
   */
  readonly module?: string;
  /** The process driving it while it is `running`; absent once it stopped, and on runs of older versions. */
  readonly owner?: RunOwner;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * A change to a run, with JSON Merge Patch meaning (as ExecutionPatch): `null` removes `message` or
 * `owner`.
 */
export interface RunPatch {
  readonly state?: RunRecord['state'];
  readonly message?: string | null;
  readonly owner?: RunOwner | null;
  /** The workflow file a resume drives it with. */
  readonly module?: string;
  readonly updatedAt: string;
}

/** What a step item's output was measured to cost, for plans made from history. */
export interface Measured {
  readonly durationMs: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

/**
 * An output kept under its fingerprint, less its value: what a plan decides and measures from (why an
 * item reruns, what it cost), read without the value it does not use (getOutputRecords).
 */
export interface OutputRecord {
  readonly fingerprint: string;
  readonly workflow: string;
  readonly step: string;
  readonly item: string;
  /** The hash of the output's JSON text (what downstream fingerprints take in). */
  readonly digest: string;
  /** What the fingerprint was made of, so a plan can say why an item reruns. */
  readonly components: Json;
  readonly measured: Measured;
  readonly createdAt: string;
}

/** An output kept under its fingerprint: its record and its value. */
export interface StoredOutput extends OutputRecord {
  readonly output: Json;
}

/** An item of a run: done (with the output it used) or failed (with why). */
export type RunItem =
  | {
      readonly run: string;
      readonly step: string;
      readonly item: string;
      readonly status: 'done';
      readonly fingerprint: string;
      readonly digest: string;
      /** True when the output was reused rather than computed by this run. */
      readonly cached: boolean;
      /**
       * The fingerprint of the output this run's item used before it got one with another digest
       * (the first such, kept through later changes): what changed in this run, e.g. a statement
       * redrafted after a fix, which a review shows as a diff.
       */
      readonly replaced?: string;
      readonly tries: number;
      readonly updatedAt: string;
    }
  | {
      readonly run: string;
      readonly step: string;
      readonly item: string;
      readonly status: 'failed';
      readonly fingerprint: string;
      /** The defect, one line (e.g. `output does not match the schema: totals.net: expected number`). */
      readonly error: string;
      readonly tries: number;
      readonly updatedAt: string;
    };

/**
 * One item's result to commit: its run item and, when it computed a new output, that output. An
 * output whose fingerprint is stored already is left as it is (same fingerprint, same inputs).
 */
export interface ItemCommit {
  readonly item: RunItem;
  readonly output?: StoredOutput;
  /**
   * The JSON texts of `output.output` and `output.components`, when the caller has made them already
   * (the engine has: they are what it hashes, canonical JSON): an adapter that stores JSON as text
   * stores these instead of serializing the values again. Each must be JSON whose value equals the
   * field's (object keys may come in another order); reading the output back gives that value.
   */
  readonly texts?: { readonly output: string; readonly components: string };
}

/** USD per million tokens of one model (as plans take it, src/workflows/plan-cost.ts). */
export interface Price {
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
}

/**
 * What a drive's plan estimated for one step: the items it expected to run (will and may) and what
 * they would cost; `null` where the plan could not tell (no price, no history, no estimate).
 */
export interface PlannedSpend {
  readonly items: number;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly usd: number | null;
  readonly hours: number | null;
}

/**
 * One step of a drive as the drive starts (startDrive): the model it calls and the price the drive
 * was given for it, which its tokens' dollars are counted at, and the plan's estimate, when the
 * drive was given a plan.
 */
export interface DriveStep {
  readonly step: string;
  /**
   * What the step does (a workflow StepDefinition's kind): a model step's tokens are counted here; an
   * agent step's executions record their model cost with the executions, not here.
   */
  readonly kind: 'code' | 'model' | 'effect' | 'agent' | 'review';
  /** The model of a model step; absent for a step that calls none (it spends no dollars). */
  readonly model?: string;
  /** The drive's price of `model`; absent when it had none: the step's dollars are unknown. */
  readonly price?: Price;
  readonly planned?: PlannedSpend;
}

/**
 * Spend to add to one step of a drive: what computing some of its items cost. Each figure is added
 * to what the step has (an absent one adds 0); nothing is ever set back. Durations and tokens are
 * the sums of what was reported; `unreportedTokens` counts the tries of a model step that reported
 * no tokens and `unreportedItems` the items that reported nothing at all, so a reader never takes a
 * missing figure for zero.
 */
export interface SpendDelta {
  readonly run: string;
  readonly drive: number;
  readonly step: string;
  /** Items computed: at least one try, whatever its end (done, failed, out of tries). */
  readonly items?: number;
  /** Of those, the items that failed with a defect. */
  readonly failed?: number;
  readonly tries?: number;
  /** The tries' durations, summed: item-time, not the step's wall clock. */
  readonly itemMs?: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly unreportedTokens?: number;
  readonly unreportedItems?: number;
  /** The step's wall-clock time in the drive. */
  readonly wallMs?: number;
}

/** What one step spent in one drive of a run (every figure of SpendDelta, summed), with the drive's start. */
export interface StepSpend extends DriveStep, Required<SpendDelta> {
  /** The step's place in the drive's steps (from 0): spend is listed in that order. */
  readonly position: number;
  readonly startedAt: string;
}

/**
 * Which stored outputs' digests to read: those among `fingerprints`, or those that the done items of
 * `run` (of one step when given) use.
 */
export type DigestQuery =
  | { readonly fingerprints: readonly string[] }
  | { readonly run: string; readonly step?: string };

/**
 * A person's word that a step's outputs in a run are wrong although nothing the fingerprint covers
 * changed (a model that misbehaved): its items are computed again on resume (`workflow invalidate`).
 */
export interface Invalidation {
  readonly run: string;
  readonly step: string;
  readonly reason: string;
  readonly at: string;
}

/**
 * The ResumeStore. The opener owns it and closes it; `close()` is idempotent, and any other call
 * after it rejects. Each method is atomic; calls may overlap.
 */
export interface ResumeStore {
  /** Adds a run; rejects if its id exists. */
  createRun(run: RunRecord): Promise<void>;
  /** Returns the run, or undefined. */
  getRun(id: string): Promise<RunRecord | undefined>;
  /** Applies a patch; rejects with NotFoundError for an unknown run. */
  updateRun(id: string, patch: RunPatch): Promise<void>;
  /** Runs, newest first (by createdAt, then id); only those of `workflow` when given. */
  listRuns(query?: { readonly workflow?: string }): Promise<RunRecord[]>;
  /** The stored outputs among `fingerprints`, keyed by fingerprint (missing ones are absent). */
  getOutputs(fingerprints: readonly string[]): Promise<Map<string, StoredOutput>>;
  /**
   * The stored outputs among `fingerprints` as getOutputs gives them, less their values (one query,
   * the value column left unread): what a plan asks of the outputs it looks up and of those it
   * measures, whose values it never reads — in the statements example, a 16 MB pull output and 1,200
   * categorise outputs of 4 KB each.
   */
  getOutputRecords(fingerprints: readonly string[]): Promise<Map<string, OutputRecord>>;
  /**
   * The digests of stored outputs, keyed by fingerprint, without reading their values: what the
   * engine decides what to run from (the values are loaded, with getOutputs, only for the items that
   * compute). With `fingerprints`: the outputs stored among them (missing ones are absent, as in
   * getOutputs). With `run`: the outputs the run's done items use (of `step` when given), in the
   * items' (step, item) order, leaving out an item whose output is not stored (pruned) and failed
   * items. Each digest is the stored output's.
   */
  outputDigests(query: DigestQuery): Promise<Map<string, string>>;
  /**
   * The newest stored output of each item of `step` in `workflow` (by createdAt; of two created at
   * the same instant, the one with the greater fingerprint), whatever its fingerprint, keyed by item:
   * what a plan compares a new fingerprint's components with.
   */
  latestOutputs(workflow: string, step: string): Promise<Map<string, StoredOutput>>;
  /**
   * Commits item results in one transaction: every run item is upserted (by run, step, item), every
   * new output inserted and every spend delta added to its drive's step, or nothing is. Rejects with
   * NotFoundError, committing nothing, when an item names an unknown run or a delta a step of a drive
   * that was not started (startDrive). The engine commits an item's spend with the item, so a crash
   * never keeps spend for an item it did not commit.
   */
  commitItems(commits: readonly ItemCommit[], spend?: readonly SpendDelta[]): Promise<void>;
  /**
   * Starts the next drive of `run` (a start or a resume): numbers it (1 for the first, one more than
   * the run's last after that) and records each of `steps`, in order, with nothing spent, at `at`.
   * Resolves to its number. Rejects with NotFoundError for an unknown run. One process drives a run
   * at a time (its owner); two drives started at once get two numbers or one rejects, never one.
   */
  startDrive(run: string, steps: readonly DriveStep[], at: string): Promise<number>;
  /** The spend of each of `runs`, by run, drive and the step's position in its drive. */
  listSpend(runs: readonly string[]): Promise<StepSpend[]>;
  /** Records an invalidation; rejects with NotFoundError for an unknown run. */
  invalidate(invalidation: Invalidation): Promise<void>;
  /** A run's invalidations, oldest first. */
  listInvalidations(run: string): Promise<Invalidation[]>;
  /** A run's items, in (step, item) order (code point order); those of one step when given. */
  listRunItems(run: string, step?: string): Promise<RunItem[]>;
  /** Releases the database. Idempotent. */
  close(): Promise<void>;
}
