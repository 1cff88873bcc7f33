/**
 * The item worker of cluster mode: takes chunk jobs (cluster-jobs.ts) from the general item queue and
 * from the queues of the models it is given, computes each chunk's items with the engine's own code
 * (item-executor.ts: the step's concurrency within a chunk, the run's retry policy, effects through
 * the EffectLedger), commits the chunk's results to the ResumeStore in one transaction, and completes
 * the job with what it committed. The coordinator (cluster-executor.ts) goes on from there.
 *
 * Its step comes from the workflow file the job names: loaded from that path on this machine, and
 * refused (the job fails, and the run crashes, resumable) when the file's digest is not the one the
 * coordinator hashed — deploy the same file to the same path on every worker.
 *
 * A worker that dies mid-chunk: BullMQ's stalled check moves the job back (ITEM_LOCK) and another
 * worker takes it. It finds the items the dead one committed (the run's items, by fingerprint) and
 * does not compute them again; it reuses any output stored under an item's fingerprint meanwhile; an
 * effect the dead worker claimed is `unknown` to the ledger, and its step's reconcile settles it (or
 * a person does), so no effect is performed twice (effects.ts). Results computed but not yet
 * committed by the dead worker are computed again; an effect among them is found `done`.
 *
 * Spend: given the job's drive, the worker adds what each item it computed spent (every try, out of
 * tries included) to the drive's step in the transaction that commits the chunk, and returns it with
 * each outcome (`spent`, for the coordinator's progress). Spend of a chunk whose worker dies before it
 * commits is lost with its results; the items are computed again, and that spend is recorded.
 *
 * Rate limits: a model queue's Worker has BullMQ's limiter (`max` jobs a `durationMs` window, kept in
 * Redis, so the limit holds across all workers of the queue as long as they are given the same one);
 * a model step's job is one item, so the limit counts model calls (retries inside an item aside).
 *
 * The caller owns the store and the ledger and closes them after the worker.
 */
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { RedisConnection } from '../cluster/queue-url.js';
import { describeError, UsageError } from '../core/errors.js';
import type { EffectLedger } from '../store/effect-ledger.js';
import type { ItemCommit, ResumeStore, SpendDelta } from '../store/resume-store.js';
import type { AgentContext } from './agent-item.js';
import {
  type ChunkItem,
  ChunkJob,
  type ChunkOutcome,
  type ChunkResult,
  DEFAULT_ITEM_PREFIX,
  GENERAL_ITEM_QUEUE,
  ITEM_LOCK,
  type ItemLock,
  modelQueueName,
  moduleRef,
  type RateLimit,
} from './cluster-jobs.js';
import type { ModelSettings } from './define.js';
import { parseComponents } from './fingerprint.js';
import { computedCommit, doneItem, failedItem } from './item-commits.js';
import {
  computeWithRetries,
  type DriveContext,
  forEachLimited,
  type ItemOutcome,
  type ReadyItem,
} from './item-executor.js';
import { loadWorkflowModule, type WorkflowModule } from './module.js';
import { RetryBudget, resolveRetryPolicy } from './retry.js';
import { spendDelta } from './spend.js';
import { defaultConcurrency } from './validate.js';

/** A model this worker computes items of, and its rate limit (none: unlimited). */
export interface ServedModel extends Pick<ModelSettings, 'provider' | 'name'> {
  readonly limit?: RateLimit;
}

export interface ItemWorkerOptions {
  readonly connection: RedisConnection;
  /** The prefix of the item queues' Redis keys: the coordinators'. Default DEFAULT_ITEM_PREFIX. */
  readonly prefix?: string;
  readonly store: ResumeStore;
  /** Required for effect steps: their items fail without it. */
  readonly ledger?: EffectLedger;
  /** Where agent steps' executions run, if this worker computes them. */
  readonly agents?: AgentContext;
  /** The most chunks computed at once, per queue: a positive integer. */
  readonly concurrency: number;
  /** The models whose queues this worker takes jobs from; every worker should give a model the same limit. */
  readonly models?: readonly ServedModel[];
  /** Default ITEM_LOCK; every worker of the cluster should have the same. */
  readonly lock?: ItemLock;
  /** Errors no job's result carries: connections, and jobs that failed. */
  readonly onError: (error: Error) => void;
  /** Injectable for tests: the clock. */
  readonly now?: () => number;
}

