/**
 * Registry.send with an idempotency key once the message's execution moved on: a retry after the
 * execution succeeded (reopened by the message, then succeeded again) and after a restart of the
 * service is answered as the first time, queues nothing and reopens nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { simulated } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench } from './bench.js';

let bench: ServiceBench;
afterEach(async () => {
  await bench?.cleanup();
});

const KEY = { key: 'retry-me', requestHash: 'hash-of-the-body' };

describe('Registry.send with an idempotency key', () => {
  it('answers a retry after the reopened execution succeeded again, and after a restart', {
    timeout: 30_000,
  }, async () => {
    bench = makeServiceBench();
    const scenario = bench.scenario('quick', { pace: '50ms', steps: [{ say: 'done' }, { end: 'complete' }] });
    const execution = await bench.registry.submit(bench.task({ harness: simulated('codex', scenario) }));
    await bench.registry.settled();

    const first = await bench.registry.send(execution.id, 'one more thing', { idempotency: KEY });
    expect(first).toEqual({ turn: 't2', queued: 1 });
    await bench.registry.settled();
    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');

    expect(await bench.registry.send(execution.id, 'one more thing', { idempotency: KEY })).toEqual(first);
    const registry = await bench.reopen();
    expect(await registry.send(execution.id, 'one more thing', { idempotency: KEY })).toEqual(first);
    await registry.settled();

    const records = bench.events(execution.id);
    expect(records.filter((record) => record.type === 'execution.reopened')).toHaveLength(1);
    expect(records.flatMap((record) => (record.type === 'turn.started' ? [record.data.turn] : []))).toEqual([
      't1',
      't2',
    ]);
    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
  });

  it('answers a retry after the execution was canceled, instead of refusing it', { timeout: 30_000 }, async () => {
    bench = makeServiceBench();
    const scenario = bench.scenario('slow', { pace: '2s', steps: [{ say: 'working' }, { end: 'complete' }] });
    const execution = await bench.registry.submit(bench.task({ harness: simulated('claude-code', scenario) }));
    const first = await bench.registry.send(execution.id, 'and then this', { idempotency: KEY });
    await bench.registry.cancel(execution.id);
    await bench.registry.settled();
    expect((await bench.store.getExecution(execution.id))?.state).toBe('canceled');

    expect(await bench.registry.send(execution.id, 'and then this', { idempotency: KEY })).toEqual(first);
    await expect(bench.registry.send(execution.id, 'and then this')).rejects.toThrow(/has ended \(canceled\)/);
  });
});
