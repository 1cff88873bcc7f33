/**
 * The anchors for the cluster benchmark (issue 9): the item-step workload of bench/workflow.mjs —
 * N items × S trivial steps, each step reading the previous step's small JSON result for the item and
 * returning a new one — run three ways as anchors and HarmFlow's way, all in the same run:
 *
 * 1. floor: a plain loop doing one autocommitted INSERT per item-step into a (step, item, value)
 *    table in PostgreSQL, one client of a pg Pool, a prepared statement;
 * 2. DBOS (@dbos-inc/dbos-sdk 5.3.0) on the same PostgreSQL: one workflow per item whose S steps are
 *    `DBOS.runStep`, its system database in a bench database created and dropped here; the items'
 *    workflows are started and awaited with bounded parallelism (`--dbos-concurrency` lanes, each
 *    starting its next item's workflow when the previous one has returned);
 * 3. BullMQ chained jobs on Redis: one job per item-step, a step's job adding the next step's job for
 *    its item before it completes; one Worker with `--bullmq-concurrency`, a queue prefix of its own.
 *
 * And HarmFlow's cluster executor, with one and with two item-worker processes
 * (bench/cluster-item-worker.mjs, the built dist/): the workflow of bench/cluster-items-workflow.mjs
 * (the same values), driven by `startRun` in this process over a PostgreSQL ResumeStore in the bench
 * database (schema harmflow_bench), each step's items in chunks of `--chunk-items` committed by the
 * workers, each worker taking `--worker-concurrency` chunks at once. Worker A serves two queue
 * prefixes, worker B the second only: `harmflow1` dispatches under the first (A alone), `harmflow2`
 * under the second (A and B). item-steps/s = N × S / startRun's wall time (the run created, planned
 * step by step, computed, committed and ended).
 *
 * item-steps/s = N × S / the wall time from the first item-step started to the last one recorded.
 * Each repetition measures all five, the order rotated from one repetition to the next; a warm-up of
 * each over 200 items comes first and is not measured. Every measure has a timeout; the databases,
 * queues and connections are closed and removed on every exit, a failure or a signal included.
 * The JSON result goes to stdout (`npm run bench` keeps it as bench/results/cluster-anchors.json, so
 * a trial run with other options leaves the recorded one alone); progress and DBOS's own warnings and
 * errors go to stderr.
 *
 *   node bench/cluster-anchors.mjs [--items 2000] [--steps 7] [--reps 5] [--dbos-concurrency 32]
 *     [--dbos-pool <lanes>] [--bullmq-concurrency 32] [--chunk-items 250] [--worker-concurrency 4]
 *     [--timeout-s 300] [--measures floor,dbos,bullmq,harmflow1,harmflow2]
 *     (PostgreSQL: HARMFLOW_BENCH_POSTGRES, default postgres://postgres@127.0.0.1:5432; Redis 127.0.0.1:6379)
 *   npm run bench -- cluster-anchors
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { openPostgresResumeStore } from '../dist/store/postgres/resume-store.js';
import { DEFAULT_CHUNK_ITEMS, openClusterExecutor } from '../dist/workflows/cluster-executor.js';
import { loadWorkflowModule } from '../dist/workflows/module.js';
import { startRun } from '../dist/workflows/run.js';
import { machine } from './machine.mjs';
import { option } from './options.mjs';
import { round, summary } from './stats.mjs';

const items = option('--items', 2000);
const steps = option('--steps', 7);
const reps = option('--reps', 5);
/**
 * 32 lanes: within DBOS's plateau on this machine (2 cores, PostgreSQL on the same host). Sweeps of
 * 1–128 lanes (one repetition a setting, one-minute load 2.4–6.5) gave 700–900 item-steps/s at 1 lane
 * and 900–1,700/s from 8 to 128, with no trend beyond the noise.
 */
const dbosConcurrency = option('--dbos-concurrency', 32);
/**
 * DBOS's system database pool: one connection a lane, so no lane waits for one (DBOS's default is
 * 10; at 32 lanes the two gave the same figures within the noise).
 */
const dbosPool = option('--dbos-pool', dbosConcurrency);
/**
 * 32: within BullMQ's plateau from the same sweeps (1–128, load 2.4–9): 3,700–6,100/s at 1,
 * 5,900–16,800/s from 16 to 128, with no trend beyond the noise.
 */