/** A running item worker. */
export interface ItemWorker {
  /** Stops taking jobs, waits for the chunks being computed to be committed, closes its connections. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts an item worker and resolves once it takes jobs from every queue it serves. Rejects with a
 * UsageError for a concurrency that is not a positive integer, or a rate limit that is not whole
 * positive numbers.
 */
export async function startItemWorker(options: ItemWorkerOptions): Promise<ItemWorker> {
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
    throw new UsageError(`an item worker's concurrency must be a positive integer, not ${options.concurrency}`);
  }
  const modules = new ModuleCache();
  const processor = (job: Job<unknown>) => computeChunk(job, options, modules);
  const lock = options.lock ?? ITEM_LOCK;
  const queues: { readonly name: string; readonly limit?: RateLimit }[] = [
    { name: GENERAL_ITEM_QUEUE },
    ...(options.models ?? []).map((model) => ({
      name: modelQueueName(model),
      ...(model.limit !== undefined && { limit: model.limit }),
    })),
  ];
  const workers: Worker[] = [];
  try {
    for (const { name, limit } of queues) {
      const worker = new Worker<unknown, ChunkResult>(name, processor, {
        connection: { ...options.connection },
        prefix: options.prefix ?? DEFAULT_ITEM_PREFIX,
        concurrency: options.concurrency,
        lockDuration: lock.lockDurationMs,
        stalledInterval: lock.stalledIntervalMs,
        maxStalledCount: lock.maxStalledCount,
        ...(limit !== undefined && { limiter: { max: limit.max, duration: limit.durationMs } }),
      });
      worker.on('error', options.onError);
      worker.on('failed', (job, error) =>
        options.onError(new Error(`item job ${job?.id ?? '(unknown)'} of queue ${name} failed: ${error.message}`)),
      );
      workers.push(worker);
    }
    await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  } catch (error) {
    await Promise.all(workers.map((worker) => worker.close(true)));
    throw error;
  }
  let closed: Promise<void> | undefined;
  return {
    close() {
      closed ??= Promise.all(workers.map((worker) => worker.close())).then(() => {});
      return closed;
    },
  };
}

/** The workflow files this worker has loaded, by path and digest. */
class ModuleCache {
  readonly #loaded = new Map<string, Promise<WorkflowModule>>();

  /** The module the job names; an UnrecoverableError when the file here is not the coordinator's. */
  async load(wanted: { readonly path: string; readonly digest: string }): Promise<WorkflowModule> {
    const here = await moduleRef(wanted.path).catch((error: unknown) => {
      throw new UnrecoverableError(
        `workflow file ${wanted.path} cannot be read on this worker: ${describeError(error)}`,
      );
    });
    if (here.digest !== wanted.digest) {
      throw new UnrecoverableError(
        `workflow file ${wanted.path} on this worker is not the coordinator's (sha256 ${here.digest.slice(0, 12)}…, expected ${wanted.digest.slice(0, 12)}…): deploy the same file to the same path on every worker`,
      );
    }
    const key = `${wanted.digest}:${wanted.path}`;
    let loading = this.#loaded.get(key);
    if (loading === undefined) {
      loading = loadWorkflowModule(wanted.path, wanted.digest);
      this.#loaded.set(key, loading);
      loading.catch(() => this.#loaded.delete(key));
    }
    return loading.catch((error: unknown) => {
      throw new UnrecoverableError(describeError(error));
    });
  }
}

/** Computes one chunk and commits its results; see the file comment. */
async function computeChunk(job: Job<unknown>, options: ItemWorkerOptions, modules: ModuleCache): Promise<ChunkResult> {
  const parsed = ChunkJob.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`item job ${job.id} is not a chunk of workflow items`);
  const chunk = parsed.data;
  const loaded = await modules.load(chunk.module);
  const step = loaded.workflow.steps.find((candidate) => candidate.name === chunk.step);
  if (step === undefined || step.kind === 'review' || loaded.workflow.name !== chunk.workflow) {
    throw new UnrecoverableError(
      `workflow file ${chunk.module.path} has no computing step ${JSON.stringify(chunk.step)} of workflow ${JSON.stringify(chunk.workflow)}`,
    );
  }
  const { store } = options;
  const now = options.now ?? Date.now;
  const stamp = () => new Date(now()).toISOString();
  const place = { run: chunk.run, workflow: chunk.workflow, step: chunk.step };
  const outcomes: ChunkOutcome[] = [];
  const commits: ItemCommit[] = [];
  const spend: SpendDelta[] = [];
  const { drive } = chunk;
  /** Records what `outcome`'s tries spent, when the job names the drive to add it to. */
  const count = (outcome: ItemOutcome, failed: boolean): void => {
    if (drive === undefined) return;
    spend.push(
      spendDelta({ run: chunk.run, drive, step: chunk.step }, outcome.spent, { tries: outcome.tries, failed }),
    );
  };
  const spentOf = (outcome: ItemOutcome) => (outcome.spent === undefined ? {} : { spent: outcome.spent });
  let items = chunk.items.map(readyItem);

