/**
 * Dispatch workers lost for real: a worker process (dispatch-worker.mjs, running the built dist/; run
 * `npm run build` first) takes an execution and is then killed with SIGKILL, or stopped with SIGSTOP
 * as if cut off, while its handler runs. A worker in the test process must take the execution over
 * within the bound the lock and lease settings promise, with a greater fencing token; the stopped one,
 * let run again, must find its lease gone and its handler's signal aborted.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dispatchExecution } from '../../src/cluster/dispatch.js';
import { DispatchFailedError } from '../../src/cluster/worker-loop.js';
import { newExecutionId } from '../../src/core/ids.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL } from '../store/postgres.js';
import { type Cluster, clusters, deferred, FAST_LEASE, FAST_LOCK, waitFor } from './fixture.js';
import { REDIS_AVAILABLE, TEST_REDIS_URL } from './redis.js';

const WORKER = fileURLToPath(new URL('./dispatch-worker.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/cluster/worker-loop.js', import.meta.url));

/**
 * How soon a lost worker's execution must be running on another: BullMQ moves the job back within a
 * lock duration and a stalled interval of the loss (dispatch.ts), and the lease has expired by then or
 * is waited for (at most its ttl, plus the retry margin); 1 s more for scheduling on a loaded machine.
 */
const TAKE_OVER_BOUND_MS =
  Math.max(FAST_LOCK.lockDurationMs + FAST_LOCK.stalledIntervalMs, FAST_LEASE.ttlMs + 100) + 1000;

/** A worker process and the JSON lines it printed. */
interface WorkerProcess {
  readonly child: ChildProcess;
  readonly lines: Record<string, unknown>[];
  readonly exited: Promise<unknown>;
  /** Resolves to its first line with `event`, waiting up to `timeoutMs`. */
  line(event: string, timeoutMs?: number): Promise<Record<string, unknown>>;
}

async function startWorkerProcess(cluster: Cluster, workerId: string, lock = FAST_LOCK): Promise<WorkerProcess> {
  const config = {
    redisUrl: TEST_REDIS_URL,
    prefix: cluster.prefix,
    postgresUrl: TEST_POSTGRES_URL,
    schema: cluster.schema,
    workerId,
    lock,
    lease: FAST_LEASE,
  };
  const child = spawn(process.execPath, [WORKER, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  let partial = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop() ?? '';
    for (const part of parts) lines.push(JSON.parse(part));
  });
  // 'close' comes after the exit and the last of its output.
  let closed = false;
  child.once('close', () => {
    closed = true;
  });
  const line = (event: string, timeoutMs = 10_000) =>
    waitFor(
      `${workerId}'s ${event} line`,
      () => {
        const found = lines.find((printed) => printed.event === event);
        if (found === undefined && closed) throw new Error(`${workerId} exited (${child.exitCode}): ${stderr}`);
        return found;
      },
      timeoutMs,
    );
  await line('ready');
  return { child, lines, exited, line };
}

