/**
 * What the engine observed, on the execution's record (issue 26, part 4): the URL of the pull request
 * an attempt opened (the simulator's `gh` is the fake forge), and how many turns were completed —
 * the task's prompt and each follow-up, counted once however they ran.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ExecutionContext } from '../../src/execution/context-schema.js';
import { simulated } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench } from './bench.js';

let bench: ServiceBench;
afterEach(async () => {
  await bench?.cleanup();
});

describe("an execution's record", () => {
  it('carries the URL of the pull request its attempt opened, as context.json has it', {
    timeout: 30_000,
  }, async () => {
    bench = makeServiceBench();
    const scenario = bench.scenario('pr', {
      steps: [
        { write: { path: 'notes.md', content: 'notes\n' } },
        { commit: 'Add notes' },
        { push: {} },
        { pr: { title: 'Add notes' } },
        { end: 'complete' },
      ],
    });
    const execution = await bench.registry.submit(bench.task({ harness: simulated('codex', scenario) }));
    await bench.registry.settled();

    const record = await bench.store.getExecution(execution.id);
    expect(record?.state).toBe('succeeded');
    const context = ExecutionContext.parse(JSON.parse(readFileSync(bench.home.contextFile(execution.id), 'utf8')));
    const opened = context.attempts.flatMap((attempt) => attempt.workItems.flatMap((item) => item.pullRequest ?? []));
    expect(opened).toHaveLength(1);
    expect(opened[0]?.url).toMatch(/\/pull\/1$/);
    expect(record?.pullRequestUrl).toBe(opened[0]?.url);
  });

  it('has no pull request URL when none was opened, and counts each follow-up as one more turn', {
    timeout: 40_000,
  }, async () => {
    bench = makeServiceBench();
    const scenario = bench.scenario('done', { steps: [{ say: 'Done.' }, { end: 'complete' }] });
    const execution = await bench.registry.submit(bench.task({ harness: simulated('claude-code', scenario) }));
    await bench.registry.settled();
    const first = await bench.store.getExecution(execution.id);
    expect(first).toMatchObject({ state: 'succeeded', turnCount: 1 });
    expect(first).not.toHaveProperty('pullRequestUrl');

    for (const [at, text] of ['second', 'third'].entries()) {
      await bench.registry.send(execution.id, text);
      await bench.registry.settled();
      expect(await bench.store.getExecution(execution.id)).toMatchObject({ state: 'succeeded', turnCount: at + 2 });
    }
  });

  it('counts a turn that failed as not completed', { timeout: 30_000 }, async () => {
    bench = makeServiceBench();
    const scenario = bench.scenario('fails', { steps: [{ say: 'Trying.' }, { end: 'auth' }] });
    const execution = await bench.registry.submit(bench.task({ harness: simulated('claude-code', scenario) }));
    await bench.registry.settled();
    const record = await bench.store.getExecution(execution.id);
    expect(record?.state).toBe('failed');
    expect(record?.turnCount).toBe(0);
  });
});
