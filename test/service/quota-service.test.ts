/**
 * Quota scheduling in the session service, where turns arrive as messages and executions share
 * admission: an execution waiting for a quota reset gives its slot to the next one and takes a slot
 * again before it carries on; with `switchAtUtilization`, a harness that reports its limit nearly
 * used is left at the turn boundary, the next turn going to the next harness with the handoff.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EventRecord } from '../../src/events/schema.js';
import { simulated } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench, until } from './bench.js';

let bench: ServiceBench;
afterEach(async () => {
  await bench?.cleanup();
});

function recordsOf<T extends EventRecord['type']>(id: string, type: T): Extract<EventRecord, { type: T }>[] {
  return bench.events(id).filter((record): record is Extract<EventRecord, { type: T }> => record.type === type);
}

/** When `type` was first recorded in `id`'s events, epoch ms. */
function timeOf(id: string, type: EventRecord['type']): number {
  return Date.parse(bench.events(id).find((record) => record.type === type)?.ts ?? '');
}

describe('quota scheduling in the service', () => {
  it('a waiting execution frees its admission slot, and queues for one before it carries on', {
    timeout: 30_000,
  }, async () => {
    bench = makeServiceBench({ maxRunning: 1 });
    const claude = bench.scenario('claude-out-then-done', {
      steps: [{ say: 'Working.' }, { end: { quota: { resetsIn: '1h' } } }],
      turns: [{ when: 'Attempt 1 — claude-code', steps: [{ say: 'Carrying on.' }, { end: 'complete' }] }],
    });
    const waiter = await bench.registry.submit(
      bench.task({ harness: simulated('claude-code', claude), waitForReset: true, timeout: '3h' }),
    );
    await until(async () => (await bench.store.getExecution(waiter.id))?.state === 'waiting');
    expect((await bench.admission.status()).running).toBe(0);

    // With the one slot free, the next execution runs to its end while the first still waits.
    const done = bench.scenario('done', { steps: [{ say: 'Done.' }, { end: 'complete' }] });
    const other = await bench.registry.submit(bench.task({ harness: simulated('codex', done) }));
    await until(async () => (await bench.store.getExecution(other.id))?.state === 'succeeded');
    expect((await bench.store.getExecution(waiter.id))?.state).toBe('waiting');

    // A slot is held again for the attempt after the wait, and given back at the end.
    const blocker = await bench.admission.acquire();
    await bench.registry.resume(waiter.id);
    await until(async () => (await bench.store.getExecution(waiter.id))?.state === 'queued');
    expect(recordsOf(waiter.id, 'attempt.started')).toHaveLength(1);
    blocker.release();
    await bench.registry.settled();

    expect((await bench.store.getExecution(waiter.id))?.state).toBe('succeeded');
    expect(recordsOf(waiter.id, 'attempt.started').map((record) => record.data.handoff)).toEqual([false, true]);
    expect(timeOf(other.id, 'execution.ended')).toBeLessThan(timeOf(waiter.id, 'wait.ended'));
    expect((await bench.admission.status()).running).toBe(0);
  });

  it('switches at the turn boundary once the harness reports its limit past switchAtUtilization', {
    timeout: 30_000,
  }, async () => {
    bench = makeServiceBench();
    const nearly = bench.scenario('claude-nearly-out', {
      pace: '200ms',
      steps: [{ say: 'First part done.' }, { end: { complete: { utilization: 0.96 } } }],
    });
    const codex = bench.scenario('codex', {
      steps: [{ say: 'Nothing to do.' }, { end: 'complete' }],
      turns: [{ when: 'also add a test', steps: [{ write: { path: 'added.test.js', content: '' } }] }],
    });
    const task = bench.task({
      harness: simulated('claude-code', nearly),
      fallbacks: [simulated('codex', codex)],
      switchAtUtilization: 0.95,
    });
    const execution = await bench.registry.submit(task);
    await bench.registry.send(execution.id, 'also add a test');
    await bench.registry.settled();

    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
    const ended = recordsOf(execution.id, 'attempt.ended');
    expect(ended.map((record) => [record.harness, record.data.outcome])).toEqual([
      ['claude-code', 'switched'],
      ['codex', 'completed'],
    ]);
    expect(ended[0]?.data.message).toBe(
      'claude-code reports 96% of its limit used (switchAtUtilization 0.95): switching before it runs out',
    );
    expect(recordsOf(execution.id, 'failover').map((record) => record.data)).toEqual([
      {
        from: 'claude-code',
        to: 'codex',
        reason: 'switched',
        switchNumber: 1,
        maxSwitches: 1,
        toIndex: 1,
        utilization: 0.96,
        threshold: 0.95,
      },
    ]);
    const turns = recordsOf(execution.id, 'turn.started');
    expect(turns.map((record) => [record.data.turn, record.data.delivery, record.harness])).toEqual([
      ['t1', 'first', 'claude-code'],
      ['t2', 'first', 'codex'],
    ]);
    const [, second] = recordsOf(execution.id, 'attempt.started');
    expect(second?.data).toMatchObject({ handoff: true });
    expect(second?.data.prompt).toContain('also add a test');
    const [quota] = (await bench.store.listQuotas()).filter((record) => record.harness === 'claude-code');
    expect(quota).toMatchObject({ state: 'warning', utilization: 0.96, source: 'rate_limit' });
    expect(Date.parse(quota?.resetsAt ?? '')).toBeGreaterThan(Date.now());

    // The next execution with the threshold starts below it, on codex; one without starts on claude-code.
    const next = await bench.registry.submit(task);
    await bench.registry.settled();
    expect(recordsOf(next.id, 'attempt.started').map((record) => record.harness)).toEqual(['codex']);
    expect(recordsOf(next.id, 'harness.skipped').map((record) => record.data)).toEqual([
      { harness: 'claude-code', utilization: 0.96, threshold: 0.95 },
    ]);
    const { switchAtUtilization: _, ...without } = task;
    const plain = await bench.registry.submit(without);
    await bench.registry.settled();
    expect(recordsOf(plain.id, 'attempt.started').map((record) => record.harness)).toEqual(['claude-code']);
  });

  it('stays on a harness past the threshold when no other is free, saying so once', { timeout: 30_000 }, async () => {
    bench = makeServiceBench();
    const nearly = bench.scenario('claude-nearly-out', {
      pace: '200ms',
      steps: [{ say: 'Part done.' }, { end: { complete: { utilization: 0.97 } } }],
    });
    const execution = await bench.registry.submit(
      bench.task({ harness: simulated('claude-code', nearly), switchAtUtilization: 0.9 }),
    );
    await bench.registry.send(execution.id, 'next part');
    await bench.registry.send(execution.id, 'last part');
    await bench.registry.settled();

    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
    expect(recordsOf(execution.id, 'attempt.ended').map((record) => record.data.outcome)).toEqual(['completed']);
    expect(recordsOf(execution.id, 'turn.started')).toHaveLength(3);
    const warnings = recordsOf(execution.id, 'warning').map((record) => record.data.message);
    expect(warnings.filter((message) => message.includes('switchAtUtilization'))).toEqual([
      'claude-code reports 97% of its limit used (switchAtUtilization 0.9), but no later harness is free: it goes on',
    ]);
  });
});

