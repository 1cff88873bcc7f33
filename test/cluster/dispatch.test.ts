import { describe, expect, it } from 'vitest';
import { dispatchExecution } from '../../src/cluster/dispatch.js';
import { LeaseLostError } from '../../src/cluster/kept-lease.js';
import { DispatchFailedError, type HandlerContext } from '../../src/cluster/worker-loop.js';
import { UsageError } from '../../src/core/errors.js';
import { newExecutionId } from '../../src/core/ids.js';
import { POSTGRES_AVAILABLE } from '../store/postgres.js';
import { clusters, deferred, FAST_LEASE, waitFor } from './fixture.js';
import { REDIS_AVAILABLE } from './redis.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(REDIS_AVAILABLE && POSTGRES_AVAILABLE)('dispatch (BullMQ on Redis, leases on PostgreSQL)', () => {
  const cluster = clusters();

  it('holds one job per execution however often it is dispatched while waiting, and refuses a non-id', async () => {
    const { queue, pending } = await cluster.open();
    const [a, b] = [newExecutionId(), newExecutionId()];
    await Promise.all([dispatchExecution(queue, a), dispatchExecution(queue, a), dispatchExecution(queue, b)]);
    await dispatchExecution(queue, a);
    expect(await pending()).toStrictEqual({ waiting: 2, active: 0, delayed: 0 });
    await expect(dispatchExecution(queue, '../etc')).rejects.toBeInstanceOf(UsageError);
    expect(await pending()).toStrictEqual({ waiting: 2, active: 0, delayed: 0 });
  });

  it('runs an execution dispatched while active once more after it, and again once dispatched after it ended', async () => {
    const { queue, pending, startWorker } = await cluster.open();
    const execution = newExecutionId();
    const calls: { execution: string; token: number }[] = [];
    const firstMayEnd = deferred();
    await startWorker({
      workerId: 'w',
      concurrency: 2,
      handle: async (handled, { token }) => {
        calls.push({ execution: handled, token });
        if (calls.length === 1) await firstMayEnd.promise;
      },
    });
    await dispatchExecution(queue, execution);
    await waitFor('the first handling', () => (calls.length === 1 ? true : undefined));
    for (let i = 0; i < 3; i++) await dispatchExecution(queue, execution);
    // Nothing is added while the job is active; the one pending dispatch waits for it to finish.
    expect(await pending()).toStrictEqual({ waiting: 0, active: 1, delayed: 0 });
    await sleep(200);
    expect(calls).toHaveLength(1);
    firstMayEnd.resolve();
    await waitFor('the second handling', () => (calls.length === 2 ? true : undefined));
    await waitFor('an empty queue', async () => ((await pending()).active === 0 ? true : undefined));
    await sleep(200);
    expect(calls).toHaveLength(2);
    await dispatchExecution(queue, execution);
    await waitFor('the third handling', () => (calls.length === 3 ? true : undefined));
    // Each handling acquired the lease anew: three holders in turn, three tokens.
    expect(calls).toStrictEqual([1, 2, 3].map((token) => ({ execution, token })));
    await waitFor('an empty queue', async () => ((await pending()).active === 0 ? true : undefined));
  });

  it('shares 40 executions between two workers: each handled exactly once, neither above its concurrency', async () => {
    const { queue, pending, startWorker, errors } = await cluster.open();
    const handled = new Map<string, string[]>();
    const inFlight = { a: 0, b: 0 };
    const maxInFlight = { a: 0, b: 0 };
    const handler = (worker: 'a' | 'b') => async (execution: string) => {
      inFlight[worker] += 1;
      maxInFlight[worker] = Math.max(maxInFlight[worker], inFlight[worker]);
      handled.set(execution, [...(handled.get(execution) ?? []), worker]);
      await sleep(20 + Math.random() * 30);
      inFlight[worker] -= 1;
    };
    await startWorker({ workerId: 'a', concurrency: 3, handle: handler('a') });
    await startWorker({ workerId: 'b', concurrency: 2, handle: handler('b') });
    const executions = Array.from({ length: 40 }, () => newExecutionId());
    await Promise.all(executions.map((execution) => dispatchExecution(queue, execution)));
    await waitFor('40 handlings', () => (handled.size === 40 && inFlight.a + inFlight.b === 0 ? true : undefined));
    await waitFor('an empty queue', async () => {
      const counts = await pending();
      return counts.waiting + counts.active + counts.delayed === 0 ? true : undefined;
    });
    expect([...handled.keys()].sort()).toStrictEqual([...executions].sort());
    expect([...handled.values()].filter((workers) => workers.length !== 1)).toStrictEqual([]);
    const byWorker = (worker: string) => [...handled.values()].filter(([first]) => first === worker).length;
    expect(byWorker('a')).toBeGreaterThan(0);
    expect(byWorker('b')).toBeGreaterThan(0);
    expect(maxInFlight.a).toBeLessThanOrEqual(3);
    expect(maxInFlight.b).toBeLessThanOrEqual(2);
    expect(errors).toStrictEqual([]);
  });

  it('aborts a handler whose lease another worker took over, and hands its job back to wait for that lease', async () => {
    const { queue, pending, startWorker, leases, schema, errors } = await cluster.open();
    const execution = newExecutionId();
    const seen: { token: number; reason?: unknown }[] = [];
    await startWorker({
      workerId: 'slow',
      concurrency: 1,
      handle: async (_execution, { token, signal }: HandlerContext) => {
        const call: { token: number; reason?: unknown } = { token };
        seen.push(call);
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        call.reason = signal.reason;
      },
    });
    await dispatchExecution(queue, execution);
    await waitFor('the handling', () => (seen.length === 1 ? true : undefined));
    // As if `slow` had been cut off from PostgreSQL past its ttl: its lease expires, another takes it.
    await cluster.admin.query(`UPDATE ${schema}.execution_leases SET expires_at = now() - interval '1 second'`);
    expect(await leases.acquireLease(execution, 'intruder', 60_000)).toBe(2);
    const aborted = await waitFor('the abort', () => seen[0]?.reason, FAST_LEASE.renewEveryMs * 4 + 1000);
    expect(aborted).toBeInstanceOf(LeaseLostError);
    expect((aborted as Error).message).toMatch(/taken over by another worker/);
    // The job is handed back, then waits, delayed, for the intruder's lease: the handler is not run again.
    await waitFor('the job delayed', async () => ((await pending()).delayed === 1 ? true : undefined));
    await sleep(300);
    expect(seen).toHaveLength(1);
    expect(await leases.leaseHolder(execution)).toMatchObject({ worker: 'intruder', token: 2 });
    expect(errors).toStrictEqual([]);
  });

  it('fails the job of a handler that throws, reports it, and releases the lease', async () => {
    const { queue, pending, startWorker, leases, errors } = await cluster.open();
    const execution = newExecutionId();
    await startWorker({
      workerId: 'w',
      concurrency: 1,
      handle: async () => {
        throw new Error('the store is gone');
      },
    });
    await dispatchExecution(queue, execution);
    const failed = await waitFor('the failure', () => errors.find((error) => error instanceof DispatchFailedError));
    expect(failed).toMatchObject({ execution });
    expect(failed.message).toMatch(/the store is gone/);
    expect(await leases.leaseHolder(execution)).toBeUndefined();
    expect(await pending()).toStrictEqual({ waiting: 0, active: 0, delayed: 0 });
    // Nothing is kept of it: dispatching it again runs it again.
    await dispatchExecution(queue, execution);
    await waitFor('the second failure', () =>
      errors.filter((error) => error instanceof DispatchFailedError).length === 2 ? true : undefined,
    );
  });
});
