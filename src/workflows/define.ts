/**
 * The workflow definition API: a workflow is a name, its parameters, an optional item source and
 * steps in order. A step computes one output per item of its own (one item, the source's items, or
 * keys derived from upstream outputs) from the run's parameters it declares and the upstream outputs
 * it declares it reads — nothing else, so the hash of those (its fingerprint, fingerprint.ts) says
 * when a stored output can be reused. Definitions are plain objects written in TypeScript; the
 * engine (run.ts) validates their shape before it runs anything.
 */
import type { z } from 'zod';
import type { Json } from '../store/resume-store.js';

export type { Json };

/** What an items function or a read selector sees of the run: parameters and upstream outputs. */
export interface RunView {
  readonly params: Readonly<Record<string, Json>>;
  /** The item keys of an earlier step in this run, in order. */
  keys(step: string): readonly string[];
  /** The output of an earlier step's item in this run; throws for one that has none. */
  output(step: string, key: string): Json;
}

/** What one item's computation is given. */
export interface ItemInput {
  readonly key: string;
  /** The run parameters the step declares, by name. */
  readonly params: Readonly<Record<string, Json>>;
  /** The upstream outputs the step declares it reads: step → item key → output. */
  readonly inputs: Readonly<Record<string, Readonly<Record<string, Json>>>>;
}

/**
 * An upstream dependency: which of `step`'s items each item reads — the one with the same key,
 * `all` of them (a fan-in), or those a selector names (computed from the run, e.g. the batches that
 * hold a customer's transactions).
 */
export interface Read {
  readonly step: string;
  readonly items: 'same' | 'all' | ((key: string, run: RunView) => readonly string[]);
}

/** Planning estimates per item, used until measured history exists. */
export interface Estimate {
  readonly secondsPerItem: number;
  /**
   * Seconds the step takes once whenever any of its items run, on top of the per-item seconds: a
   * person's review sitting, a warm-up.
   */
  readonly fixedSeconds?: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /**
   * How many items the step is expected to have, for a plan made before they can be listed (its
   * items function needs an upstream output not computed yet, as on a run's first plan).
   */
  readonly items?: number;
}

/** A step's items: one item (`all`), the workflow's source items, or keys derived from the run. */
export type Items = 'single' | 'source' | ((run: RunView) => readonly string[]);

/** The key of a `single` step's one item. */
export const SINGLE_ITEM = 'all';

interface StepBase {
  readonly name: string;
  /** Change it when the step's code or prompt changes what it outputs: its items rerun. */
  readonly version: string;
  readonly items: Items;
  /** The run parameters it reads. */
  readonly params?: readonly string[];
  readonly reads?: readonly Read[];
  /** How many items run at once (default: 1 for code, 4 for model steps). */
  readonly concurrency?: number;
  readonly estimate?: Estimate;
}

/** A step computed by a function of its inputs. */
export interface CodeStep extends StepBase {
  readonly kind: 'code';
  run(input: ItemInput): Json | Promise<Json>;
}

/** The model a model step calls, through a named provider; all of it enters the fingerprint. */
export interface ModelSettings {
  readonly provider: string;
  readonly name: string;
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
}

/** A step computed by a model: a prompt per item, a JSON answer checked against `output`. */
export interface ModelStep extends StepBase {
  readonly kind: 'model';
  readonly model: ModelSettings;
  prompt(input: ItemInput): string;
  /** The answer's schema: an answer that is not JSON or does not match is a defect (no retry). */
  readonly output: z.ZodType<Json>;
}

/**
 * A step with an outside side effect (send an email, open a ticket), performed at most once per
 * idempotency key through the effects ledger (effects.ts): the key is claimed durably before the
 * effect runs and its result recorded after, so neither a crash nor a rerun performs it twice.
 */
export interface EffectStep extends StepBase {
  readonly kind: 'effect';
  /** The idempotency key of the item's effect, e.g. `statement:<customer>:<month>`. */
  key(input: ItemInput): string;
  /** Performs the effect; given the key so the provider can dedupe too. Resolves with a receipt. */
  perform(input: ItemInput, key: string): Promise<Json>;
  /** After a crash: did the effect of `key` happen? (ask the provider); undefined when it cannot tell. */
  reconcile?(key: string): Promise<{ readonly done: Json } | { readonly notDone: true } | undefined>;
}

/**
 * A person's approval of each item (e.g. a statement before it is sent). Nothing computes it: an
 * item waits until someone approves it (`harmflow workflow review`), and the approval is bound to the
 * fingerprint of what was reviewed — a changed upstream output needs a new one. Its output is the
 * approval: `{approved: true, by, at}`.
 */
export interface ReviewStep extends StepBase {
  readonly kind: 'review';
  /** What the reviewer sees of the item (default: its inputs). */
  show?(input: ItemInput): Json;
  /**
   * Whether a person must see the item (default: every item). `change.earlier` is what the step
   * showed of the item before this run changed what it reads — a statement redrafted after a fix —
   * and is absent when nothing it reads changed in this run or the change does not show. An item
   * this returns false for is approved by the rule (`by: "rule"`), bound to its inputs like a
   * person's approval.
   */
  needsPerson?(input: ItemInput, change: { readonly earlier?: Json }): boolean;
}

/**
 * A step run by a coding agent: each item is a HarmFlow task run as an execution, with its harness
 * chain and failover (src/execution). `task(input)` gives the task file's fields, with `repo` and any
 * `simulate` as absolute paths. The item's output is the execution's outcome: its id, state, branch
 * and the harness of each attempt; an execution that does not succeed fails the item.
 */
export interface AgentStep extends StepBase {
  readonly kind: 'agent';
  task(input: ItemInput): Readonly<Record<string, unknown>>;
}

export type StepDefinition = CodeStep | ModelStep | EffectStep | ReviewStep | AgentStep;

export interface WorkflowDefinition {
  readonly name: string;
  /** Parameter defaults; a run may override them. */
  readonly params?: Readonly<Record<string, Json>>;
  /** The items `source` steps run over (e.g. the customers), from the run's parameters. */
  readonly source?: (params: Readonly<Record<string, Json>>) => readonly string[];
  readonly steps: readonly StepDefinition[];
}

/** One model call's request, as a provider receives it. */
export interface ModelRequest {
  readonly model: string;
  readonly prompt: string;
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
  readonly signal?: AbortSignal;
}

/** One model call's answer and what it cost. */
export interface ModelAnswer {
  readonly text: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /**
   * How long the call took as the provider measured it (e.g. an API's processing-time header), when
   * it says; the engine records it as the item's duration instead of its own wall-clock time.
   */
  readonly durationMs?: number;
}

/**
 * A model provider: a real API client, a loopback stand-in, or a deterministic local one. It throws
 * TransientError (errors.ts) for what is worth retrying (429, 529, 5xx, timeouts) and anything else
 * for defects.
 */
export interface ModelProvider {
  complete(request: ModelRequest): Promise<ModelAnswer>;
}