const bullmqConcurrency = option('--bullmq-concurrency', 32);
/** Items a chunk job of HarmFlow's cluster executor (its default unless told). */
const chunkItems = option('--chunk-items', DEFAULT_CHUNK_ITEMS);
/** Chunks each HarmFlow item worker computes at once. */
const workerConcurrency = option('--worker-concurrency', 4);
const timeoutMs = option('--timeout-s', 300) * 1000;
/** 200 items: enough to compile each measure's paths and open its connections before measuring. */
const WARM_UP_ITEMS = 200;
const POSTGRES = process.env.HARMFLOW_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS = { host: '127.0.0.1', port: 6379 };
/** The bench database: created here, dropped on every exit (and first, if a killed run left it). */
const DATABASE = 'harmflow_bench_anchors';
const QUEUE_PREFIX = `harmflow-bench-anchors-${process.pid}`;
const ALL_MEASURES = ['floor', 'dbos', 'bullmq', 'harmflow1', 'harmflow2'];
const MEASURES = measuresOption();
const ITEMS_MODULE = fileURLToPath(new URL('./cluster-items-workflow.mjs', import.meta.url));
const ITEM_WORKER = fileURLToPath(new URL('./cluster-item-worker.mjs', import.meta.url));

/** What to undo on exit, newest first; each entry runs once. */
const cleanups = [];
let cleaning;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    process.stderr.write(`cluster-anchors: ${signal}, cleaning up\n`);
    void cleanUp().finally(() => process.exit(130));
  });
}

