import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ServiceUnavailableError } from '../../src/core/errors.js';
import { StoredContext } from '../../src/execution/context-schema.js';
import { REDELIVERY_PREFIX } from '../../src/execution/turns.js';
import { groupAlive } from '../../src/proc/group.js';
import { QueueFile } from '../../src/service/queue.js';
import { simulated } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench, until } from './bench.js';

const MISSING_ID = '01jf3kaaaa2m4n6p8r0s2t4v6z';

let bench: ServiceBench;
afterEach(async () => {
  await bench?.cleanup();
});

/** A turn of about `ms`: two paced messages, then success. */
function slow(ms: number) {
  return { pace: `${Math.round(ms / 2)}ms`, steps: [{ say: 'working' }, { say: 'done' }, { end: 'complete' }] };
}

function turnStarts(id: string) {
  return bench.events(id).flatMap((record) => (record.type === 'turn.started' ? [record] : []));
}

describe('Registry', () => {
  it('runs a submitted task, then a follow-up in the same harness session', { timeout: 20_000 }, async () => {
    bench = makeServiceBench();
    const scenario = bench.scenario('slow', slow(600));
    const execution = await bench.registry.submit(bench.task({ harness: simulated('claude-code', scenario) }));
    expect(execution.state).toBe('queued');
    const sent = await bench.registry.send(execution.id, 'also update the changelog');
    expect(sent).toEqual({ turn: 't2', queued: 2 });
    await bench.registry.settled();

    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
    const starts = turnStarts(execution.id);
    expect(starts.map((record) => [record.data.turn, record.data.delivery, record.attempt])).toEqual([
      ['t1', 'first', 1],
      ['t2', 'first', 1],
    ]);
    const session = bench.events(execution.id).find((record) => record.type === 'session.started');
    expect(session?.type === 'session.started' && starts[1]?.data.resumedSession).toBe(
      session?.type === 'session.started' ? session.data.sessionId : 'no session',
    );
    const queue = QueueFile.parse(JSON.parse(readFileSync(bench.home.queueFile(execution.id), 'utf8')));
    expect(queue).toMatchObject({ running: null, pending: [], nextNumber: 3 });
  });

  it('reopens a succeeded execution for a follow-up, in the same harness session', { timeout: 20_000 }, async () => {
    bench = makeServiceBench();
    const scenario = bench.scenario('slow', slow(200));
    const execution = await bench.registry.submit(bench.task({ harness: simulated('codex', scenario) }));
    await bench.registry.settled();
    const before = await bench.store.getExecution(execution.id);
    expect(before?.state).toBe('succeeded');

    expect(await bench.registry.send(execution.id, 'one more thing')).toEqual({ turn: 't2', queued: 1 });
    await bench.registry.settled();
    const after = await bench.store.getExecution(execution.id);
    expect(after?.state).toBe('succeeded');
    expect(Date.parse(after?.deadline ?? '')).toBeGreaterThan(Date.parse(before?.deadline ?? ''));
    const records = bench.events(execution.id);
    const thread = records.find((record) => record.type === 'session.started');
    const sessionId = thread?.type === 'session.started' ? thread.data.sessionId : 'none';
    const reopened = records.find((record) => record.type === 'execution.reopened');
    expect(reopened?.type === 'execution.reopened' && reopened.data.resumedSession).toBe(sessionId);
    const second = records.find((record) => record.type === 'attempt.started' && record.attempt === 2);
    expect(second?.type === 'attempt.started' && [second.data.handoff, second.data.resumedSession]).toEqual([
      false,
      sessionId,
    ]);
    expect(
      turnStarts(execution.id).map((record) => [record.data.turn, record.attempt, record.data.resumedSession]),
    ).toEqual([
      ['t1', 1, undefined],
      ['t2', 2, sessionId],
    ]);
    expect(records.filter((record) => record.type === 'execution.ended')).toHaveLength(2);
  });

  it('refuses a follow-up to an execution that failed', { timeout: 20_000 }, async () => {
    bench = makeServiceBench();
    const crash = bench.scenario('crash', { steps: [{ say: 'oops' }, { end: 'crash' }] });
    const execution = await bench.registry.submit(bench.task({ harness: simulated('codex', crash) }));
    await bench.registry.settled();
    expect((await bench.store.getExecution(execution.id))?.state).toBe('failed');
    await expect(bench.registry.send(execution.id, 'try again')).rejects.toThrow(/has ended \(failed\)/);
  });

  it('gives a message sent during a quota switch to the next attempt', { timeout: 20_000 }, async () => {
    bench = makeServiceBench();
    const quota = bench.scenario('quota', { pace: '300ms', steps: [{ say: 'starting' }, { end: 'quota' }] });
    const done = bench.scenario('done', slow(200));
    const execution = await bench.registry.submit(
      bench.task({ harness: simulated('claude-code', quota), fallbacks: [simulated('codex', done)] }),
    );
    await bench.registry.send(execution.id, 'and add a test');
    await bench.registry.settled();

    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
    expect(turnStarts(execution.id).map((record) => [record.data.turn, record.data.delivery, record.harness])).toEqual([
      ['t1', 'first', 'claude-code'],
      ['t1', 'handoff', 'codex'],
      ['t2', 'first', 'codex'],
    ]);
  });

  it('keeps executions beyond the cap queued until a slot frees', { timeout: 20_000 }, async () => {
    bench = makeServiceBench({ maxRunning: 1 });
    const scenario = bench.scenario('slow', slow(400));
    const first = await bench.registry.submit(bench.task({ harness: simulated('claude-code', scenario) }));
    const second = await bench.registry.submit(bench.task({ harness: simulated('codex', scenario) }));
    await until(async () => (await bench.store.getExecution(first.id))?.state === 'running');
    expect((await bench.store.getExecution(second.id))?.state).toBe('queued');
    expect((await bench.admission.status()).queued).toBe(1);
    await bench.registry.settled();
    const [a, b] = await Promise.all([bench.store.getExecution(first.id), bench.store.getExecution(second.id)]);
    expect([a?.state, b?.state]).toEqual(['succeeded', 'succeeded']);
    expect(Date.parse(b?.startedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(a?.endedAt ?? ''));
  });

  it('refuses submits while admission is held, with the reason, and takes them after release', async () => {
    bench = makeServiceBench();
    const scenario = bench.scenario('slow', slow(100));
    bench.admission.hold('disk maintenance');
    const task = bench.task({ harness: simulated('claude-code', scenario) });
    await expect(bench.registry.submit(task)).rejects.toThrow(ServiceUnavailableError);
    await expect(bench.registry.submit(task)).rejects.toThrow(/held by an operator: disk maintenance/);
    expect(await bench.store.listExecutions()).toEqual([]);
    bench.admission.release();
    const execution = await bench.registry.submit(task);
    await bench.registry.settled();
    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
  });

  it('cancels a queued execution at once: no attempt, ended marker', { timeout: 20_000 }, async () => {
    bench = makeServiceBench({ maxRunning: 1 });
    const scenario = bench.scenario('slow', slow(400));
    await bench.registry.submit(bench.task({ harness: simulated('claude-code', scenario) }));
    const queued = await bench.registry.submit(bench.task({ harness: simulated('codex', scenario) }));
    await bench.registry.cancel(queued.id);
    await bench.registry.settled();
    const record = await bench.store.getExecution(queued.id);
    expect(record).toMatchObject({ state: 'canceled', attemptCount: 0 });
    expect(existsSync(bench.home.endedMarker(queued.id))).toBe(true);
    await expect(bench.registry.cancel(queued.id)).rejects.toThrow(ConflictError);
  });

  it('kills a harness that ignores SIGINT after the budget, with its whole group', { timeout: 20_000 }, async () => {
    bench = makeServiceBench();
    const stubborn = bench.scenario('stubborn', {
      steps: [{ say: 'busy' }, { end: { hang: { ignoreInterrupt: true, child: true } } }],
    });
    const execution = await bench.registry.submit(
      bench.task({ harness: simulated('codex', stubborn), interruptBudget: '300ms' }),
    );
    const pgidFile = join(bench.home.attemptDir(execution.id, 1), 'pgid');
    await until(() => bench.events(execution.id).some((record) => record.type === 'message'));
    const pgid = Number(readFileSync(pgidFile, 'utf8'));
    await bench.registry.cancel(execution.id);
    await bench.registry.settled();

    expect((await bench.store.getExecution(execution.id))?.state).toBe('canceled');
    const ended = bench.events(execution.id).find((record) => record.type === 'attempt.ended');
    expect(ended?.type === 'attempt.ended' && ended.data.signal).toBe('SIGKILL');
    expect(groupAlive(pgid)).toBe(false);
  });

  it('after a stop, a new registry reopens the execution and redelivers the turn that was running', {
    timeout: 30_000,
  }, async () => {
    bench = makeServiceBench();
    const scenario = bench.scenario('slow', slow(1_500));
    const execution = await bench.registry.submit(bench.task({ harness: simulated('claude-code', scenario) }));
    await bench.registry.send(execution.id, 'second thing');
    await until(() => bench.events(execution.id).some((record) => record.type === 'message'));
    const registry = await bench.reopen();
    expect((await bench.store.getExecution(execution.id))?.state).toBe('running');

    expect(await registry.recover()).toEqual([execution.id]);
    await registry.settled();
    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
    const starts = turnStarts(execution.id);
    expect(starts.map((record) => [record.data.turn, record.data.delivery, record.attempt])).toEqual([
      ['t1', 'first', 1],
      ['t1', 'redelivered', 2],
      ['t2', 'first', 2],
    ]);
    const redelivered = bench.events(execution.id).filter((record) => record.type === 'turn.redelivered');
    expect(redelivered).toHaveLength(1);
    const second = bench
      .events(execution.id)
      .find((record) => record.type === 'attempt.started' && record.attempt === 2);
    expect(second?.type === 'attempt.started' && second.data.prompt.startsWith(REDELIVERY_PREFIX)).toBe(true);
    expect(second?.type === 'attempt.started' && second.data.handoff).toBe(true);
    // context.json says which turns each attempt had: t1 in both, cut off by the stop in the first.
    const context = StoredContext.parse(JSON.parse(readFileSync(bench.home.contextFile(execution.id), 'utf8')));
    expect(context.attempts.map((attempt) => attempt.turns)).toEqual([['t1'], ['t1', 't2']]);
  });

  it('on stop, kills what ignores SIGINT once the close budget runs out, and leaves the execution open', {
    timeout: 20_000,
  }, async () => {
    bench = makeServiceBench({ closeBudgetMs: 300 });
    const stubborn = bench.scenario('stubborn', {
      steps: [{ say: 'busy' }, { end: { hang: { ignoreInterrupt: true, child: true } } }],
    });
    // An interrupt budget far beyond the test's timeout: only the close budget can end this stop.
    const execution = await bench.registry.submit(
      bench.task({ harness: simulated('claude-code', stubborn), interruptBudget: '10m' }),
    );
    await until(() => bench.events(execution.id).some((record) => record.type === 'message'));
    const pgid = Number(readFileSync(join(bench.home.attemptDir(execution.id, 1), 'pgid'), 'utf8'));
    await bench.registry.stop();
    expect(groupAlive(pgid)).toBe(false);
    expect((await bench.store.getExecution(execution.id))?.state).toBe('running');
    expect(existsSync(bench.home.endedMarker(execution.id))).toBe(false);
    const ended = bench.events(execution.id).find((record) => record.type === 'attempt.ended');
    expect(ended?.type === 'attempt.ended' && [ended.data.outcome, ended.data.signal]).toEqual(['canceled', 'SIGKILL']);
  });

  it('names an unknown execution in its errors', async () => {
    bench = makeServiceBench();
    await expect(bench.registry.send(MISSING_ID, 'hi')).rejects.toThrow(NotFoundError);
    await expect(bench.registry.cancel(MISSING_ID)).rejects.toThrow(NotFoundError);
  });
});
