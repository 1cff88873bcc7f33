/**
 * The anchors for the cluster benchmark (issue 9): the item-step workload of bench/workflow.mjs —
 * N items × S trivial steps, each step reading the previous step's small JSON result for the item and
 * returning a new one — run three ways in the same run, so HarmFlow's cluster figures can sit beside
 * them once its cluster runner exists:
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
 * item-steps/s = N × S / the wall time from the first item-step started to the last one recorded.
 * Each repetition measures the three, the order rotated from one repetition to the next; a warm-up of
 * each over 200 items comes first and is not measured. Every measure has a timeout; the databases,
 * queues and connections are closed and removed on every exit, a failure or a signal included.
 * The JSON result goes to stdout (`npm run bench` keeps it as bench/results/cluster-anchors.json, so
 * a trial run with other options leaves the recorded one alone); progress and DBOS's own warnings and
 * errors go to stderr.
 *
 *   node bench/cluster-anchors.mjs [--items 2000] [--steps 7] [--reps 5] [--dbos-concurrency 32]
 *     [--dbos-pool <lanes>] [--bullmq-concurrency 32] [--timeout-s 300]
 *     (PostgreSQL: HARMFLOW_BENCH_POSTGRES, default postgres://postgres@127.0.0.1:5432; Redis 127.0.0.1:6379)
 *   npm run bench -- cluster-anchors
 */

import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
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
const timeoutMs = option('--timeout-s', 300) * 1000;
/** 200 items: enough to compile each measure's paths and open its connections before measuring. */
const WARM_UP_ITEMS = 200;
const POSTGRES = process.env.HARMFLOW_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS = { host: '127.0.0.1', port: 6379 };
/** The bench database: created here, dropped on every exit (and first, if a killed run left it). */
const DATABASE = 'harmflow_bench_anchors';
const QUEUE_PREFIX = `harmflow-bench-anchors-${process.pid}`;
const MEASURES = ['floor', 'dbos', 'bullmq'];

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

  const measure = {
    floor: (count, tag, signal) => floorRun(floorPool, count, tag, signal),
    dbos: (count, tag, signal) => dbosRun(runItem, count, tag, signal),
    bullmq: (count, tag, signal) => bullmqRun(count, tag, signal),
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
      dbosShareOfFloor: round(figures.dbos.perS / figures.floor.perS),
      bullmqShareOfFloor: round(figures.bullmq.perS / figures.floor.perS),
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
    settings: { dbosConcurrency, dbosPool, bullmqConcurrency },
    oneMinuteLoadAverage: { before: round(load[0]), afterWarmUp: round(load[1]), after: round(load[2]) },
    itemSteps: items * steps,
    repetitions,
    perS: Object.fromEntries(MEASURES.map((which) => [which, summary(repetitions.map((r) => r[`${which}PerS`]))])),
    shareOfFloor: {
      dbos: summary(repetitions.map((r) => r.dbosShareOfFloor)),
      bullmq: summary(repetitions.map((r) => r.bullmqShareOfFloor)),
    },
    targetsForHarmFlow: { timesDbos: 5, shareOfFloor: 0.4 },
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  await cleanUp();
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
    const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${QUEUE_PREFIX}:*`, 'COUNT', 1000);
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
