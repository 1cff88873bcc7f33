/**
 * `harmflow worker --model-limit provider/name=max/duration` (repeatable): a model whose workflow
 * items this worker computes, and its rate limit — at most `max` calls started in each `duration`
 * window, e.g. `anthropic/claude-sonnet=50/1m`. The limit is the provider account's, so every worker
 * serving a model should be given the same one (BullMQ keeps the window in Redis, cluster-wide). The
 * provider is what comes before the first `/`; the name may hold more `/` (`openrouter/meta/llama-3`).
 * Loads neither BullMQ nor the item worker: `worker.ts` parses these before anything is imported.
 */
import { z } from 'zod';
import { formatDuration, parseDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { RateLimit } from '../workflows/cluster-jobs.js';
import type { ServedModel } from '../workflows/cluster-worker.js';

const EXAMPLE = 'anthropic/claude-sonnet=50/1m';

const Written = /^(?<provider>[^/=\s]+)\/(?<name>[^=\s]+)=(?<max>\d+)\/(?<window>[^=/\s]+)$/;

/** One `--model-limit` value, parsed to the model and its limit; its issues name what is wrong. */
const ModelLimit = z.string().transform((text, context): ServedModel => {
  const parts = Written.exec(text)?.groups;
  if (parts === undefined) {
    context.addIssue({ code: 'custom', message: `write provider/name=max/duration, e.g. ${EXAMPLE}` });
    return z.NEVER;
  }
  const { provider = '', name = '', max = '', window = '' } = parts;
  const durationMs = parseDuration(window);
  if (durationMs === undefined || !Number.isInteger(durationMs)) {
    context.addIssue({ code: 'custom', message: `${window} is not a duration of whole milliseconds (e.g. 1s, 1m)` });
    return z.NEVER;
  }
  const limit = RateLimit.safeParse({ max: Number(max), durationMs });
  if (!limit.success) {
    context.addIssue({ code: 'custom', message: `${max} is not a whole number of calls from 1` });
    return z.NEVER;
  }
  return { provider, name, limit: limit.data };
});

/**
 * The models the `--model-limit` values name, with their limits. Throws a UsageError of one line for
 * a value that does not parse or a model given twice.
 */
export function parseModelLimits(values: readonly string[]): ServedModel[] {
  const models = new Map<string, ServedModel>();
  for (const value of values) {
    const parsed = ModelLimit.safeParse(value);
    if (!parsed.success) {
      throw new UsageError(`--model-limit ${JSON.stringify(value)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    }
    const id = `${parsed.data.provider}/${parsed.data.name}`;
    if (models.has(id)) throw new UsageError(`--model-limit: ${id} is given twice; give each model one limit`);
    models.set(id, parsed.data);
  }
  return [...models.values()];
}

/** A served model as the worker's start line shows it: `anthropic/claude-sonnet at 50 calls per 1m`. */
export function describeModel(model: ServedModel): string {
  const id = `${model.provider}/${model.name}`;
  if (model.limit === undefined) return id;
  return `${id} at ${model.limit.max} calls per ${formatDuration(model.limit.durationMs)}`;
}
