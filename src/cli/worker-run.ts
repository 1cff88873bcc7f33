/**
 * The body of `harmflow worker` (worker.ts parses its options): see worker.ts for what a worker does
 * from start to stop. Loaded only when the command runs, with BullMQ.
 */
import { join } from 'node:path';
import { openClusterHold } from '../cluster/cluster-hold.js';
import { openExecutionContexts } from '../cluster/contexts.js';
import { openDispatchQueue } from '../cluster/dispatch.js';
import { driveClusterJob } from '../cluster/drive-job.js';
import { openExecutionInbox } from '../cluster/inbox.js';
import { openExecutionLeases } from '../cluster/lease.js';
import { killHarnesses } from '../cluster/orphans.js';
import type { RedisConnection } from '../cluster/queue-url.js';
import { openRedispatchSweep, startRedispatching } from '../cluster/redispatch.js';
import { reachStore } from '../cluster/store-url.js';
import { startDispatchWorker } from '../cluster/worker-loop.js';
import { closeWithin } from '../core/close-budget.js';
import { describeError } from '../core/errors.js';
import { harmflowHome, makePrivateDir } from '../core/home.js';
import { openEventMirror } from '../events/mirror/event-mirror.js';
import { openPgEventSource } from '../events/mirror/event-source.js';
import { Admission, DEFAULT_RECHECK_MS } from '../service/admission.js';
import { systemHost } from '../service/host.js';
import { DEFAULT_CLOSE_BUDGET_MS } from '../service/registry.js';
import { openPostgresEffectLedger } from '../store/postgres/effect-ledger.js';
import { openPostgresStore } from '../store/postgres/postgres-store.js';
import { openPostgresResumeStore } from '../store/postgres/resume-store.js';
import { type ServedModel, startItemWorker } from '../workflows/cluster-worker.js';
import { describeModel } from './model-limits.js';
import { reachQueue } from './reach-queue.js';

/** A worker's settings, checked (worker.ts). */
export interface WorkerSettings {
  /** A checked postgres:// URL. */
  readonly storeUrl: string;
  readonly connection: RedisConnection;
  readonly schema: string;
  readonly queuePrefix: string;
  /** The state directory; default as every command's. */
  readonly home?: string;
  /** Default: the admission's cap (idle cores) at start. */
  readonly concurrency?: number;
  readonly diskFloorBytes: number;
  readonly workerId: string;
  readonly interruptBudgetMs?: number;
  /** Default DEFAULT_CLOSE_BUDGET_MS. */
  readonly closeBudgetMs?: number;
  /** The most workflow chunks computed at once, per item queue. */
  readonly itemConcurrency: number;
  /** The models whose workflow items this worker computes, each with its rate limit. */
  readonly models: readonly ServedModel[];
}

/**
 * 5 s between admission checks (admission.ts DEFAULT_RECHECK_MS: the load average moves every 5 s and
 * a statfs costs microseconds), so a worker pauses within 5 s of its disk falling below the floor.
 */
const ADMISSION_CHECK_MS = DEFAULT_RECHECK_MS;

