import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResumeStore } from '../../src/store/resume-store.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import type { WorkflowDefinition } from '../../src/workflows/define.js';
import { resumeRun, startRun, type WorkflowOptions } from '../../src/workflows/run.js';
import { type Bench, FORGE_BIN, GIT_IDENTITY, makeBench, simulated } from '../execution/fixture.js';

let bench: Bench;
let store: ResumeStore;
beforeEach(() => {
  bench = makeBench();
  store = openSqliteResumeStore(':memory:');
});
afterEach(async () => {
  await store.close();
  await bench.cleanup();
});

/** One agent task per item, played by the simulator: the `bad` item's harness crashes. */
function fixes(): WorkflowDefinition {
  const good = bench.scenario('good', {
    steps: [{ write: { path: 'done.txt', content: 'done\n' } }, { end: 'complete' }],
  });
  const bad = bench.scenario('bad', { steps: [{ say: 'oops' }, { end: 'crash' }] });
  return {
    name: 'fixes',
    source: () => ['one', 'two', 'bad'],
    steps: [
      {
        kind: 'agent',
        name: 'fix',
        version: '1',
        items: 'source',
        concurrency: 2,
        task: ({ key }) => ({
          name: `fix-${key}`,
          repo: bench.repo,
          baseRef: 'main',
          prompt: `Fix ${key}.`,
          harness: simulated('claude-code', key === 'bad' ? bad : good),
        }),
      },
    ],
  };
}

function options(): WorkflowOptions {
  return {
    store,
    agents: {
      home: bench.home,
      store: bench.store,
      extraPath: [FORGE_BIN],
      hostEnv: { ...process.env, ...GIT_IDENTITY, HARMFLOW_FORGE_DIR: bench.forgeDir },
    },
    sleep: async () => {},
  };
}

describe('agent steps', () => {
  it('run each item as an execution; a failed execution fails its item; a resume reuses the rest', {
    timeout: 30_000,
  }, async () => {
    const first = await startRun(fixes(), options());
    expect(first.run.state).toBe('failed');
    expect(first.run.message).toMatch(/step fix item bad: execution \w+ of step fix item bad ended failed/);
    const executions = await bench.store.listExecutions();
    expect(executions.map((execution) => execution.state).sort()).toEqual(['failed', 'succeeded', 'succeeded']);

    const items = await store.listRunItems(first.run.id, 'fix');
    const outputs = await store.getOutputs(items.flatMap((item) => (item.status === 'done' ? [item.fingerprint] : [])));
    expect([...outputs.values()].map((output) => [output.item, (output.output as { state: string }).state])).toEqual(
      expect.arrayContaining([
        ['one', 'succeeded'],
        ['two', 'succeeded'],
      ]),
    );
    const again = await resumeRun(fixes(), first.run.id, options());
    expect(again.steps[0]).toMatchObject({ cached: 2, computed: 0, failed: 1 });
    expect(await bench.store.listExecutions()).toHaveLength(4);
  });

  it('needs an executions store to run at all', async () => {
    await expect(startRun(fixes(), { store })).rejects.toThrow(/runs agents, but no executions store is open/);
  });
});