describe('what a stop suspends', () => {
  it('counts the running, the waiting and the queued executions apart', { timeout: 30_000 }, async () => {
    bench = makeServiceBench({ maxRunning: 1 });
    const claude = bench.scenario('claude-out', {
      steps: [{ say: 'Working.' }, { end: { quota: { resetsIn: '1h' } } }],
    });
    const waiter = await bench.registry.submit(
      bench.task({ harness: simulated('claude-code', claude), waitForReset: true, timeout: '3h' }),
    );
    await until(async () => (await bench.store.getExecution(waiter.id))?.state === 'waiting');
    const slow = bench.scenario('slow', {
      pace: '1s',
      steps: [...Array.from({ length: 10 }, (_, at) => ({ say: `line ${at + 1}` })), { end: 'complete' }],
    });
    const running = await bench.registry.submit(bench.task({ harness: simulated('codex', slow) }));
    await until(async () => (await bench.store.getExecution(running.id))?.state === 'running');
    const queued = await bench.registry.submit(bench.task({ harness: simulated('codex', slow) }));
    expect((await bench.store.getExecution(queued.id))?.state).toBe('queued');

    expect(await bench.registry.suspending()).toStrictEqual({ running: 1, waiting: 1, queued: 1 });
    await bench.registry.stop();
    expect(await bench.registry.suspending()).toStrictEqual({ running: 0, waiting: 0, queued: 0 });
    for (const id of [waiter.id, running.id, queued.id]) {
      expect(['queued', 'running', 'waiting']).toContain((await bench.store.getExecution(id))?.state);
    }
  });
});
