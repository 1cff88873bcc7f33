/**
 * What every `harmflow workflow …` command opens: the resume store, the effects ledger when the
 * workflow has effect steps, a run by its id, and the workflow file a run came from — the one place
 * that decides where they are. By default the state directory's SQLite (`--home`); with `--store
 * postgres://… [--schema s]`, a cluster's PostgreSQL (the tables `harmflow worker` computes items
 * into); with `--queue redis://… [--queue-prefix p]` too (`run` and `resume`), the run's items go to
 * the cluster's item workers (workflows/cluster-executor.ts) instead of being computed here. The
 * PostgreSQL, Redis and BullMQ modules are loaded only then. Each opener closes what it opened when
 * the work is done.
 */
import { mkdirSync } from 'node:fs';
import type { Command } from 'commander';
import { DEFAULT_DISPATCH_PREFIX, parseQueueUrl, type RedisConnection } from '../cluster/queue-url.js';
import { checkStoreUrl, reachStore } from '../cluster/store-url.js';
import { describeError, NotFoundError, UsageError } from '../core/errors.js';
import { harmflowHome } from '../core/home.js';
import type { EffectLedger } from '../store/effect-ledger.js';
import type { ResumeStore, RunRecord } from '../store/resume-store.js';
import { openSqliteEffectLedger } from '../store/sqlite/effect-ledger.js';
import { openSqliteResumeStore } from '../store/sqlite/resume-store.js';
import type { AgentContext } from '../workflows/agent-item.js';
import type { ItemExecutor } from '../workflows/item-executor.js';
import { loadWorkflowModule, type WorkflowModule } from '../workflows/module.js';
import { openHome } from './context-home.js';
import { integerOption } from './option-values.js';

/** The PostgreSQL schema unless `--schema` names another: the worker's and the API node's default. */
const DEFAULT_SCHEMA = 'public';

/** The options that say where a workflow command's state is, as commander gives them. */
export interface StoreOptions {
  home?: string;
  store?: string;
  schema?: string;
}

/** The options of `run` and `resume` that send a run's items to a cluster's item workers. */
export interface ClusterOptions extends StoreOptions {
  queue?: string;
  queuePrefix?: string;
  chunkItems?: string;
}

/** Where a command's state is, checked: the state directory, and the cluster's PostgreSQL and Redis when given. */
export interface StorePlace {
  /** The state directory (`--home`): the SQLite store, and agent steps' executions in either mode. */
  readonly home: string | undefined;
  readonly postgres?: { readonly url: string; readonly schema: string };
  readonly queue?: { readonly connection: RedisConnection; readonly prefix: string; readonly chunkItems?: number };
}

/** Adds `--store` and `--schema`: a command that reads or writes the resume store (and the ledger). */
export function storeOptions(command: Command): Command {
  return command
    .option('--home <dir>', 'state directory')
    .option('--store <url>', "a cluster's PostgreSQL instead of the state directory (postgres://user@host:5432/db)")
    .option(
      '--schema <name>',
      `with --store: the PostgreSQL schema of the cluster's tables (default ${DEFAULT_SCHEMA})`,
    );
}

/** Adds storeOptions and `--queue`, `--queue-prefix`, `--chunk-items`: `run` and `resume`. */
export function clusterOptions(command: Command): Command {
  return storeOptions(command)
    .option(
      '--queue <url>',
      "with --store: the cluster's Redis (redis://host[:port][/db]); `harmflow worker`s compute the items, but agent steps' run here",
    )
    .option(
      '--queue-prefix <prefix>',
      `with --queue: the item queues' Redis key prefix, the workers' (default ${DEFAULT_DISPATCH_PREFIX})`,
    )
    .option('--chunk-items <n>', 'with --queue: items a job of a code or effect step (default 250)');
}

/**
 * The place the options name. Throws a UsageError of one line, before anything connects, for a URL
 * that is not one, an option without the one it goes with, or — when `cluster` (run, resume) — a
 * `--store` without `--queue` or the reverse.
 */
export function storePlace(options: ClusterOptions, cluster = false): StorePlace {
  const { store, queue } = options;
  if (cluster && (store === undefined) !== (queue === undefined)) {
    throw new UsageError('--store and --queue go together: give both (cluster mode) or neither');
  }
  if (store === undefined && options.schema !== undefined) throw new UsageError('--schema goes with --store');
  if (queue === undefined) {
    if (options.queuePrefix !== undefined) throw new UsageError('--queue-prefix goes with --queue');
    if (options.chunkItems !== undefined) throw new UsageError('--chunk-items goes with --queue');
  }
  return {
    home: options.home,
    ...(store !== undefined && {
      postgres: { url: checkStoreUrl(store), schema: options.schema ?? DEFAULT_SCHEMA },
    }),
    ...(queue !== undefined && {
      queue: {
        connection: parseQueueUrl(queue),
        prefix: options.queuePrefix ?? DEFAULT_DISPATCH_PREFIX,
        ...(options.chunkItems !== undefined && {
          chunkItems: integerOption(options.chunkItems, '--chunk-items', 1),
        }),
      },
    }),
  };
}

