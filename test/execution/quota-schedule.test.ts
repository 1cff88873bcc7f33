/**
 * Quota-aware scheduling with the simulator and a clock moved by hand: the quota registry learns from
 * each attempt; a harness known to be out is skipped by the next execution until its reset passes; a
 * chain that is out everywhere waits for the first reset and carries the same execution on, with the
 * handoff, on the harness that reset first; a wait that would pass maxWait or the deadline, or a task
 * that does not wait, ends the execution with a clear message; a cancel ends the wait.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { readEvents } from '../../src/events/log.js';
import type { EventRecord } from '../../src/events/schema.js';
import { ExecutionControl } from '../../src/execution/control.js';
import { type Bench, makeBench, simulated } from '../execution/fixture.js';
import { HandClock } from './hand-clock.js';

let bench: Bench;
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  await bench.cleanup();
});

/** Runs out of quota, saying when it resets (Claude Code's subscription limit; Codex's usage limit). */
const quotaIn = (resetsIn: string, kind?: 'usage_limit') => ({
  steps: [{ say: 'Working.' }, { end: { quota: { resetsIn, ...(kind && { kind }) } } }],
});
const completes = { steps: [{ say: 'Done.' }, { end: 'complete' }] };

function types(id: string): string[] {
  return readEvents(bench.home.eventsFile(id)).map((record) => record.type);
}

function recordsOf<T extends EventRecord['type']>(id: string, type: T): Extract<EventRecord, { type: T }>[] {
  return readEvents(bench.home.eventsFile(id)).filter(
    (record): record is Extract<EventRecord, { type: T }> => record.type === type,
  );
}

