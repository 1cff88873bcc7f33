/** Bad input stops an execution before anything is created: one clear line, a documented exit code. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT, type HarmflowError } from '../../src/core/errors.js';
import { type Bench, git, makeBench, simulated } from './fixture.js';

let bench: Bench;
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  await bench.cleanup();
});

async function failure(run: () => Promise<unknown>): Promise<HarmflowError> {
  try {
    await run();
  } catch (error) {
    return error as HarmflowError;
  }
  throw new Error('expected the run to fail');
}

function expectNothingCreated(): void {
  expect(existsSync(join(bench.home.root, 'runs'))).toBe(false);
  expect(existsSync(join(bench.home.root, 'worktrees'))).toBe(false);
  expect(git(bench.repo, 'branch', '--list', 'harmflow/*')).toBe('');
}

describe('preflight', () => {
  it('refuses a harness whose CLI is not installed', async () => {
    const error = await failure(() =>
      bench.run(bench.task({ harness: 'codex' }), { hostEnv: { PATH: '/nonexistent' } }),
    );
    expect(error.message).toBe('harness codex is not installed: "codex" is not on PATH (install @openai/codex)');
    expect(error.exitCode).toBe(EXIT.harnessMissing);
    expectNothingCreated();
  });

  it('refuses a fallback whose CLI is not installed, before the primary runs', async () => {
    const scenario = bench.scenario('claude', { steps: [{ end: 'complete' }] });
    const task = bench.task({ harness: simulated('claude-code', scenario), fallbacks: ['claude-code'] });
    const error = await failure(() => bench.run(task, { hostEnv: { PATH: '/nonexistent' } }));
    expect(error.exitCode).toBe(EXIT.harnessMissing);
    expectNothingCreated();
  });

  it('refuses a missing repository', async () => {
    const scenario = bench.scenario('claude', { steps: [{ end: 'complete' }] });
    const error = await failure(() =>
      bench.run(bench.task({ repo: 'no-such-repo', harness: simulated('claude-code', scenario) })),
    );
    expect(error.message).toBe(`repository not found: ${join(bench.dir, 'no-such-repo')}`);
    expect(error.exitCode).toBe(EXIT.repository);
    expectNothingCreated();
  });

  it('refuses a base ref the repository does not have', async () => {
    const scenario = bench.scenario('claude', { steps: [{ end: 'complete' }] });
    const error = await failure(() =>
      bench.run(bench.task({ baseRef: 'no-such-branch', harness: simulated('claude-code', scenario) })),
    );
    expect(error.message).toMatch(/^base ref "no-such-branch" not found in /);
    expect(error.exitCode).toBe(EXIT.repository);
    expectNothingCreated();
  });

  it('refuses a missing scenario file', async () => {
    const task = bench.task({ harness: simulated('claude-code', 'missing.yaml') });
    const error = await failure(() => bench.run(task));
    expect(error.message).toBe(`scenario file for simulated claude-code not found: ${join(bench.dir, 'missing.yaml')}`);
    expect(error.exitCode).toBe(EXIT.invalidTask);
    expectNothingCreated();
  });
});
