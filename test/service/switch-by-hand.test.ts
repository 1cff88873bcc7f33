/**
 * Switching harness by hand in the session service: a switch asked mid-turn interrupts the running
 * attempt, which ends `switched`, and the chosen harness carries the same turn on with the handoff
 * (context.json names what the first attempt committed); a switch asked while the execution waits
 * for a quota reset starts the chosen harness at once; who asked and why is on the timeline; it
 * costs nothing of `maxSwitches`; a switch the execution cannot make is refused with the reason.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError, HarnessNotInstalledError } from '../../src/core/errors.js';
import type { EventRecord } from '../../src/events/schema.js';
import { ExecutionContext } from '../../src/execution/context-schema.js';
import { GIT_IDENTITY, simulated } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench, until } from './bench.js';

let bench: ServiceBench;
afterEach(async () => {
  await bench?.cleanup();
});

function recordsOf<T extends EventRecord['type']>(id: string, type: T): Extract<EventRecord, { type: T }>[] {
  return bench.events(id).filter((record): record is Extract<EventRecord, { type: T }> => record.type === type);
}

const outIn = (resetsIn: string) => ({ steps: [{ say: 'Working.' }, { end: { quota: { resetsIn } } }] });

describe('switch by hand', () => {
  it('mid-turn: the attempt ends switched and the chosen harness carries the turn on with the handoff', {
    timeout: 30_000,
  }, async () => {
    bench = makeServiceBench();
    const claude = bench.scenario('claude-commits-then-hangs', {
      steps: [{ write: { path: 'a.txt', content: 'a\n' } }, { commit: 'Add a' }, { end: 'hang' }],
    });
    const codex = bench.scenario('codex', { steps: [{ say: 'Carrying on from the handoff.' }, { end: 'complete' }] });
    const execution = await bench.registry.submit(
      bench.task({ harness: simulated('claude-code', claude), fallbacks: [simulated('codex', codex)], maxSwitches: 0 }),
    );
    await until(() =>
      bench.events(execution.id).some((record) => record.type === 'operation' && record.data.kind === 'commit'),
    );
    const asked = await bench.registry.switch(execution.id, {
      harness: 'codex',
      by: 'cli (alice)',
      reason: 'credit left on codex',
    });
    expect(asked.state).toBe('running');
    await bench.registry.settled();

    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
    const ended = recordsOf(execution.id, 'attempt.ended');
    expect(ended.map((record) => [record.harness, record.data.outcome, record.data.message])).toEqual([
      ['claude-code', 'switched', 'cli (alice) asked to switch to codex: credit left on codex'],
      ['codex', 'completed', 'Finished: 1 steps.'],
    ]);
    // Who asked and why, then the switch itself; not counted against maxSwitches (0 here).
    expect(recordsOf(execution.id, 'switch.requested').map((record) => record.data)).toEqual([
      { harness: 'codex', by: 'cli (alice)', reason: 'credit left on codex' },
    ]);
    expect(recordsOf(execution.id, 'failover').map((record) => record.data)).toEqual([
      {
        from: 'claude-code',
        to: 'codex',
        reason: 'switched',
        switchNumber: 0,
        maxSwitches: 0,
        toIndex: 1,
        hand: { harness: 'codex', like: 1 },
        requestedBy: 'cli (alice)',
        note: 'credit left on codex',
      },
    ]);
    const turns = recordsOf(execution.id, 'turn.started');
    expect(turns.map((record) => [record.data.turn, record.data.delivery, record.harness])).toEqual([
      ['t1', 'first', 'claude-code'],
      ['t1', 'handoff', 'codex'],
    ]);
    const context = ExecutionContext.parse(JSON.parse(readFileSync(bench.home.contextFile(execution.id), 'utf8')));
    const [first] = context.attempts;
    expect(first).toMatchObject({ harness: 'claude-code', outcome: 'switched' });
    expect(first?.workItems.flatMap((item) => item.commits ?? []).map((commit) => commit.subject)).toEqual(['Add a']);
    const [, second] = recordsOf(execution.id, 'attempt.started');
    expect(second?.data).toMatchObject({ handoff: true });
    expect(second?.data.prompt).toContain('Add a');
  });

  it('while waiting for a quota reset: the chosen harness starts at once', { timeout: 30_000 }, async () => {
    bench = makeServiceBench();
    const codex = bench.scenario('codex-out-then-done', {
      ...outIn('2h'),
      turns: [{ when: 'Attempt 2 — codex', steps: [{ say: 'Done after the switch.' }, { end: 'complete' }] }],
    });
    const execution = await bench.registry.submit(
      bench.task({
        harness: simulated('claude-code', bench.scenario('claude-out', outIn('1h'))),
        fallbacks: [simulated('codex', codex)],
        waitForReset: true,
        timeout: '3h',
      }),
    );
    await until(async () => (await bench.store.getExecution(execution.id))?.state === 'waiting');
    const asked = Date.now();
    await bench.registry.switch(execution.id, { harness: 'codex', by: 'workbench' });
    await bench.registry.settled();

    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
    expect(recordsOf(execution.id, 'wait.ended').map((record) => record.data.reason)).toEqual(['switched']);
    expect(recordsOf(execution.id, 'attempt.ended').map((record) => [record.harness, record.data.outcome])).toEqual([
      ['claude-code', 'quota_exhausted'],
      ['codex', 'quota_exhausted'],
      ['codex', 'completed'],
    ]);
    const third = recordsOf(execution.id, 'attempt.started')[2];
    expect(third?.data.handoff).toBe(true);
    expect(Date.parse(third?.ts ?? '') - asked).toBeLessThan(10_000);
    expect(recordsOf(execution.id, 'failover').at(-1)?.data).toMatchObject({
      from: 'codex',
      to: 'codex',
      requestedBy: 'workbench',
    });
  });

  it('refuses an execution that is not running or waiting, and a harness that cannot start here', {
    timeout: 30_000,
  }, async () => {
    bench = makeServiceBench({ hostEnv: { PATH: '/nonexistent', ...GIT_IDENTITY } });
    const hang = bench.scenario('hang', { steps: [{ say: 'Working.' }, { end: 'hang' }] });
    const execution = await bench.registry.submit(bench.task({ harness: simulated('claude-code', hang) }));
    await until(async () => (await bench.store.getExecution(execution.id))?.state === 'running');
    await expect(bench.registry.switch(execution.id, { harness: 'gemini', by: 'test' })).rejects.toThrow(
      new HarnessNotInstalledError(
        'harness gemini is not installed: "gemini" is not on PATH (install @google/gemini-cli)',
      ),
    );
    expect(recordsOf(execution.id, 'switch.requested')).toEqual([]);
    await bench.registry.cancel(execution.id);
    await bench.registry.settled();
    await expect(bench.registry.switch(execution.id, { harness: 'codex', by: 'test' })).rejects.toThrow(
      new ConflictError(`execution ${execution.id} is canceled; only a running or waiting execution can switch`),
    );
  });
});
