/**
 * Computes one step item once: calls the code step's function, the model step's provider with its
 * prompt (checking the answer against the step's schema), or the effect step's effect through the
 * ledger. Throws what the step threw (the
 * retry policy classifies it); a result that is not JSON, or a model answer that is not JSON or does
 * not match the schema, is a DefectError — retrying would give the same.
 */
import { z } from 'zod';
import type { EffectLedger } from '../store/effect-ledger.js';
import type { Json, Measured } from '../store/resume-store.js';
import { type AgentContext, runAgentItem } from './agent-item.js';
import type { EffectStep, ItemInput, ModelProvider, StepDefinition } from './define.js';
import { performEffect } from './effects.js';
import { DefectError, TransientError } from './errors.js';

/** 200 characters of a bad answer in an error: enough to recognise it, short enough for one line. */
const ANSWER_EXCERPT_CHARS = 200;

export interface Computed {
  readonly output: Json;
  readonly measured: Measured;
}

/** What computing an item may need besides its step and input. */
export interface ComputeContext {
  readonly providers: Readonly<Record<string, ModelProvider>>;
  /** For effect steps: the ledger, and the run the effect is claimed for. */
  readonly ledger?: EffectLedger;
  readonly workflow: string;
  readonly run: string;
  /** For agent steps: where their executions run. */
  readonly agents?: AgentContext;
  /** Measures the duration. */
  readonly now: () => number;
  readonly signal?: AbortSignal;
}

/** Runs `step` for `input` once. */
export async function computeItem(step: StepDefinition, input: ItemInput, context: ComputeContext): Promise<Computed> {
  const { providers, now, signal } = context;
  const started = now();
  if (step.kind === 'code') {
    const output = await step.run(input);
    if (!isJson(output)) throw new DefectError(`step ${step.name} returned a value that is not JSON`);
    return { output, measured: { durationMs: now() - started } };
  }
  if (step.kind === 'effect') {
    return { output: await performStepEffect(step, input, context), measured: { durationMs: now() - started } };
  }
  if (step.kind === 'review') throw new DefectError(`step ${step.name} is a review: a person approves it`);
  if (step.kind === 'agent') {
    return { output: await runAgentItem(step, input, context.agents), measured: { durationMs: now() - started } };
  }
  const provider = providers[step.model.provider];
  if (provider === undefined) throw new DefectError(`no model provider ${JSON.stringify(step.model.provider)}`);
  const answer = await provider.complete({
    model: step.model.name,
    prompt: step.prompt(input),
    ...(step.model.temperature !== undefined && { temperature: step.model.temperature }),
    ...(step.model.maxOutputTokens !== undefined && { maxOutputTokens: step.model.maxOutputTokens }),
    ...(signal !== undefined && { signal }),
  });
  const measured = {
    durationMs: answer.durationMs ?? now() - started,
    inputTokens: answer.inputTokens,
    outputTokens: answer.outputTokens,
  };
  // An answer refused below still used its tokens: the defect carries them (errors.ts TrySpent).
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    throw new DefectError(`the model's answer is not JSON: ${excerpt(answer.text)}`, { spent: measured });
  }
  const parsed = step.output.safeParse(json);
  if (!parsed.success) {
    throw new DefectError(
      `the model's answer does not match the output schema: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, '; ')}`,
      { spent: measured },
    );
  }
  return { output: parsed.data, measured };
}

/**
 * An effect step's item through the ledger: its output is `{key, result}` — the receipt, whether this
 * call performed the effect or found it done. Refused → a defect; unknown (claimed by a process that
 * died, and not reconcilable) → a defect naming the key, for a person to settle; performed by another
 * live process now → transient (retried).
 */
async function performStepEffect(step: EffectStep, input: ItemInput, context: ComputeContext): Promise<Json> {
  if (context.ledger === undefined)
    throw new DefectError(`step ${step.name} performs effects, but no effects ledger is open`);
  const key = step.key(input);
  const reconcile = step.reconcile?.bind(step);
  const outcome = await performEffect({
    ledger: context.ledger,
    key,
    workflow: context.workflow,
    run: context.run,
    step: step.name,
    item: input.key,
    effect: (claimed) => step.perform(input, claimed),
    ...(reconcile !== undefined && { reconcile }),
    now: context.now,
  });
  switch (outcome.status) {
    case 'done':
      return { key, result: outcome.result };
    case 'failed':
      throw new DefectError(`effect ${key} was refused: ${outcome.error}`);
    case 'unknown':
      throw new DefectError(
        `effect ${key} is unknown (${outcome.reason}): settle it with \`harmflow workflow effects RUN --resolve ${key}\``,
      );
    case 'in-flight':
      throw new TransientError(`effect ${key} is being performed by another process (${outcome.holder})`);
  }
}

/** True for a JSON value: null, booleans, finite numbers, strings, arrays and plain objects of them. */
export function isJson(value: unknown): value is Json {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  if (typeof value === 'object') {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return false;
    return Object.values(value as Record<string, unknown>).every(isJson);
  }
  return false;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > ANSWER_EXCERPT_CHARS ? `${flat.slice(0, ANSWER_EXCERPT_CHARS)}…` : flat;
}
