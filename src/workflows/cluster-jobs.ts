/**
 * The item jobs of cluster mode: what a coordinator (cluster-executor.ts) hands item workers
 * (cluster-worker.ts) on BullMQ, and what they hand back. A job is a chunk of one step's items; the
 * store stays the source of truth — a worker commits the chunk's results to the ResumeStore before its
 * job completes, and the job's return value only tells the coordinator what was committed. Both sides
 * parse what they receive (zod): a payload or a result of another shape is refused, never guessed.
 *
 * Queues: code and effect steps' chunks go to the general queue; a model step's items go one a job to
 * the queue of its provider and model, where BullMQ's limiter, which counts jobs, then counts model
 * calls (BullMQ has no per-group limits, so a queue per model is how each model gets its own).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Json } from '../store/resume-store.js';
import type { ModelSettings } from './define.js';
import { RetryConfig } from './retry.js';

/** The queue of code and effect steps' chunks. */
export const GENERAL_ITEM_QUEUE = 'harmflow-items';

/** The key prefix of the item queues' Redis keys unless told (the dispatch queue's default). */
export const DEFAULT_ITEM_PREFIX = 'harmflow';

/**
 * The queue of a model's calls: `harmflow-items-model/<provider>/<name>`, each part URI-encoded, so
 * two models never share a queue and no name brings a `:` into a Redis key.
 */
export function modelQueueName(model: Pick<ModelSettings, 'provider' | 'name'>): string {
  return `${GENERAL_ITEM_QUEUE}-model/${encodeURIComponent(model.provider)}/${encodeURIComponent(model.name)}`;
}

/** A model's rate limit: at most `max` calls started in each `durationMs` window, cluster-wide. */
export const RateLimit = z.strictObject({ max: z.int().positive(), durationMs: z.int().positive() });
export type RateLimit = z.infer<typeof RateLimit>;

/**
 * How item jobs are held and how a dead worker's come back (BullMQ's lock and stalled check), as the
 * dispatch queue's (src/cluster/dispatch.ts): every worker of the cluster should use the same values.
 */
export interface ItemLock {
  readonly lockDurationMs: number;
  readonly stalledIntervalMs: number;
  readonly maxStalledCount: number;
}

/**
 * 15 s lock, checked every 10 s: a dead worker's chunk is taken by another within 25 s, as an
 * execution is (src/cluster/dispatch.ts gives the reasons). `maxStalledCount` 2: a chunk that loses
 * a third worker fails, and its run crashes, resumable — more likely the chunk killing its workers
 * than bad luck.
 */
export const ITEM_LOCK: ItemLock = { lockDurationMs: 15_000, stalledIntervalMs: 10_000, maxStalledCount: 2 };

/** The workflow file a job's step comes from: its absolute path and the SHA-256 of its bytes. */
export const ModuleRef = z.strictObject({ path: z.string().min(1), digest: z.string().regex(/^[0-9a-f]{64}$/) });
export type ModuleRef = z.infer<typeof ModuleRef>;

/** The reference of the workflow file at `path` (absolute), as it is on disk now. */
export async function moduleRef(path: string): Promise<ModuleRef> {
  return {
    path,
    digest: createHash('sha256')
      .update(await readFile(path))
      .digest('hex'),
  };
}

const Hash = z.string().regex(/^[0-9a-f]{64}$/);
const JsonValue = z.json() as z.ZodType<Json>;

/** One item of a chunk: what the coordinator planned and loaded for it. */
export const ChunkItem = z.strictObject({
  key: z.string(),
  fingerprint: Hash,
  /** The fingerprint components' canonical JSON, as the coordinator hashed it. */
  components: z.string(),
  input: z.strictObject({
    key: z.string(),
    params: z.record(z.string(), JsonValue),
    inputs: z.record(z.string(), z.record(z.string(), JsonValue)),
  }),
  /** The output this run's item used before, when it was done (RunItem.replaced is decided from it). */
  before: z.strictObject({ fingerprint: Hash, digest: Hash, replaced: Hash.optional() }).optional(),
});
export type ChunkItem = z.infer<typeof ChunkItem>;

/** A job: a chunk of one step's items in one run. */
export const ChunkJob = z.strictObject({
  module: ModuleRef,
  run: z.string(),
  /** The drive of the run (ResumeStore.startDrive) the worker adds the chunk's spend to, with its items. */
  drive: z.int().min(1).optional(),
  workflow: z.string(),
  step: z.string(),
  /** The run's retry settings, and what is left of its retry budget when the chunk was dispatched. */
  retry: RetryConfig,
  budgetLeft: z.int().min(0),
  items: z.array(ChunkItem).min(1),
});
export type ChunkJob = z.input<typeof ChunkJob>;

/** What an item's tries spent (run.ts Spent), as the worker measured it. */
const ItemSpent = z.strictObject({
  tries: z.int().min(0),
  durationMs: z.number().min(0).optional(),
  inputTokens: z.number().min(0).optional(),
  outputTokens: z.number().min(0).optional(),
  unreportedTokens: z.int().min(0).optional(),
});

/**
 * How an item of a chunk ended; an item the chunk did not start (the run stopping) is absent.
 * `spent`: what the item's tries spent, for an item this worker computed (not one it found committed).
 */
export const ChunkOutcome = z.discriminatedUnion('status', [
  z.strictObject({
    status: z.literal('done'),
    key: z.string(),
    digest: Hash,
    output: JsonValue.optional(),
    tries: z.int().min(0),
    spent: ItemSpent.optional(),
  }),
  z.strictObject({
    status: z.literal('failed'),
    key: z.string(),
    error: z.string(),
    tries: z.int().min(0),
    spent: ItemSpent.optional(),
  }),
  z.strictObject({
    status: z.literal('exhausted'),
    key: z.string(),
    error: z.string(),
    tries: z.int().min(0),
    reason: z.enum(['item', 'budget']),
    spent: ItemSpent.optional(),
  }),
]);
export type ChunkOutcome = z.infer<typeof ChunkOutcome>;

/**
 * A job's return value: its items' outcomes (done and failed ones committed) and its retries.
 * `spendRecorded`: the worker added the chunk's spend to the job's drive in its commit (every item it
 * computed, out of tries included), so the coordinator records none of it.
 */
export const ChunkResult = z.strictObject({
  outcomes: z.array(ChunkOutcome),
  spendRecorded: z.boolean().optional(),
  retries: z.array(z.strictObject({ key: z.string(), tryNumber: z.int(), delayMs: z.number(), error: z.string() })),
});
export type ChunkResult = z.infer<typeof ChunkResult>;