/** Runs `work` with the resume store of the place open: the state directory's, or the cluster's. */
export function withStore<T>(place: StorePlace, work: (store: ResumeStore) => Promise<T>): Promise<T> {
  return withOpen(openResumeStore(place), work);
}

/** Runs `work` with the effects ledger of the place open, as a holder of its own. */
export function withLedger<T>(place: StorePlace, work: (ledger: EffectLedger) => Promise<T>): Promise<T> {
  return withOpen(openLedger(place), work);
}

/** Runs `work` with what `opening` opens, and closes it however `work` ends. */
async function withOpen<Open extends { close(): Promise<void> }, T>(
  opening: Promise<Open>,
  work: (open: Open) => Promise<T>,
): Promise<T> {
  const open = await opening;
  try {
    return await work(open);
  } finally {
    await open.close();
  }
}

/** What a workflow's steps need open besides the resume store: the effects ledger, the executions store, the executor. */
export interface StepNeeds {
  readonly ledger?: EffectLedger;
  readonly agents?: AgentContext;
  /** Where the items compute, when not in this process: the cluster's item workers. */
  readonly executor?: ItemExecutor;
}

/**
 * Runs `work` with what the workflow's steps need open: the effects ledger when it has effect steps
 * (a ledger holds a lock while it is open: it is closed only after every effect it started has
 * finished), the executions' store when it has agent steps (their executions run here, in the state
 * directory, in either mode, and are listed by `harmflow ls` like any other), and with `--queue` the
 * cluster executor of the workflow file (its path, absolute, is where every worker must have it).
 */
export async function withStepNeeds<T>(
  place: StorePlace,
  module: WorkflowModule,
  work: (needs: StepNeeds) => Promise<T>,
): Promise<T> {
  const kinds = new Set(module.workflow.steps.map((step) => step.kind));
  const closers: (() => Promise<void>)[] = [];
  try {
    const ledger = kinds.has('effect') ? await openLedger(place) : undefined;
    if (ledger !== undefined) closers.push(() => ledger.close());
    const executions = kinds.has('agent') ? openHome(place.home) : undefined;
    if (executions !== undefined) closers.push(() => executions.store.close());
    const executor = place.queue === undefined ? undefined : await openExecutor(place.queue, module);
    if (executor !== undefined) closers.push(() => executor.close());
    return await work({
      ...(ledger !== undefined && { ledger }),
      ...(executions !== undefined && { agents: { home: executions.home, store: executions.store } }),
      ...(executor !== undefined && { executor }),
    });
  } finally {
    for (const close of closers.reverse()) await close();
  }
}

/** The run `id`, or NotFoundError. */
export async function getRun(store: ResumeStore, id: string): Promise<RunRecord> {
  const run = await store.getRun(id);
  if (run === undefined) throw new NotFoundError(`no workflow run ${id} in this HARMFLOW_HOME`);
  return run;
}

/** The workflow file of a run: the one given, else the one it was started from. */
export async function moduleOf(store: ResumeStore, id: string, file: string | undefined): Promise<WorkflowModule> {
  const run = await getRun(store, id);
  const path = file ?? run.module;
  if (path === undefined) throw new UsageError(`run ${id} does not say which workflow file it came from: pass --file`);
  return loadWorkflowModule(path);
}

function openResumeStore(place: StorePlace): Promise<ResumeStore> {
  return openAt(place, openSqliteResumeStore, async (url, schema) => {
    const { openPostgresResumeStore } = await import('../store/postgres/resume-store.js');
    return openPostgresResumeStore(url, { schema });
  });
}

function openLedger(place: StorePlace): Promise<EffectLedger> {
  return openAt(place, openSqliteEffectLedger, async (url, schema) => {
    const { openPostgresEffectLedger } = await import('../store/postgres/effect-ledger.js');
    return openPostgresEffectLedger(url, { schema });
  });
}

/**
 * Opens a table set of the place: in the state directory's database (made when missing), or in the
 * cluster's PostgreSQL once it answers (`reachStore`: exit 8 when it does not). The PostgreSQL
 * module is loaded only then.
 */
async function openAt<T>(
  place: StorePlace,
  sqlite: (database: string) => T,
  postgres: (url: string, schema: string) => Promise<T>,
): Promise<T> {
  const cluster = place.postgres;
  if (cluster === undefined) {
    const paths = harmflowHome(place.home);
    mkdirSync(paths.root, { recursive: true });
    return sqlite(paths.database);
  }
  return reachStore(cluster.url, () => postgres(cluster.url, cluster.schema));
}

/** The cluster executor of the workflow file, once the queue's Redis answers (exit 8 when it does not). */
async function openExecutor(queue: NonNullable<StorePlace['queue']>, module: WorkflowModule) {
  const [{ reachQueue }, { openClusterExecutor }] = await Promise.all([
    import('./reach-queue.js'),
    import('../workflows/cluster-executor.js'),
  ]);
  await reachQueue(queue.connection);
  return openClusterExecutor({
    connection: queue.connection,
    prefix: queue.prefix,
    module: module.path,
    ...(queue.chunkItems !== undefined && { chunkItems: queue.chunkItems }),
    // ioredis reconnects meanwhile; a step that cannot finish says so itself.
    onError: (error) => void process.stderr.write(`harmflow: the item queues: ${describeError(error)}\n`),
  });
}
