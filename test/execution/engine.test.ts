/**
 * The failover engine end to end: real temporary repositories, the simulator playing the real
 * harness formats through the real adapters, the real SQLite store and event log.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/events/log.js';
import type { EventRecord } from '../../src/events/schema.js';
import { ExecutionContext } from '../../src/execution/context-schema.js';
import { groupAlive } from '../../src/proc/group.js';
import { type Bench, git, makeBench, simulated } from './fixture.js';

const PLAN_A = [
  { text: 'Write a', status: 'in_progress' },
  { text: 'Write b', status: 'pending' },
];
const PLAN_B = [
  { text: 'Write a', status: 'completed' },
  { text: 'Write b', status: 'in_progress' },
];
const FIRST_HALF = [
  { plan: PLAN_A },
  { write: { path: 'src/a.js', content: 'export const a = 1;\n' } },
  { run: 'npm test' },
  { commit: 'Add a' },
  { push: {} },
  { plan: PLAN_B },
  { say: 'a is committed and pushed; b is next.' },
];
const SECOND_HALF = [
  { write: { path: 'src/b.js', content: 'export const b = 2;\n' } },
  { commit: 'Add b' },
  { push: {} },
];

let bench: Bench;
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  await bench.cleanup();
});

function events(id: string): EventRecord[] {
  return readEvents(bench.home.eventsFile(id));
}

function context(file: string): ExecutionContext {
  return ExecutionContext.parse(JSON.parse(readFileSync(file, 'utf8')));
}

describe('a quota switch', () => {
  it('continues the same execution on the next harness, in the same worktree and branch', async () => {
    const claude = bench.scenario('claude', { steps: [...FIRST_HALF, { end: 'quota' }] });
    const codex = bench.scenario('codex', { steps: [...FIRST_HALF, ...SECOND_HALF, { end: 'complete' }] });
    const task = bench.task({ harness: simulated('claude-code', claude), fallbacks: [simulated('codex', codex)] });

    const result = await bench.run(task);

    expect(result.state).toBe('succeeded');
    expect(result.attempts.map((a) => [a.harness, a.outcome])).toEqual([
      ['claude-code', 'quota_exhausted'],
      ['codex', 'completed'],
    ]);
    // The branch holds each commit once, in order, and the files of both attempts.
    expect(git(result.worktree, 'log', '--format=%s', `${result.baseSha}..HEAD`).split('\n')).toEqual([
      'Add b',
      'Add a',
    ]);
    expect(git(result.worktree, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(result.branch);
    expect(result.branch).toBe(`harmflow/test-task-${result.id}`);
    expect(existsSync(join(result.worktree, 'src/a.js'))).toBe(true);
    expect(existsSync(join(result.worktree, 'src/b.js'))).toBe(true);
    expect(git(bench.origin, 'rev-parse', result.branch)).toBe(git(result.worktree, 'rev-parse', 'HEAD'));

    // One execution: one id in every record, harnesses named wherever an attempt is concerned.
    const records = events(result.id);
    expect(new Set(records.map((r) => r.execution))).toEqual(new Set([result.id]));
    for (const record of records.filter((r) => r.attempt !== undefined)) {
      expect(record.harness).toBe(record.attempt === 1 ? 'claude-code' : 'codex');
    }
    for (const record of records.filter((r) => r.source === 'harness')) expect(record.attempt).toBeDefined();
    const types = records.map((r) => r.type);
    expect(types[0]).toBe('execution.started');
    expect(types.at(-1)).toBe('execution.ended');
    expect(types.filter((t) => t === 'attempt.started')).toHaveLength(2);
    const failover = records.find((r) => r.type === 'failover');
    expect(failover?.data).toMatchObject({
      from: 'claude-code',
      to: 'codex',
      reason: 'quota_exhausted',
      switchNumber: 1,
    });
    expect(records.some((r) => r.type === 'quota.exhausted' && r.harness === 'claude-code')).toBe(true);

    // The store agrees.
    const attempts = await bench.store.listAttempts(result.id);
    expect(attempts.map((a) => [a.number, a.harness, a.outcome, a.simulated])).toEqual([
      [1, 'claude-code', 'quota_exhausted', true],
      [2, 'codex', 'completed', true],
    ]);
    expect((await bench.store.getExecution(result.id))?.state).toBe('succeeded');
  });

  it("writes context.json with the first attempt's commits, push and test result, and nothing unreported", async () => {
    const claude = bench.scenario('claude', { steps: [...FIRST_HALF, { end: 'quota' }] });
    const codex = bench.scenario('codex', { steps: [...FIRST_HALF, ...SECOND_HALF, { end: 'complete' }] });
    const task = bench.task({ harness: simulated('claude-code', claude), fallbacks: [simulated('codex', codex)] });

    const result = await bench.run(task);
    const written = context(result.contextFile);
    const first = written.attempts[0];
    const sha = git(result.worktree, 'rev-parse', 'HEAD~1');

    expect(first).toMatchObject({ number: 1, harness: 'claude-code', outcome: 'quota_exhausted' });
    expect(first?.resetsAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(first?.lastMessage).toBe('a is committed and pushed; b is next.');
    expect(first?.lastOperation).toMatchObject({ kind: 'push', ok: true });
    const [itemA, itemB] = first?.workItems ?? [];
    expect(itemA).toEqual({
      text: 'Write a',
      reported: { status: 'completed', by: 'claude-code plan' },
      filesChanged: ['src/a.js'],
      commits: [{ sha, subject: 'Add a' }],
      push: { remote: 'origin', branch: result.branch, sha, observed: 'ls-remote' },
      testRuns: [{ command: 'npm test', passed: true, counts: { passed: 1, failed: 0, skipped: 0 } }],
    });
    // Never reported: no pull request, no tests, no files for the item not started.
    expect(itemB).toEqual({ text: 'Write b', reported: { status: 'in_progress', by: 'claude-code plan' } });
    expect(first?.newCommits).toEqual([{ sha, subject: 'Add a' }]);
    expect(first?.workspace).toMatchObject({ head: sha, uncommittedFiles: [], remote: { remote: 'origin', sha } });
    // Test output is not copied into the handoff.
    expect(readFileSync(result.contextFile, 'utf8')).not.toMatch(/# pass|duration_ms/);
  });

  it("gives the next attempt the handoff: summary fields, context.json's path, the check instruction", async () => {
    const claude = bench.scenario('claude', { model: 'claude-test-model', steps: [...FIRST_HALF, { end: 'quota' }] });
    const codex = bench.scenario('codex', { steps: [...FIRST_HALF, ...SECOND_HALF, { end: 'complete' }] });
    const task = bench.task({
      harness: { ...simulated('claude-code', claude), model: 'claude-test-model' },
      fallbacks: [simulated('codex', codex)],
    });

    const result = await bench.run(task);
    const started = events(result.id).filter((r) => r.type === 'attempt.started');
    const firstPrompt = started[0]?.type === 'attempt.started' ? started[0].data.prompt : '';
    const prompt = started[1]?.type === 'attempt.started' ? started[1].data.prompt : '';

    expect(firstPrompt).toBe('Do the work.');
    expect(prompt.startsWith('Do the work.\n')).toBe(true);
    expect(prompt).toContain('Attempt 1 — claude-code (model claude-test-model) — ended quota_exhausted');
    expect(prompt).toContain("You've hit your");
    expect(prompt).toContain('Last recorded operation: push to origin');
    expect(prompt).toContain(
      "Last message (claude-code's own words, not checked by HarmFlow): a is committed and pushed; b is next.",
    );
    expect(prompt).toContain('"Write a": claude-code reported it completed. HarmFlow saw: files src/a.js; commits');
    expect(prompt).toContain(`HarmFlow context file: ${result.contextFile}`);
    expect(prompt).toContain(`gh pr list --head ${result.branch}`);
    expect(prompt).toMatch(/Before you commit, push or open a pull request, check what was already done/);
  });
});

describe('no switch', () => {
  it('with maxSwitches: 0 the quota-exhausted attempt ends the execution', async () => {
    const claude = bench.scenario('claude', { steps: [{ say: 'hi' }, { end: 'quota' }] });
    const codex = bench.scenario('codex', { steps: [{ end: 'complete' }] });
    const task = bench.task({
      harness: simulated('claude-code', claude),
      fallbacks: [simulated('codex', codex)],
      maxSwitches: 0,
    });

    const result = await bench.run(task);

    expect(result.state).toBe('failed');
    expect(result.attempts.map((a) => a.outcome)).toEqual(['quota_exhausted']);
    expect(events(result.id).some((r) => r.type === 'failover')).toBe(false);
    expect(existsSync(bench.home.endedMarker(result.id))).toBe(true);
  });

  it('a transient rate limit does not switch unless failoverOn lists it', async () => {
    const claude = bench.scenario('claude', { steps: [{ end: 'rate_limit' }] });
    const codex = bench.scenario('codex', { steps: [{ end: 'complete' }] });
    const chain = { harness: simulated('claude-code', claude), fallbacks: [simulated('codex', codex)] };

    const plain = await bench.run(bench.task(chain));
    expect(plain.state).toBe('failed');
    expect(plain.attempts.map((a) => a.outcome)).toEqual(['rate_limited']);

    const listed = await bench.run(bench.task({ ...chain, failoverOn: ['rate_limited'] }));
    expect(listed.state).toBe('succeeded');
    expect(listed.attempts.map((a) => a.outcome)).toEqual(['rate_limited', 'completed']);
  });
});

describe('the deadline', () => {
  it('ends a hang in the second attempt at the execution deadline, not a fresh one', async () => {
    const claude = bench.scenario('claude', { steps: [{ run: 'sleep 1.5' }, { end: 'quota' }] });
    const codex = bench.scenario('codex', { steps: [{ end: { hang: { ignoreInterrupt: true, child: true } } }] });
    const task = bench.task({
      harness: simulated('claude-code', claude),
      fallbacks: [simulated('codex', codex)],
      timeout: '4s',
    });
    const pids: number[] = [];

    const started = Date.now();
    const result = await bench.run(task, { interruptBudgetMs: 500, onAttemptSpawned: (_n, pid) => pids.push(pid) });
    const elapsed = Date.now() - started;

    expect(result.state).toBe('timed_out');
    expect(result.attempts.map((a) => a.outcome)).toEqual(['quota_exhausted', 'timed_out']);
    // 4 s deadline + 0.5 s interrupt budget, plus set-up; a fresh 4 s for attempt 2 would exceed 5.5 s.
    expect(elapsed).toBeGreaterThanOrEqual(4_000);
    expect(elapsed).toBeLessThan(5_500 + 1_000);
    const second = result.attempts[1];
    const secondMs = Date.parse(second?.endedAt ?? '') - Date.parse(second?.startedAt ?? '');
    expect(secondMs).toBeLessThan(4_000);
    // The hung harness ignored SIGTERM and had a child: nothing of its process group is left.
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(groupAlive(pid)).toBe(false);
  });
});