describe.runIf(REDIS_AVAILABLE && POSTGRES_AVAILABLE)('dispatch workers lost (worker processes)', () => {
  const cluster = clusters();

  it('runs the execution of a SIGKILLed worker on the surviving one within the bound, with a greater token', async () => {
    if (!existsSync(BUILT)) throw new Error('dist/cluster/worker-loop.js is missing: run `npm run build` first');
    const opened = await cluster.open();
    const execution = newExecutionId();
    const doomed = await startWorkerProcess(opened, 'doomed');
    await dispatchExecution(opened.queue, execution);
    expect(await doomed.line('start')).toStrictEqual({ event: 'start', execution, token: 1 });

    // The survivor starts once the doomed worker holds the job, so it cannot take it first.
    const taken: { execution: string; token: number; afterMs: number }[] = [];
    let killedAt = 0;
    await opened.startWorker({
      workerId: 'survivor',
      concurrency: 2,
      handle: async (handled, { token }) => {
        taken.push({ execution: handled, token, afterMs: performance.now() - killedAt });
      },
    });
    killedAt = performance.now();
    doomed.child.kill('SIGKILL');
    await doomed.exited;

    const [takeOver] = await waitFor(
      'the take-over',
      () => (taken.length > 0 ? taken : undefined),
      3 * TAKE_OVER_BOUND_MS,
    );
    expect(takeOver).toMatchObject({ execution, token: 2 });
    expect(takeOver?.afterMs).toBeLessThanOrEqual(TAKE_OVER_BOUND_MS);
    await waitFor('an empty queue', async () => {
      const { waiting, active, delayed } = await opened.pending();
      return waiting + active + delayed === 0 ? true : undefined;
    });
    expect(taken).toHaveLength(1);
    expect(await opened.leases.leaseHolder(execution)).toBeUndefined();
    process.stdout.write(
      `take-over after SIGKILL: ${Math.round(takeOver?.afterMs ?? 0)} ms (bound ${TAKE_OVER_BOUND_MS} ms)\n`,
    );
  });

  it('aborts the handler of a stopped worker once it runs again, after another took its execution over', async () => {
    if (!existsSync(BUILT)) throw new Error('dist/cluster/worker-loop.js is missing: run `npm run build` first');
    const opened = await cluster.open();
    const execution = newExecutionId();
    const stalled = await startWorkerProcess(opened, 'stalled');
    await dispatchExecution(opened.queue, execution);
    expect(await stalled.line('start')).toStrictEqual({ event: 'start', execution, token: 1 });

    const taken: number[] = [];
    const takerMayEnd = deferred();
    await opened.startWorker({
      workerId: 'taker',
      concurrency: 1,
      handle: async (_execution, { token }) => {
        taken.push(token);
        await takerMayEnd.promise;
      },
    });
    stalled.child.kill('SIGSTOP');
    try {
      await waitFor('the take-over', () => (taken.length > 0 ? true : undefined), 3 * TAKE_OVER_BOUND_MS);
      expect(taken).toStrictEqual([2]);
    } finally {
      stalled.child.kill('SIGCONT');
    }
    // Its timers fire as it runs again: the renewal finds the lease taken, or its time up.
    const aborted = await stalled.line('aborted', FAST_LEASE.ttlMs + 2000);
    expect(aborted).toMatchObject({ event: 'aborted', execution, token: 1 });
    expect(aborted.reason).toMatch(
      /the lease of execution \w+ (was taken over by another worker|went \d+ ms without a renewal)/,
    );
    // The taker keeps the job and the lease: the stopped worker's lost run neither completed nor moved it.
    expect(await opened.pending()).toStrictEqual({ waiting: 0, active: 1, delayed: 0 });
    expect(await opened.leases.leaseHolder(execution)).toMatchObject({ worker: 'taker', token: 2 });
    takerMayEnd.resolve();
    await waitFor('an empty queue', async () => {
      const { waiting, active, delayed } = await opened.pending();
      return waiting + active + delayed === 0 ? true : undefined;
    });
    expect(taken).toStrictEqual([2]);

    stalled.child.kill('SIGTERM');
    await stalled.line('closed');
    await stalled.exited;
    expect(stalled.child.exitCode).toBe(0);
  });

  it('fails, and reports, the execution of a job that lost more workers than the stall limit allows', async () => {
    if (!existsSync(BUILT)) throw new Error('dist/cluster/worker-loop.js is missing: run `npm run build` first');
    const opened = await cluster.open();
    const execution = newExecutionId();
    const noSecondChance = { ...FAST_LOCK, maxStalledCount: 0 };
    const doomed = await startWorkerProcess(opened, 'doomed', noSecondChance);
    await dispatchExecution(opened.queue, execution);
    await doomed.line('start');
    const taken: string[] = [];
    await opened.startWorker({
      workerId: 'survivor',
      concurrency: 1,
      lock: noSecondChance,
      handle: async (handled) => {
        taken.push(handled);
      },
    });
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const failed = await waitFor(
      'the failure',
      () => opened.errors.find((error) => error instanceof DispatchFailedError),
      3 * TAKE_OVER_BOUND_MS,
    );
    expect(failed).toMatchObject({ execution });
    expect(failed.message).toMatch(/stalled more than allowable limit/);
    expect(taken).toStrictEqual([]);
    expect(await opened.pending()).toStrictEqual({ waiting: 0, active: 0, delayed: 0 });
  });
});