/** Runs the worker until SIGINT or SIGTERM, then stops it as worker.ts describes. */
export async function runWorker(settings: WorkerSettings): Promise<void> {
  const { storeUrl, connection, concurrency, interruptBudgetMs, workerId } = settings;
  const closeBudgetMs = settings.closeBudgetMs ?? DEFAULT_CLOSE_BUDGET_MS;
  // Asked before anything opens, so a stop during the start is not the default (an abrupt exit).
  const signalled = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stdout.on('error', () => {});
  const say = (line: string) => void process.stdout.write(`${line}\n`);
  const home = harmflowHome(settings.home);
  makePrivateDir(home.root);
  for (const killed of killHarnesses(home, 'orphaned')) {
    say(
      `killed the harness a lost worker left running: execution ${killed.execution}, attempt ${killed.attempt} (process group ${killed.pgid})`,
    );
  }

  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  };
  try {
    const pg = { schema: settings.schema };
    const leases = await reachStore(storeUrl, () => openExecutionLeases(storeUrl, pg));
    closers.push(() => leases.close());
    const store = await openPostgresStore(storeUrl, pg);
    closers.push(() => store.close());
    const inbox = await openExecutionInbox(storeUrl, pg);
    closers.push(() => inbox.close());
    const mirror = await openEventMirror(storeUrl, pg);
    closers.push(() => mirror.close());
    const mirrored = await openPgEventSource(storeUrl, pg);
    closers.push(() => mirrored.close());
    const contexts = await openExecutionContexts(storeUrl, pg);
    closers.push(() => contexts.close());
    // Workflow items: their outputs and effects, closed after the item worker (closers run in reverse).
    const resumeStore = await openPostgresResumeStore(storeUrl, pg);
    closers.push(() => resumeStore.close());
    const ledger = await openPostgresEffectLedger(storeUrl, pg);
    closers.push(() => ledger.close());
    const admission = new Admission({
      host: systemHost,
      path: home.root,
      diskFloorBytes: settings.diskFloorBytes,
      ...(concurrency !== undefined && { maxRunning: concurrency }),
    });
    closers.push(async () => admission.close());
    // An operator's hold of the whole cluster (`harmflow admission hold` on any API node).
    const clusterHold = await openClusterHold(storeUrl, pg);
    closers.push(() => clusterHold.close());
    /** The cluster's hold this worker has applied to its admission, if any. */
    let heldFor: string | undefined;
    /** Makes this worker's admission follow the cluster's hold: before it starts, then at each check. */
    const followClusterHold = async () => {
      const held = (await clusterHold.read())?.reason;
      if (held === heldFor) return;
      heldFor = held;
      if (heldFor === undefined) admission.release();
      else admission.hold(heldFor);
    };
    await followClusterHold();

    const onError = (error: Error) => void process.stderr.write(`worker ${workerId}: ${describeError(error)}\n`);
    const deps = {
      store,
      inbox,
      mirror,
      mirrored,
      contexts,
      home,
      cacheDir: join(home.root, 'mirrors'),
      engine: { ...(interruptBudgetMs !== undefined && { interruptBudgetMs }) },
      onError,
    };
    await reachQueue(connection);
    const status = await admission.status();
    const slots = concurrency ?? status.cap;
    // Started paused when admission refuses already: no job runs before the first check.
    const refusedAtStart = status.held ? status.reasons.join('; ') : undefined;
    const worker = await startDispatchWorker({
      connection,
      prefix: settings.queuePrefix,
      workerId,
      concurrency: slots,
      leases,
      handle: (execution, context) => driveClusterJob(execution, context, deps),
      onError,
      paused: refusedAtStart !== undefined,
    });
    closers.push(() => worker.close());
    const items = await startItemWorker({
      connection,
      prefix: settings.queuePrefix,
      store: resumeStore,
      ledger,
      concurrency: settings.itemConcurrency,
      models: settings.models,
      onError,
    });
    closers.push(() => items.close());
    // Dispatches again what has work and no worker (a lost dispatch, a Redis that lost its jobs).
    const queue = openDispatchQueue({ connection, prefix: settings.queuePrefix, onError });
    closers.push(() => queue.close());
    const sweep = await openRedispatchSweep(storeUrl, pg);
    closers.push(() => sweep.close());
    const redispatching = startRedispatching({
      sweep,
      queue,
      onError,
      onDispatched: (executions) =>
        say(
          `worker ${workerId} dispatched again ${executions.length} execution(s) no worker held: ${executions.join(' ')}`,
        ),
    });
    closers.push(() => redispatching.stop());
    const models = settings.models.length === 0 ? 'none' : settings.models.map(describeModel).join(', ');
    // One write: whoever waits for the start line has both.
    say(
      [
        `worker ${workerId} taking executions from ${connection.host}:${connection.port} (concurrency ${slots})`,
        `worker ${workerId} taking workflow items (item concurrency ${settings.itemConcurrency}; models: ${models})`,
      ].join('\n'),
    );
    let paused = refusedAtStart !== undefined;
    if (refusedAtStart !== undefined) say(`worker ${workerId} paused: ${refusedAtStart}`);
    let checking: Promise<void> = Promise.resolve();
    const check = () => {
      checking = checking
        .then(async () => {
          await followClusterHold();
          const refusal = await admission.refusal();
          if (refusal !== undefined && !paused) {
            paused = true;
            await worker.pause();
            say(`worker ${workerId} paused: ${refusal}`);
          } else if (refusal === undefined && paused) {
            paused = false;
            worker.resume();
            say(`worker ${workerId} resumed: admission is open again`);
          }
        })
        .catch((error: unknown) => onError(error instanceof Error ? error : new Error(String(error))));
    };
    check();
    const ticker = setInterval(check, ADMISSION_CHECK_MS);

    await signalled;
    clearInterval(ticker);
    await checking;
    say(`worker ${workerId} stopping: suspending its executions for other workers to carry on`);
    const itemsClosed = items.close();
    await closeWithin(worker.close(), closeBudgetMs, () => {
      for (const killed of killHarnesses(home, 'own')) {
        say(`killed the harness of execution ${killed.execution} (the close budget ran out)`);
      }
    });
    await itemsClosed;
    say(`worker ${workerId} stopped`);
  } finally {
    await closeAll();
  }
}