describe('quota-aware scheduling', () => {
  it('skips a harness known to be out in the next execution, until its reset passes', async () => {
    const clock = new HandClock();
    const chain = {
      harness: simulated('claude-code', bench.scenario('claude-out', quotaIn('2h'))),
      fallbacks: [simulated('codex', bench.scenario('codex', completes))],
    };
    const first = await bench.run(bench.task(chain), { clock });
    expect(first.attempts.map((a) => [a.harness, a.outcome])).toEqual([
      ['claude-code', 'quota_exhausted'],
      ['codex', 'completed'],
    ]);
    const quotas = await bench.store.listQuotas();
    expect(quotas).toMatchObject([
      {
        harness: 'claude-code',
        account: `sim:${bench.dir}/claude-out.scenario.yaml`,
        state: 'exhausted',
        source: 'quota.exhausted',
      },
      { harness: 'codex', account: `sim:${bench.dir}/codex.scenario.yaml`, state: 'ok' },
    ]);

    // The next execution starts on codex: claude-code is out for two more hours.
    const second = await bench.run(bench.task(chain), { clock });
    expect(second.attempts.map((a) => a.harness)).toEqual(['codex']);
    const [skip] = recordsOf(second.id, 'harness.skipped');
    expect(skip?.data).toMatchObject({ harness: 'claude-code', known: true, until: quotas[0]?.resetsAt });

    // Once the reset has passed, claude-code is tried again first.
    clock.time = Date.parse(quotas[0]?.resetsAt ?? '') + 1;
    const third = await bench.run(bench.task({ ...chain, fallbacks: [] }), { clock });
    expect(third.attempts.map((a) => a.harness)).toEqual(['claude-code']);
    expect(types(third.id)).not.toContain('harness.skipped');
  }, 60_000);

  it('waits when every harness is out, then carries the same execution on, with the handoff, on the harness that reset first', async () => {
    const clock = new HandClock();
    const codex = bench.scenario('codex-out-then-done', {
      ...quotaIn('30m', 'usage_limit'),
      turns: [{ when: 'Attempt 2 — codex', steps: [{ say: 'Picking up after the reset.' }, { end: 'complete' }] }],
    });
    const task = bench.task({
      harness: simulated('claude-code', bench.scenario('claude-out', quotaIn('2h'))),
      fallbacks: [simulated('codex', codex)],
      waitForReset: true,
      timeout: '5h',
    });
    const states: string[] = [];
    let execution = '';
    clock.onSleep = async () => {
      states.push((await bench.store.getExecution(execution))?.state ?? '?');
    };
    const result = await bench.run(task, {
      clock,
      onRecord: (record) => {
        execution = record.execution;
      },
    });
    expect(result.state).toBe('succeeded');
    expect(result.attempts.map((a) => [a.number, a.harness, a.outcome])).toEqual([
      [1, 'claude-code', 'quota_exhausted'],
      [2, 'codex', 'quota_exhausted'],
      [3, 'codex', 'completed'],
    ]);
    const [waiting] = recordsOf(result.id, 'quota.waiting');
    expect(waiting?.data).toMatchObject({ harness: 'codex', known: true });
    // The wait lasted until codex's reset (30 min, not claude-code's 2 h; Codex says the minute), plus jitter.
    expect(clock.slept).toHaveLength(1);
    expect(clock.slept[0]).toBeGreaterThan(29 * 60_000);
    expect(clock.slept[0]).toBeLessThan(32 * 60_000);
    const order = types(result.id);
    expect(order.indexOf('quota.waiting')).toBeLessThan(order.indexOf('wait.ended'));
    const third = recordsOf(result.id, 'attempt.started')[2];
    expect(third).toMatchObject({ attempt: 3, harness: 'codex', data: { handoff: true } });
    expect(third?.data.prompt).toContain('Attempt 2 — codex');
    expect(states).toEqual(['waiting']);
  }, 60_000);

  it('ends with a clear message when the first reset is further away than maxWait', async () => {
    const task = bench.task({
      harness: simulated('claude-code', bench.scenario('claude-out', quotaIn('2h'))),
      maxWait: '30m',
    });
    const result = await bench.run(task, { clock: new HandClock() });
    expect(result.state).toBe('failed');
    const [ended] = recordsOf(result.id, 'execution.ended');
    expect(ended?.data.message).toMatch(
      /^every harness of the chain is out of quota \(claude-code until \S+\); the first reset, claude-code at \S+, is more than maxWait \(1800s\) away$/,
    );
    expect(types(result.id)).not.toContain('quota.waiting');
  }, 60_000);

  it('without waitForReset, says so; with a reset after the deadline, ends timed out', async () => {
    const out = bench.scenario('claude-out', quotaIn('2h'));
    const noWait = await bench.run(bench.task({ harness: simulated('claude-code', out) }), { clock: new HandClock() });
    expect(noWait.state).toBe('failed');
    expect(recordsOf(noWait.id, 'execution.ended')[0]?.data.message).toMatch(
      /out of quota .*; the task does not wait for a reset \(waitForReset, maxWait\)$/,
    );

    const late = await bench.run(
      bench.task({ harness: simulated('claude-code', out), waitForReset: true, timeout: '1h' }),
      { clock: new HandClock() },
    );
    expect(late.state).toBe('timed_out');
    expect(recordsOf(late.id, 'execution.ended')[0]?.data.message).toMatch(/is after the deadline$/);
  }, 60_000);

  it('resumed by hand during the wait, it carries on at once on the harness it waited for', async () => {
    const control = new ExecutionControl();
    const resumes: boolean[] = [];
    const clock: Clock = {
      now: () => Date.now(),
      sleep: (_ms, signal) =>
        new Promise((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true })),
    };
    const claude = bench.scenario('claude-out-then-done', {
      ...quotaIn('1h'),
      turns: [
        { when: 'Attempt 1 — claude-code', steps: [{ say: 'Plan upgraded; carrying on.' }, { end: 'complete' }] },
      ],
    });
    const result = await bench.run(
      bench.task({ harness: simulated('claude-code', claude), waitForReset: true, timeout: '3h' }),
      {
        clock,
        control,
        onRecord: (record) => {
          if (record.type === 'quota.waiting') setTimeout(() => resumes.push(control.resumeNow()), 50);
        },
      },
    );
    expect(result.state).toBe('succeeded');
    expect(recordsOf(result.id, 'wait.ended').map((record) => record.data)).toEqual([
      { harness: 'claude-code', reason: 'resumed' },
    ]);
    expect(result.attempts.map((a) => [a.harness, a.outcome])).toEqual([
      ['claude-code', 'quota_exhausted'],
      ['claude-code', 'completed'],
    ]);
    expect(resumes).toEqual([true]);
    expect(control.resumeNow()).toBe(false);
  }, 60_000);

  it('a cancel during the wait ends the execution canceled', async () => {
    const controller = new AbortController();
    const clock: Clock = {
      now: () => Date.now(),
      sleep: (_ms, signal) =>
        new Promise((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true })),
    };
    const task = bench.task({
      harness: simulated('claude-code', bench.scenario('claude-out', quotaIn('1h'))),
      waitForReset: true,
      timeout: '3h',
    });
    const result = await bench.run(task, {
      clock,
      signal: controller.signal,
      onRecord: (record) => {
        if (record.type === 'quota.waiting') setTimeout(() => controller.abort(), 50);
      },
    });
    expect(result.state).toBe('canceled');
    expect(recordsOf(result.id, 'execution.ended')[0]?.data.message).toBe('canceled while waiting for a quota reset');
    expect((await bench.store.getExecution(result.id))?.state).toBe('canceled');
  }, 60_000);
});