try {
  const load = [loadavg()[0]];
  await createDatabase();
  const databaseUrl = `${POSTGRES}/${DATABASE}`;
  const floorPool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  cleanups.push(() => floorPool.end());
  const runItem = await launchDbos(databaseUrl);
  const redis = new Redis({ ...REDIS, maxRetriesPerRequest: null });
  cleanups.push(() => removeQueueKeys(redis).finally(() => redis.quit()));

  const harmflow = await launchHarmflow(databaseUrl);

  const measure = {
    floor: (count, tag, signal) => floorRun(floorPool, count, tag, signal),
    dbos: (count, tag, signal) => dbosRun(runItem, count, tag, signal),
    bullmq: (count, tag, signal) => bullmqRun(count, tag, signal),
    harmflow1: (count, tag, signal) => harmflowRun(harmflow, harmflow.oneWorker, count, `${tag}-1`, signal),
    harmflow2: (count, tag, signal) => harmflowRun(harmflow, harmflow.twoWorkers, count, `${tag}-2`, signal),
  };
  for (const which of MEASURES) {
    await bounded((signal) => measure[which](WARM_UP_ITEMS, 'warm-up', signal), `${which} warm-up`);
  }
  load.push(loadavg()[0]);

  const repetitions = [];
  for (let rep = 0; rep < reps; rep += 1) {
    const order = [...MEASURES.slice(rep % MEASURES.length), ...MEASURES.slice(0, rep % MEASURES.length)];
    const figures = {};
    for (const which of order) {
      figures[which] = await bounded((signal) => measure[which](items, `rep-${rep}`, signal), which);
    }
    repetitions.push({
      order,
      ...Object.fromEntries(MEASURES.map((which) => [`${which}PerS`, Math.round(figures[which].perS)])),
      ...Object.fromEntries(MEASURES.map((which) => [`${which}Ms`, round(figures[which].ms)])),
      ...shares(figures),
      loadAverage: round(loadavg()[0]),
    });
    process.stderr.write(
      `cluster-anchors: rep ${rep + 1}/${reps}: ${MEASURES.map((which) => `${which} ${Math.round(figures[which].perS)}/s`).join(', ')}\n`,
    );
  }
  load.push(loadavg()[0]);

  const result = {
    benchmark: 'cluster-anchors',
    machine: machine(),
    date: new Date().toISOString(),
    versions: {
      postgres: await serverVersion(floorPool),
      redis: (await redis.info('server')).match(/redis_version:(\S+)/)?.[1],
      dbos: packageVersion('@dbos-inc/dbos-sdk'),
      bullmq: packageVersion('bullmq'),
      pg: packageVersion('pg'),
    },
    workload: `${items} items × ${steps} trivial steps (each reads the previous step's small JSON result for the item and returns a new one)`,
    anchors: {
      floor: `plain loop: one autocommitted INSERT per item-step into (step, item, value), one client of a pg Pool, a prepared statement, database ${DATABASE}`,
      dbos: `one DBOS workflow per item, its ${steps} steps DBOS.runStep; the system database in ${DATABASE}, a pool of ${dbosPool} connections; ${dbosConcurrency} lanes, each starting its next item's workflow (DBOS.startWorkflow) and awaiting its result`,
      bullmq: `one BullMQ job per item-step on Redis; a step's job adds the next step's job for its item before it completes (jobs and results kept, the default); one Worker, concurrency ${bullmqConcurrency}; the ${items} first-step jobs added in one addBulk`,
    },
    harmflow: `startRun with the cluster executor in this process (the coordinator), a PostgreSQL ResumeStore in ${DATABASE} (schema harmflow_bench); item-worker processes running the built dist/, each taking ${workerConcurrency} chunk(s) of ${chunkItems} items at once and committing each chunk in one transaction; harmflow1: one worker, harmflow2: two`,
    settings: { dbosConcurrency, dbosPool, bullmqConcurrency, chunkItems, workerConcurrency },
    oneMinuteLoadAverage: { before: round(load[0]), afterWarmUp: round(load[1]), after: round(load[2]) },
    itemSteps: items * steps,
    repetitions,
    perS: Object.fromEntries(MEASURES.map((which) => [which, summary(repetitions.map((r) => r[`${which}PerS`]))])),
    shareOfFloor: Object.fromEntries(
      MEASURES.filter((which) => which !== 'floor' && MEASURES.includes('floor')).map((which) => [
        which,
        summary(repetitions.map((r) => r[`${which}ShareOfFloor`])),
      ]),
    ),
    timesDbos: Object.fromEntries(
      ['harmflow1', 'harmflow2']
        .filter((which) => MEASURES.includes(which) && MEASURES.includes('dbos'))
        .map((which) => [which, summary(repetitions.map((r) => r[`${which}TimesDbos`]))]),
    ),
    targetsForHarmFlow: { timesDbos: 5, shareOfFloor: 0.4 },
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  await cleanUp();
}

/** The measures `--measures` names (comma-separated), all of them by default. */
function measuresOption() {
  const index = process.argv.indexOf('--measures');
  if (index === -1) return ALL_MEASURES;
  const chosen = (process.argv[index + 1] ?? '').split(',');
  for (const which of chosen) {
    if (!ALL_MEASURES.includes(which)) throw new Error(`--measures: one or more of ${ALL_MEASURES.join(', ')}`);
  }
  return chosen;
}

/** Each measure's share of the floor, and HarmFlow's multiple of DBOS, where both were measured. */
function shares(figures) {
  const result = {};
  for (const which of MEASURES) {
    if (which !== 'floor' && figures.floor)
      result[`${which}ShareOfFloor`] = round(figures[which].perS / figures.floor.perS);
    if (which.startsWith('harmflow') && figures.dbos)
      result[`${which}TimesDbos`] = round(figures[which].perS / figures.dbos.perS);
  }
  return result;
}

/**
 * HarmFlow's cluster side: the ResumeStore, two item-worker processes (A on both prefixes, B on the
 * second), and an executor on each prefix; all closed on exit. Started only when a HarmFlow measure is.
 */
async function launchHarmflow(databaseUrl) {
  if (!MEASURES.some((which) => which.startsWith('harmflow'))) return undefined;
  const schema = 'harmflow_bench';
  const store = await openPostgresResumeStore(databaseUrl, { schema });
  cleanups.push(() => store.close());
  const [one, two] = [`${QUEUE_PREFIX}-hf1`, `${QUEUE_PREFIX}-hf2`];
  for (const prefixes of [[one, two], [two]]) {
    const config = { postgresUrl: databaseUrl, schema, prefixes, concurrency: workerConcurrency };
    const child = spawn(process.execPath, [ITEM_WORKER, JSON.stringify(config)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(child, 'exit');
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    });
    await new Promise((resolve, reject) => {
      child.stdout.on('data', (chunk) => chunk.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`an item worker exited (${code}) before it was ready`)));
    });
  }
  const executor = async (prefix) => {
    const opened = await openClusterExecutor({
      connection: { ...REDIS, db: 0 },
      prefix,
      module: ITEMS_MODULE,
      chunkItems,
      onError: (error) => process.stderr.write(`cluster-anchors: harmflow queue: ${error.message}\n`),
    });
    cleanups.push(() => opened.close());
    return opened;
  };
  const { workflow } = await loadWorkflowModule(ITEMS_MODULE);
  return { store, workflow, oneWorker: await executor(one), twoWorkers: await executor(two) };
}

