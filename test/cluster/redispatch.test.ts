import { afterEach, describe, expect, it } from 'vitest';
import { createClusterExecution } from '../../src/cluster/create-records.js';
import { dispatchExecution } from '../../src/cluster/dispatch.js';
import { openExecutionInbox } from '../../src/cluster/inbox.js';
import { openRedispatchSweep, REDISPATCH_BATCH, startRedispatching } from '../../src/cluster/redispatch.js';
import type { ExecutionState } from '../../src/core/outcome.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL } from '../store/postgres.js';
import { clusters, deferred, waitFor } from './fixture.js';
import { REDIS_AVAILABLE } from './redis.js';
import { clusterTask, newRemote } from './workspace-fixture.js';

const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(REDIS_AVAILABLE && POSTGRES_AVAILABLE)('the redispatch sweep (PostgreSQL and BullMQ)', () => {
  const cluster = clusters();
  const closers: (() => Promise<void>)[] = [];
  // Registered after the cluster's hooks, so it runs before them (the schema is dropped last).
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A cluster with a store, an inbox and a sweep in its schema, and a remote to create executions on. */
  async function setUp() {
    const opened = await cluster.open();
    const schema = { schema: opened.schema };
    const store = await openPostgresStore(TEST_POSTGRES_URL, schema);
    closers.push(() => store.close());
    const inbox = await openExecutionInbox(TEST_POSTGRES_URL, schema);
    closers.push(() => inbox.close());
    const sweep = await openRedispatchSweep(TEST_POSTGRES_URL, schema);
    closers.push(() => sweep.close());
    const { remote, main } = await newRemote();
    // The base ref a full commit id: taken as is, so creating many executions asks the remote nothing.
    const task = clusterTask(remote, main);
    return { ...opened, store, inbox, sweep, task };
  }
  type SetUp = Awaited<ReturnType<typeof setUp>>;

  /** An execution as a submit leaves it: `queued`, its prompt enqueued as `t1`. */
  async function submitted({ task, store, inbox }: SetUp): Promise<string> {
    const record = await createClusterExecution(task, store);
    await inbox.enqueueTurn(record.id, task.prompt);
    return record.id;
  }

  /**
   * Runs turn `t1` of `execution` as a worker would (under a lease, through its turn source), records
   * the execution `state`, and then, as the worker settles its inbox, closes it (`close`), ends it
   * (`end`), or leaves it open (`open`: the worker died first).
   */
  async function ran(
    { leases, inbox, store }: SetUp,
    execution: string,
    state: ExecutionState,
    settle: 'close' | 'end' | 'open',
  ): Promise<void> {
    const token = await leases.acquireLease(execution, 'w', MINUTE);
    if (token === undefined) throw new Error(`the lease of ${execution} is held`);
    const source = await inbox.openTurnSource(execution, token);
    const turn = source.next();
    if (turn === undefined) throw new Error(`${execution} has no turn to run`);
    await source.flush();
    source.done(turn);
    await source.flush();
    await store.updateExecution(execution, { state, endedAt: new Date().toISOString() });
    if (settle === 'close') expect(await source.close()).toBe(true);
    if (settle === 'end') await source.end();
    await source.stop();
    expect(await leases.releaseLease(execution, 'w', token)).toBe(true);
  }

  it('dispatches a queued execution whose job was lost, once, and not one whose prompt is not enqueued yet', async () => {
    const setup = await setUp();
    const { queue, sweep, pending, store, task } = setup;
    const lost = await submitted(setup);
    await dispatchExecution(queue, lost);
    // A submit under way: its rows made, its prompt not enqueued yet.
    await createClusterExecution(task, store);
    // The job is there: nothing to do.
    expect(await sweep.sweep(queue)).toStrictEqual([]);
    expect(await pending()).toStrictEqual({ waiting: 1, active: 0, delayed: 0 });
    // As after a flush of Redis.
    await queue.obliterate({ force: true });
    expect(await pending()).toStrictEqual({ waiting: 0, active: 0, delayed: 0 });

    expect(await sweep.sweep(queue)).toStrictEqual([lost]);
    expect(await pending()).toStrictEqual({ waiting: 1, active: 0, delayed: 0 });
    const [job] = await queue.getJobs(['waiting']);
    expect(job?.data).toStrictEqual({ execution: lost });
    // A second sweep finds the job waiting and adds none.
    expect(await sweep.sweep(queue)).toStrictEqual([]);
    expect(await pending()).toStrictEqual({ waiting: 1, active: 0, delayed: 0 });
  });

  it('never dispatches an execution whose lease is unexpired, and does once the lease is released', async () => {
    const setup = await setUp();
    const { queue, sweep, pending, leases } = setup;
    const held = await submitted(setup);
    const token = await leases.acquireLease(held, 'elsewhere', MINUTE);
    expect(token).toBe(1);
    expect(await sweep.sweep(queue)).toStrictEqual([]);
    expect(await pending()).toStrictEqual({ waiting: 0, active: 0, delayed: 0 });
    expect(await leases.releaseLease(held, 'elsewhere', token ?? 0)).toBe(true);
    expect(await sweep.sweep(queue)).toStrictEqual([held]);
    expect(await pending()).toStrictEqual({ waiting: 1, active: 0, delayed: 0 });
  });

  it('adds one job, however many sweeps meet it, for an execution whose job is active without a lease', async () => {
    const setup = await setUp();
    const { queue, sweep, pending, schema, startWorker, errors } = setup;
    const execution = await submitted(setup);
    const calls: number[] = [];
    const firstMayEnd = deferred();
    await startWorker({
      workerId: 'w',
      concurrency: 1,
      // No renewal during the test: the lease stays as the test sets it.
      lease: { ttlMs: MINUTE, renewEveryMs: MINUTE - 1 },
      handle: async (_execution, { token }) => {
        calls.push(token);
        if (calls.length === 1) await firstMayEnd.promise;
      },
    });
    await dispatchExecution(queue, execution);
    await waitFor('the first handling', () => (calls.length === 1 ? true : undefined));
    // As between two holders: the job active, the lease expired.
    await cluster.admin.query(`UPDATE ${schema}.execution_leases SET expires_at = now() - interval '1 second'`);
    for (let i = 0; i < 3; i++) expect(await sweep.sweep(queue)).toStrictEqual([execution]);
    expect(await pending()).toStrictEqual({ waiting: 0, active: 1, delayed: 0 });
    firstMayEnd.resolve();
    await waitFor('the second handling', () => (calls.length === 2 ? true : undefined));
    await waitFor('an empty queue', async () => ((await pending()).active === 0 ? true : undefined));
    await sleep(300);
    expect(calls).toStrictEqual([1, 2]);
    expect(errors).toStrictEqual([]);
  });

  it('dispatches a succeeded execution with a follow-up turn or a command left in its open inbox, not one with none', async () => {
    const setup = await setUp();
    const { queue, sweep, pending, inbox } = setup;
    const [followedUp, commanded, unsettled, settled] = [
      await submitted(setup),
      await submitted(setup),
      await submitted(setup),
      await submitted(setup),
    ];
    for (const execution of [followedUp, commanded, unsettled]) await ran(setup, execution, 'succeeded', 'open');
    await ran(setup, settled, 'succeeded', 'close');
    // A follow-up that came in before the worker closed the inbox, its dispatch failed (503).
    expect(await inbox.enqueueTurn(followedUp, 'and the tests')).toStrictEqual({ turn: 't2', queued: 1 });
    // A cancel requested as the execution ended, likewise.
    await inbox.requestCommand(commanded, { kind: 'cancel' });

    expect((await sweep.sweep(queue)).sort()).toStrictEqual([followedUp, commanded].sort());
    expect(await pending()).toStrictEqual({ waiting: 2, active: 0, delayed: 0 });
  });

  it('dispatches no ended execution whose inbox is settled, even with turns left in it', async () => {
    const setup = await setUp();
    const { queue, sweep, pending, inbox } = setup;
    const [failed, canceled, timedOut] = [await submitted(setup), await submitted(setup), await submitted(setup)];
    await ran(setup, failed, 'failed', 'end');
    await inbox.enqueueTurn(canceled, 'then this');
    await ran(setup, canceled, 'canceled', 'end');
    await ran(setup, timedOut, 'timed_out', 'end');
    expect(await sweep.sweep(queue)).toStrictEqual([]);
    expect(await pending()).toStrictEqual({ waiting: 0, active: 0, delayed: 0 });
  });

  it(`looks at ${REDISPATCH_BATCH} executions a sweep, oldest first, the next sweep going on after them`, async () => {
    const setup = await setUp();
    const { queue, sweep, pending } = setup;
    const executions: string[] = [];
    for (let i = 0; i < REDISPATCH_BATCH + 1; i += 10) {
      const batch = Math.min(10, REDISPATCH_BATCH + 1 - i);
      executions.push(...(await Promise.all(Array.from({ length: batch }, () => submitted(setup)))));
    }
    executions.sort();
    expect(await sweep.sweep(queue)).toStrictEqual(executions.slice(0, REDISPATCH_BATCH));
    expect(await sweep.sweep(queue)).toStrictEqual(executions.slice(REDISPATCH_BATCH));
    // The next sweep starts over from the oldest.
    await queue.obliterate({ force: true });
    expect(await sweep.sweep(queue)).toStrictEqual(executions.slice(0, REDISPATCH_BATCH));
    expect((await pending()).waiting).toBe(REDISPATCH_BATCH);
  }, 60_000);

  it('sweeps periodically, reports what it dispatched, and stops cleanly', async () => {
    const setup = await setUp();
    const { queue, sweep, pending } = setup;
    const first = await submitted(setup);
    const dispatched: (readonly string[])[] = [];
    const errors: Error[] = [];
    const running = startRedispatching({
      sweep,
      queue,
      everyMs: 50,
      onError: (error) => errors.push(error),
      onDispatched: (executions) => dispatched.push(executions),
    });
    await waitFor('the first dispatch', () => (dispatched.length === 1 ? true : undefined));
    const second = await submitted(setup);
    await waitFor('the second dispatch', () => (dispatched.length === 2 ? true : undefined), 5_000);
    await running.stop();
    await running.stop();
    expect(dispatched).toStrictEqual([[first], [second]]);
    // Stopped: a third execution is left alone.
    await submitted(setup);
    await sleep(300);
    expect(dispatched).toHaveLength(2);
    expect(await pending()).toStrictEqual({ waiting: 2, active: 0, delayed: 0 });
    expect(errors).toStrictEqual([]);
  });

  it('reports a sweep that fails and sweeps again on time', async () => {
    const { queue, sweep } = await setUp();
    await sweep.close();
    const errors: Error[] = [];
    const running = startRedispatching({
      sweep,
      queue,
      everyMs: 50,
      onError: (error) => errors.push(error),
    });
    await waitFor('two failed sweeps', () => (errors.length >= 2 ? true : undefined), 5_000);
    await running.stop();
    const reported = errors.length;
    await sleep(200);
    expect(errors).toHaveLength(reported);
    expect(errors[0]?.message).toMatch(/closed/);
  });
});
