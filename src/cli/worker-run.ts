/**
 * The body of `harmflow worker` (worker.ts parses its options): see worker.ts for what a worker does
 * from start to stop. Loaded only when the command runs, with BullMQ.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { openExecutionContexts } from '../cluster/contexts.js';
import { driveClusterJob } from '../cluster/drive-job.js';
import { openExecutionInbox } from '../cluster/inbox.js';
import { openExecutionLeases } from '../cluster/lease.js';
import { killHarnesses } from '../cluster/orphans.js';
import type { RedisConnection } from '../cluster/queue-url.js';
import { reachStore } from '../cluster/store-url.js';
import { startDispatchWorker } from '../cluster/worker-loop.js';
import { describeError, ServiceUnavailableError } from '../core/errors.js';
import { harmflowHome } from '../core/home.js';
import { openEventMirror } from '../events/mirror/event-mirror.js';
import { openPgEventSource } from '../events/mirror/event-source.js';
import { Admission, DEFAULT_RECHECK_MS } from '../service/admission.js';
import { systemHost } from '../service/host.js';
import { DEFAULT_CLOSE_BUDGET_MS } from '../service/registry.js';
import { openPostgresStore } from '../store/postgres/postgres-store.js';

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
  mkdirSync(home.root, { recursive: true });
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
    const admission = new Admission({
      host: systemHost,
      path: home.root,
      diskFloorBytes: settings.diskFloorBytes,
      ...(concurrency !== undefined && { maxRunning: concurrency }),
    });
    closers.push(async () => admission.close());

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
    say(`worker ${workerId} taking executions from ${connection.host}:${connection.port} (concurrency ${slots})`);
    let paused = refusedAtStart !== undefined;
    if (refusedAtStart !== undefined) say(`worker ${workerId} paused: ${refusedAtStart}`);
    let checking: Promise<void> = Promise.resolve();
    const check = () => {
      checking = checking
        .then(async () => {
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
    const closed = worker.close();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), closeBudgetMs);
    });
    if ((await Promise.race([closed, expired])) === 'expired') {
      for (const killed of killHarnesses(home, 'own')) {
        say(`killed the harness of execution ${killed.execution} (the close budget ran out)`);
      }
    }
    clearTimeout(timer);
    await closed;
    say(`worker ${workerId} stopped`);
  } finally {
    await closeAll();
  }
}

/**
 * 5 s for the queue's Redis to answer at start, as PostgreSQL's connect timeout (store/postgres/pool.ts
 * CONNECT_TIMEOUT_MS): a worker started against a Redis that is down says so and exits 8, instead of
 * waiting in BullMQ's reconnects. Once started, it rides out Redis outages (BullMQ reconnects).
 */
const QUEUE_CONNECT_TIMEOUT_MS = 5_000;

/** Resolves once the queue's Redis answers a PING; ServiceUnavailableError (exit 8) when it does not. */
async function reachQueue(connection: RedisConnection): Promise<void> {
  const redis = new Redis({
    ...connection,
    lazyConnect: true,
    connectTimeout: QUEUE_CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // The connection's own error (ECONNREFUSED, a timeout) says more than the rejection ("closed").
  let failure: Error | undefined;
  redis.on('error', (error: Error) => {
    failure ??= error;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new ServiceUnavailableError(`cannot reach the queue at ${connection.host}:${connection.port}`, {
      cause: failure ?? error,
    });
  } finally {
    redis.disconnect();
  }
}