/** The workload as one HarmFlow run, its items computed by the item workers behind `executor`. */
async function harmflowRun({ store, workflow }, executor, count, tag, signal) {
  const started = performance.now();
  const result = await startRun(workflow, {
    store,
    executor,
    signal,
    module: ITEMS_MODULE,
    params: { items: count, tag },
  });
  const ms = performance.now() - started;
  check(result.run.state === 'succeeded', `the HarmFlow run succeeded (${tag}): ${result.run.message}`);
  check(
    result.steps.length === steps && result.steps.every((step) => step.computed === count),
    `HarmFlow computed ${count} items in each of ${steps} steps (${tag})`,
  );
  return { ms, perS: (count * steps * 1000) / ms };
}

/** Runs each cleanup once, newest first; a failing one is reported and the others still run. */
function cleanUp() {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      try {
        await cleanups.pop()();
      } catch (error) {
        process.stderr.write(`cluster-anchors: cleanup: ${error?.message ?? error}\n`);
      }
    }
  })();
  return cleaning;
}

/**
 * The bench database, fresh: one a killed run left behind is dropped first (never by FORCE, so a run
 * still using it makes this one fail instead of that one).
 */
async function createDatabase() {
  await admin(`DROP DATABASE IF EXISTS ${DATABASE}`);
  await admin(`CREATE DATABASE ${DATABASE}`);
  cleanups.push(dropDatabase);
}

/**
 * Drops the bench database. A plain DROP first: PostgreSQL waits up to 5 s for the backends of
 * connections just closed to exit (forcing it then would hand their clients an error); sessions
 * still open after that (a measure that timed out) are ended by FORCE.
 */
