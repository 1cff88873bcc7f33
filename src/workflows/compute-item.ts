/**
 * Computes one step item once: calls the code step's function, or the model step's provider with
 * its prompt and checks the answer against the step's schema. Throws what the step threw (the
 * retry policy classifies it); a result that is not JSON, or a model answer that is not JSON or does
 * not match the schema, is a DefectError — retrying would give the same.
 */
import { z } from 'zod';
import type { Json, Measured } from '../store/resume-store.js';
import type { ItemInput, ModelProvider, StepDefinition } from './define.js';
import { DefectError } from './errors.js';

/** 200 characters of a bad answer in an error: enough to recognise it, short enough for one line. */
const ANSWER_EXCERPT_CHARS = 200;

export interface Computed {
  readonly output: Json;
  readonly measured: Measured;
}

/** Runs `step` for `input` once. `now` measures the duration. */
export async function computeItem(
  step: StepDefinition,
  input: ItemInput,
  providers: Readonly<Record<string, ModelProvider>>,
  now: () => number,
  signal?: AbortSignal,
): Promise<Computed> {
  const started = now();
  if (step.kind === 'code') {
    const output = await step.run(input);
    if (!isJson(output)) throw new DefectError(`step ${step.name} returned a value that is not JSON`);
    return { output, measured: { durationMs: now() - started } };
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
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    throw new DefectError(`the model's answer is not JSON: ${excerpt(answer.text)}`);
  }
  const parsed = step.output.safeParse(json);
  if (!parsed.success) {
    throw new DefectError(
      `the model's answer does not match the output schema: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, '; ')}`,
    );
  }
  return {
    output: parsed.data,
    measured: {
      durationMs: answer.durationMs ?? now() - started,
      inputTokens: answer.inputTokens,
      outputTokens: answer.outputTokens,
    },
  };
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
