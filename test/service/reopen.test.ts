/**
 * Reopening a succeeded execution, again and again, and across a crash: any number of follow-ups
 * each resume the harness session in the private home that holds it (the simulator, like the real
 * CLIs, refuses a session its home does not hold), and a follow-up acknowledged just before the
 * process died — its queue.json holds it, the store still says `succeeded` — is delivered by the next
 * start, once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EventRecord } from '../../src/events/schema.js';
import { DurableQueue } from '../../src/service/queue.js';
import { simulated } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench } from './bench.js';

let bench: ServiceBench;
afterEach(async () => {
  await bench?.cleanup();
});

const of = <T extends EventRecord['type']>(records: readonly EventRecord[], type: T) =>
  records.filter((record): record is Extract<EventRecord, { type: T }> => record.type === type);

describe.each(['claude-code', 'codex'] as const)('reopening a %s execution', (harness) => {
  it('resumes the same session on every follow-up, however many', { timeout: 40_000 }, async () => {
    bench = makeServiceBench();
    const scenario = bench.scenario('done', { steps: [{ say: 'Done.' }, { end: 'complete' }] });
    const execution = await bench.registry.submit(bench.task({ harness: simulated(harness, scenario) }));
    await bench.registry.settled();
    for (const text of ['second', 'third', 'fourth']) {
      await bench.registry.send(execution.id, text);
      await bench.registry.settled();
      expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
    }
    const records = bench.events(execution.id);
    const sessionId = of(records, 'session.started')[0]?.data.sessionId;
    expect(sessionId).toBeDefined();
    expect(of(records, 'attempt.ended').map((record) => record.data.outcome)).toEqual([
      'completed',
      'completed',
      'completed',
      'completed',
    ]);
    expect(of(records, 'turn.started').map((record) => [record.data.turn, record.data.resumedSession])).toEqual([
      ['t1', undefined],
      ['t2', sessionId],
      ['t3', sessionId],
      ['t4', sessionId],
    ]);
    expect(of(records, 'execution.reopened').map((record) => record.data.resumedSession)).toEqual([
      sessionId,
      sessionId,
      sessionId,
    ]);
  });
});

describe('a follow-up acknowledged just before the service died', () => {
  it('is delivered once by the next start, though the store still said succeeded', { timeout: 30_000 }, async () => {
    bench = makeServiceBench();
    const scenario = bench.scenario('done', { steps: [{ say: 'Done.' }, { end: 'complete' }] });
    const execution = await bench.registry.submit(bench.task({ harness: simulated('claude-code', scenario) }));
    await bench.registry.settled();
    await bench.registry.stop();
    // What the dead process left: the message durable in queue.json (the 202 was sent), the
    // execution still `succeeded` in the store — it died before its owner wrote anything more.
    DurableQueue.load(bench.home.queueFile(execution.id)).enqueue('acknowledged, then the crash');
    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');

    const registry = await bench.reopen();
    expect(await registry.recover()).toEqual([execution.id]);
    await registry.settled();
    const records = bench.events(execution.id);
    expect(
      of(records, 'turn.started').map((record) => [record.data.turn, record.data.text, record.data.delivery]),
    ).toEqual([
      ['t1', expect.any(String), 'first'],
      ['t2', 'acknowledged, then the crash', 'first'],
    ]);
    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
    expect(await (await bench.reopen()).recover()).toEqual([]);
  });

  it('waits for admission as `queued`, not `succeeded`', { timeout: 30_000 }, async () => {
    bench = makeServiceBench();
    const scenario = bench.scenario('done', { steps: [{ say: 'Done.' }, { end: 'complete' }] });
    const execution = await bench.registry.submit(bench.task({ harness: simulated('codex', scenario) }));
    await bench.registry.settled();
    bench.admission.hold('maintenance');
    await bench.registry.send(execution.id, 'after the hold');
    const until = async (state: string) => {
      for (let tries = 0; tries < 200; tries++) {
        if ((await bench.store.getExecution(execution.id))?.state === state) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`never ${state}`);
    };
    await until('queued');
    expect((await bench.admission.status()).queued).toBe(1);
    bench.admission.release();
    await bench.registry.settled();
    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
    expect(of(bench.events(execution.id), 'execution.reopened')).toHaveLength(1);
  });
});