async function dropDatabase() {
  try {
    await admin(`DROP DATABASE IF EXISTS ${DATABASE}`);
  } catch {
    await admin(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  }
}

async function admin(sql) {
  const client = new pg.Client({ connectionString: `${POSTGRES}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The trivial step: a small JSON value from the previous one (bench/workflow.mjs's). */
function value(step, key, previous) {
  const n = previous === undefined ? Number(key.slice(5)) : previous.n;
  return { n: n * 3 + step, step: step + 1 };
}

function itemKey(n) {
  return `item-${String(n).padStart(5, '0')}`;
}

/** The floor: each item-step's value written by one autocommitted INSERT, in a fresh table. */
async function floorRun(pool, count, tag, signal) {
  const client = await pool.connect();
  try {
    await client.query('DROP TABLE IF EXISTS bench_floor; CREATE TABLE bench_floor (step int, item text, value text)');
    const insert = {
      name: 'bench-floor-insert',
      text: 'INSERT INTO bench_floor (step, item, value) VALUES ($1, $2, $3)',
    };
    const started = performance.now();
    for (let n = 0; n < count; n += 1) {
      signal.throwIfAborted();
      const key = itemKey(n);
      let previous;
      for (let step = 0; step < steps; step += 1) {
        previous = value(step, key, previous);
        await client.query({ ...insert, values: [step, key, JSON.stringify(previous)] });
      }
    }
    const ms = performance.now() - started;
    const { rows } = await client.query('SELECT count(*)::int AS n FROM bench_floor');
    check(rows[0].n === count * steps, `the floor wrote ${count * steps} rows (${tag})`);
    return { ms, perS: (count * steps * 1000) / ms };
  } finally {
    client.release();
  }
}

/**
 * DBOS launched on the bench database (its system schema created there), logging only warnings and
 * errors, to stderr; shut down on exit. Returns the registered one-workflow-per-item function.
 */
async function launchDbos(systemDatabaseUrl) {
  const itemWorkflow = DBOS.registerWorkflow(
    async (key) => {
      let previous;
      for (let step = 0; step < steps; step += 1) {
        const input = previous;
        previous = await DBOS.runStep(async () => value(step, key, input), { name: `s${step + 1}` });
      }
      return previous;
    },
    { name: 'benchItem' },
  );
  DBOS.setConfig({
    name: 'harmflow-bench-anchors',
    systemDatabaseUrl,
    systemDatabasePoolSize: dbosPool,
    logger: stderrLogger(),
  });
  cleanups.push(() => DBOS.shutdown());
  await DBOS.launch();
  return itemWorkflow;
}

/** DBOS's warnings and errors to stderr; its info and debug lines dropped. */
function stderrLogger() {
  const write = (level, entry) => {
    const text = entry instanceof Error ? (entry.stack ?? entry.message) : String(entry);
    process.stderr.write(`cluster-anchors: dbos ${level}: ${text}\n`);
  };
  return {
    info: () => {},
    debug: () => {},
    warn: (entry) => write('warn', entry),
    error: (entry) => write('error', entry),
  };
}

/** The workload as DBOS workflows, one per item, `dbosConcurrency` of them running at a time. */
async function dbosRun(itemWorkflow, count, tag, signal) {
  let next = 0;
  let last;
  const lane = async () => {
    while (next < count) {
      signal.throwIfAborted();
      const key = itemKey(next);
      next += 1;
      const handle = await DBOS.startWorkflow(itemWorkflow, { workflowID: `${tag}-${key}` })(key);
      last = await handle.getResult();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(dbosConcurrency, count) }, lane));
  const ms = performance.now() - started;
  check(last?.step === steps, `DBOS's workflows returned step ${steps}'s value (${tag})`);
  return { ms, perS: (count * steps * 1000) / ms };
}

/**
 * The workload as chained BullMQ jobs on a queue of its own: the first steps' jobs added at once,
 * each job adding its item's next step's job; done when every item's last step has completed. The
 * worker and the queue are closed and the queue obliterated when it ends, or by the cleanups on exit.
 */
async function bullmqRun(count, tag, signal) {
  const connection = { ...REDIS, maxRetriesPerRequest: null };
  const queue = new Queue(tag, { connection, prefix: QUEUE_PREFIX });
  const worker = new Worker(
    tag,
    async (job) => {
      const { key, step, previous } = job.data;
      const result = value(step, key, previous);
      if (step + 1 < steps) await queue.add(`s${step + 2}`, { key, step: step + 1, previous: result });
      return result;
    },
    { connection, prefix: QUEUE_PREFIX, concurrency: bullmqConcurrency, autorun: false },
  );
  const close = async () => {
    await worker.close(true);
    await queue.obliterate({ force: true });
    await queue.close();
  };
  cleanups.push(close);
  try {
    let finished = 0;
    const done = new Promise((resolve, reject) => {
      worker.on('completed', (job) => {
        if (job.data.step === steps - 1) {
          finished += 1;
          if (finished === count) resolve();
        }
      });
      worker.on('failed', (job, error) => reject(new Error(`job ${job?.id} failed: ${error.message}`)));
      worker.on('error', reject);
      signal.addEventListener('abort', () => reject(signal.reason));
    });
    done.catch(() => {}); // awaited below; this keeps a rejection before then from being unhandled
    await worker.waitUntilReady();
    const started = performance.now();
    await queue.addBulk(
      Array.from({ length: count }, (_, n) => ({
        name: 's1',
        data: { key: itemKey(n), step: 0, previous: undefined },
      })),
    );
    worker.run().catch(() => {}); // its failures reach `done` through the 'error' event
    await done;
    const ms = performance.now() - started;
    const completed = await queue.getCompletedCount();
    check(completed === count * steps, `BullMQ completed ${count * steps} jobs (${tag}): ${completed}`);
    return { ms, perS: (count * steps * 1000) / ms };
  } finally {
    const at = cleanups.indexOf(close);
    if (at !== -1) {
      cleanups.splice(at, 1);
      await close();
    }
  }
}

/** Whatever a failed run left under this run's queue prefix. */
async function removeQueueKeys(redis) {
  let cursor = '0';
  do {
    const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${QUEUE_PREFIX}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = nextCursor;
  } while (cursor !== '0');
}

/**
 * `work(signal)`, or a rejection once `timeoutMs` has passed; the signal then aborts, and the work
 * stops at its next item (the cleanups close what it holds).
 */
function bounded(work, what) {
  const controller = new AbortController();
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`${what}: no result within ${timeoutMs / 1000} s`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  return Promise.race([work(controller.signal), timeout]).finally(() => clearTimeout(timer));
}

async function serverVersion(pool) {
  const { rows } = await pool.query('SHOW server_version');
  return rows[0].server_version;
}

function packageVersion(name) {
  const file = fileURLToPath(new URL(`../node_modules/${name}/package.json`, import.meta.url));
  return JSON.parse(readFileSync(file, 'utf8')).version;
}

function check(condition, what) {
  if (!condition) throw new Error(`cluster-anchors: expected ${what}`);
}
