/**
 * Cluster dispatch throughput (issue 9): executions dispatched, and handled, per second with one and
 * with two dispatch workers. A worker is a process of its own (this script with `--worker`, forked),
 * running the built dispatch worker (dist/cluster/worker-loop.js) with `--concurrency` and a trivial
 * handler; each job is the full path an execution takes: the job taken from BullMQ, its execution
 * lease acquired in PostgreSQL (a durable commit), the handler called, the lease released (another),
 * the job completed and deleted. The main process dispatches `--jobs` new executions at once
 * (`dispatchExecution`, all calls in flight together) while the workers take them.
 *
 * dispatchedPerSec = jobs / the wall time until every dispatch call has resolved;
 * handledPerSec = jobs / the wall time from the first dispatch to the last handler call reported.
 * Each configuration runs `--reps` times, on a fresh queue prefix and PostgreSQL schema, after an
 * unmeasured warm-up of 200 jobs; the medians are reported with every run. Redis and PostgreSQL are
 * HARMFLOW_TEST_REDIS_URL and HARMFLOW_TEST_POSTGRES_URL (default the local servers the tests use).
 * The JSON result goes to stdout, progress to stderr.
 *
 *   npx tsc -p tsconfig.build.json && node bench/dispatch.mjs [--jobs 2000] [--concurrency 16] [--reps 3]
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { dispatchExecution, openDispatchQueue } from '../dist/cluster/dispatch.js';
import { openExecutionLeases } from '../dist/cluster/lease.js';
import { parseQueueUrl } from '../dist/cluster/queue-url.js';
import { startDispatchWorker } from '../dist/cluster/worker-loop.js';
import { newExecutionId } from '../dist/core/ids.js';
import { machine } from './machine.mjs';
import { option } from './options.mjs';
import { median } from './stats.mjs';

const REDIS_URL = process.env.HARMFLOW_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const POSTGRES_URL = process.env.HARMFLOW_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** 200 jobs: enough for each worker to open its connections and compile its paths before measuring. */
const WARM_UP_JOBS = 200;
/** 120 s: a run that has not finished by then has failed. */
const RUN_TIMEOUT_MS = 120_000;

if (process.argv.includes('--worker')) await runWorker(JSON.parse(process.argv[process.argv.indexOf('--worker') + 1]));
else await main();

/** The worker process: a dispatch worker whose handler tells the parent of each execution handled. */
async function runWorker({ prefix, schema, workerId, concurrency }) {
  const leases = await openExecutionLeases(POSTGRES_URL, { schema });
  const worker = await startDispatchWorker({
    connection: parseQueueUrl(REDIS_URL),
    prefix,
    workerId,
    concurrency,
    leases,
    onError: (error) => process.stderr.write(`${workerId}: ${error.message}\n`),
    // A job handled after the parent has gone (it stopped reading once it had counted its jobs) is
    // not reported: there is no one to tell.
    handle: async () => {
      if (process.connected) process.send?.('handled');
    },
  });
  process.once('disconnect', async () => {
    await worker.close();
    await leases.close();
    process.exit(0);
  });
  process.send?.('ready');
}

async function main() {
  const jobs = option('--jobs', 2000);
  const concurrency = option('--concurrency', 16);
  const reps = option('--reps', 3);
  const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
  const redis = new Redis(parseQueueUrl(REDIS_URL));
  const configurations = [];
  try {
    for (const workers of [1, 2]) {
      const runs = [];
      for (let rep = 0; rep < reps; rep++) {
        process.stderr.write(`dispatch: ${workers} worker(s), run ${rep + 1}/${reps}\n`);
        runs.push(await measure({ workers, jobs, concurrency, tag: `${workers}w${rep}`, admin, redis }));
      }
      configurations.push({
        workers,
        dispatchedPerSec: median(runs.map((run) => run.dispatchedPerSec)),
        handledPerSec: median(runs.map((run) => run.handledPerSec)),
        runs,
      });
    }
  } finally {
    await admin.end();
    redis.disconnect();
  }
  const result = {
    benchmark: 'dispatch',
    machine: machine(),
    load1m: loadavg()[0],
    jobs,
    concurrencyPerWorker: concurrency,
    reps,
    configurations,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

/** One measured run (after its warm-up) on a fresh prefix and schema, removed afterwards. */
async function measure({ workers, jobs, concurrency, tag, admin, redis }) {
  const prefix = `harmflow-bench-${process.pid}-${tag}`;
  const schema = `harmflow_bench_${process.pid}_${tag}`;
  const queue = openDispatchQueue({
    connection: parseQueueUrl(REDIS_URL),
    prefix,
    onError: (error) => process.stderr.write(`queue: ${error.message}\n`),
  });
  // The schema is created (migrated) once, before the workers race to open it.
  await (await openExecutionLeases(POSTGRES_URL, { schema })).close();
  const children = [];
  let handled = 0;
  let wake = () => {};
  try {
    for (let i = 0; i < workers; i++) {
      const config = { prefix, schema, workerId: `bench-${tag}-${i}`, concurrency };
      const child = fork(fileURLToPath(import.meta.url), ['--worker', JSON.stringify(config)], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      children.push({ child, exited: once(child, 'exit') });
      child.on('message', (message) => {
        if (message === 'handled') {
          handled += 1;
          wake();
        }
      });
      const [message] = await once(child, 'message');
      if (message !== 'ready') throw new Error(`worker ${i} said ${message} instead of ready`);
    }
    const until = async (count) => {
      const deadline = setTimeout(
        () => wake(new Error(`timed out with ${handled} of ${count} handled`)),
        RUN_TIMEOUT_MS,
      );
      try {
        while (handled < count) {
          const error = await new Promise((resolve) => {
            wake = resolve;
          });
          if (error instanceof Error) throw error;
        }
      } finally {
        clearTimeout(deadline);
      }
    };
    const dispatch = (count) =>
      Promise.all(Array.from({ length: count }, () => dispatchExecution(queue, newExecutionId())));

    await dispatch(WARM_UP_JOBS);
    await until(WARM_UP_JOBS);
    handled = 0;
    const started = performance.now();
    const dispatched = dispatch(jobs).then(() => performance.now() - started);
    await until(jobs);
    const handledMs = performance.now() - started;
    const dispatchedMs = await dispatched;
    return {
      dispatchedPerSec: Math.round((jobs / dispatchedMs) * 1000),
      handledPerSec: Math.round((jobs / handledMs) * 1000),
      dispatchedMs: Math.round(dispatchedMs),
      handledMs: Math.round(handledMs),
    };
  } finally {
    for (const { child, exited } of children) {
      if (child.connected) child.disconnect();
      await exited;
    }
    await queue.close();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
}
