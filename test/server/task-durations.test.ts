/**
 * A task's durations are bounded where the task is parsed, before anything is made: a submit with a
 * timeout past the maximum is a 400 that leaves no execution, no worktree and no branch; a long one
 * within it runs (Node's timers fire a delay past 2^31-1 ms at once, and the deadline must not).
 */
import { existsSync, readdirSync } from 'node:fs';
import type { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, simulated } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench } from '../service/bench.js';
import { request, serviceBenchApp } from './fixture.js';

let bench: ServiceBench;
let app: Hono;

beforeEach(() => {
  bench = makeServiceBench();
  app = serviceBenchApp(bench);
});
afterEach(async () => {
  await bench.cleanup();
});

/** Submits a quick simulated task with `timeout`. */
function submit(timeout: string | number): Promise<Response> {
  const scenario = bench.scenario('quick', { pace: '100ms', steps: [{ say: 'working' }, { end: 'complete' }] });
  const task = { name: 'long', repo: bench.repo, baseRef: 'main', prompt: 'Do it.', timeout };
  return request(app, '/api/executions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task: { ...task, harness: simulated('claude-code', scenario) } }),
  });
}

describe('a task timeout past the maximum (720h)', () => {
  it('is refused with 400 and one line naming the field, the value and the maximum; nothing is made', async () => {
    for (const [timeout, shown] of [
      ['800h', '800h'],
      [1e308, '1e+308 (seconds)'],
    ] as const) {
      const response = await submit(timeout);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: {
          name: 'TaskFileError',
          message: `invalid task: timeout: ${shown} is longer than the maximum, 720h`,
        },
      });
    }
    expect(await bench.store.listExecutions()).toEqual([]);
    expect(existsSync(bench.home.worktrees) ? readdirSync(bench.home.worktrees) : []).toEqual([]);
    expect(existsSync(bench.home.runs) ? readdirSync(bench.home.runs) : []).toEqual([]);
    expect(git(bench.repo, 'branch', '--list', 'harmflow/*')).toBe('');
    expect(git(bench.repo, 'worktree', 'list').split('\n')).toHaveLength(1);
  });
});

describe('a task timeout of 600h', () => {
  it('runs to the end instead of timing out at once', { timeout: 20_000 }, async () => {
    const response = await submit('600h');
    expect(response.status).toBe(201);
    const { execution } = (await response.json()) as { execution: { id: string } };
    await bench.registry.settled();
    expect(await bench.store.getExecution(execution.id)).toMatchObject({ state: 'succeeded' });
    expect((await bench.store.listAttempts(execution.id)).map((attempt) => attempt.outcome)).toEqual(['completed']);
  });
});