  // A chunk taken again after its worker was lost: what that worker committed is kept as it is, and
  // an output stored under an item's fingerprint meanwhile is reused, as the engine would.
  if (job.attemptsStarted > 1 || job.stalledCounter > 0) {
    const committed = new Map((await store.listRunItems(chunk.run, chunk.step)).map((item) => [item.item, item]));
    items = items.filter((item) => {
      const done = committed.get(item.key);
      if (done?.status !== 'done' || done.fingerprint !== item.fingerprint) return true;
      outcomes.push({ status: 'done', key: item.key, digest: done.digest, tries: done.tries });
      return false;
    });
    const stored =
      items.length === 0
        ? new Map<string, string>()
        : await store.outputDigests({ fingerprints: items.map((item) => item.fingerprint) });
    items = items.filter((item) => {
      const digest = stored.get(item.fingerprint);
      if (digest === undefined) return true;
      const hit = { fingerprint: item.fingerprint, digest };
      commits.push({
        item: doneItem({ ...place, key: item.key }, hit, { cached: true, tries: 0, before: item.before }, stamp()),
      });
      outcomes.push({ status: 'done', key: item.key, digest, tries: 0 });
      return false;
    });
  }

  const retries: ChunkResult['retries'] = [];
  const context: DriveContext = {
    compute: {
      providers: loaded.providers,
      workflow: chunk.workflow,
      run: chunk.run,
      now,
      ...(options.ledger !== undefined && { ledger: options.ledger }),
      ...(options.agents !== undefined && { agents: options.agents }),
    },
    policy: resolveRetryPolicy(chunk.retry),
    budget: new RetryBudget(chunk.budgetLeft),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    random: Math.random,
    now,
    onRetry: (key, info) => retries.push({ key, ...info }),
  };
  let stopping = false;
  await forEachLimited(
    items,
    defaultConcurrency(step),
    () => stopping,
    async (item) => {
      const outcome = await computeWithRetries(step, item, context);
      const at = stamp();
      if (outcome.status === 'computed') {
        const commit = computedCommit(
          { ...place, key: item.key },
          item,
          outcome.computed,
          { tries: outcome.tries, before: item.before },
          at,
        );
        commits.push(commit);
        count(outcome, false);
        const { digest, output } = commit.output;
        outcomes.push({ status: 'done', key: item.key, digest, output, tries: outcome.tries, ...spentOf(outcome) });
      } else if (outcome.status === 'failed') {
        commits.push({ item: failedItem({ ...place, key: item.key }, item.fingerprint, outcome, at) });
        count(outcome, true);
        outcomes.push({
          status: 'failed',
          key: item.key,
          error: outcome.error,
          tries: outcome.tries,
          ...spentOf(outcome),
        });
      } else if (outcome.status === 'exhausted') {
        stopping = true;
        count(outcome, false);
        const { key, error, tries, reason } = outcome;
        outcomes.push({ status: 'exhausted', key, error, tries, reason, ...spentOf(outcome) });
      }
    },
  );
  if (commits.length > 0 || spend.length > 0) await store.commitItems(commits, spend);
  return { outcomes, retries, ...(drive !== undefined && { spendRecorded: true }) };
}

/** A chunk item as the engine's code takes it; an UnrecoverableError for components that do not parse. */
function readyItem(item: ChunkItem): ReadyItem {
  let components: ReturnType<typeof parseComponents>;
  try {
    components = parseComponents(JSON.parse(item.components));
  } catch {
    components = undefined;
  }
  if (components === undefined) throw new UnrecoverableError(`item ${item.key}'s fingerprint components do not parse`);
  return {
    key: item.key,
    fingerprint: item.fingerprint,
    components,
    componentsText: item.components,
    input: item.input,
    before:
      item.before === undefined
        ? undefined
        : {
            fingerprint: item.before.fingerprint,
            digest: item.before.digest,
            ...(item.before.replaced !== undefined && { replaced: item.before.replaced }),
          },
  };
}
