/**
 * Every outcome of an attempt is reachable through the engine: each simulated ending, a real
 * (non-simulated) harness found on PATH, cancellation and a switch asked by hand.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/core/outcome.js';
import { readEvents } from '../../src/events/log.js';
import { ExecutionControl } from '../../src/execution/control.js';
import { type Bench, GIT_IDENTITY, git, makeBench, simulated } from './fixture.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

let bench: Bench;
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  await bench.cleanup();
});

describe('each simulated ending classifies through the real adapter', () => {
  const cases: [string, 'claude-code' | 'codex', unknown, Outcome][] = [
    ['completes', 'claude-code', 'complete', 'completed'],
    ['completes', 'codex', 'complete', 'completed'],
    ['Claude Code credit balance', 'claude-code', { quota: 'credit' }, 'quota_exhausted'],
    ['Codex usage limit', 'codex', { quota: 'usage_limit' }, 'quota_exhausted'],
    ['is rate limited', 'codex', 'rate_limit', 'rate_limited'],
    ['is overloaded', 'claude-code', 'overloaded', 'overloaded'],
    ['is overloaded', 'codex', 'overloaded', 'overloaded'],
    ['fails authentication', 'claude-code', 'auth', 'auth_failed'],
    ['fails authentication', 'codex', 'auth', 'auth_failed'],
    ['crashes', 'claude-code', 'crash', 'crashed'],
    ['crashes', 'codex', 'crash', 'crashed'],
  ];
  for (const [what, harness, end, outcome] of cases) {
    it(`${harness} ${what} → ${outcome}`, async () => {
      const scenario = bench.scenario(harness, { steps: [{ say: 'working' }, { end }] });
      const result = await bench.run(bench.task({ harness: simulated(harness, scenario) }));
      expect(result.attempts.map((a) => a.outcome)).toEqual([outcome]);
      expect(result.state).toBe(outcome === 'completed' ? 'succeeded' : 'failed');
    });
  }

  it('keeps output lines that do not parse as raw events and still classifies the run', async () => {
    const scenario = bench.scenario('claude', { steps: [{ garbage: 3 }, { say: 'still here' }, { end: 'complete' }] });
    const result = await bench.run(bench.task({ harness: simulated('claude-code', scenario) }));
    expect(result.state).toBe('succeeded');
    const raw = readEvents(bench.home.eventsFile(result.id)).filter((r) => r.type === 'raw');
    expect(raw).toHaveLength(3);
    for (const record of raw) expect(record).toMatchObject({ harness: 'claude-code', attempt: 1, source: 'harness' });
  });
});

describe('a real harness on PATH', () => {
  it('runs the installed CLI (here a stand-in printing recorded lines) and classifies max turns as failed', async () => {
    const bin = join(bench.dir, 'bin');
    mkdirSync(bin);
    const claude = join(bin, 'claude');
    writeFileSync(claude, `#!/bin/sh\ncat '${join(FIXTURES, 'claude-code', 'max-turns.jsonl')}'\nexit 1\n`);
    chmodSync(claude, 0o755);
    const result = await bench.run(bench.task({ harness: 'claude-code' }), {
      hostEnv: { PATH: `${bin}:${process.env.PATH}`, ...GIT_IDENTITY },
    });
    expect(result.attempts.map((a) => [a.outcome, a.simulated])).toEqual([['failed', false]]);
    expect(result.attempts[0]?.message).toContain('Reached maximum number of turns');
    // The raw stdout is kept as the attempt's log, beside the gates file, the hook settings its hooks
    // read and the file of what the gates saw (made before the sandboxed harness starts).
    expect(readdirSync(bench.home.attemptDir(result.id, 1)).sort()).toEqual([
      'claude-code-hooks.json',
      'gate-seen.jsonl',
      'gates.json',
      'home',
      'pgid',
      'stderr.log',
      'stdout.log',
    ]);
  });
});

describe('ended from outside', () => {
  it('cancels: the running harness is interrupted and the execution ends canceled', async () => {
    const scenario = bench.scenario('claude', { steps: [{ end: { hang: { child: true } } }] });
    const controller = new AbortController();
    const result = await bench.run(bench.task({ harness: simulated('claude-code', scenario) }), {
      signal: controller.signal,
      onAttemptSpawned: () => setTimeout(() => controller.abort(), 300),
    });
    expect(result.state).toBe('canceled');
    expect(result.attempts.map((a) => a.outcome)).toEqual(['canceled']);
    expect(existsSync(bench.home.endedMarker(result.id))).toBe(true);
  });

  it('switches by hand: the attempt ends switched and the next harness continues with the handoff', async () => {
    const claude = bench.scenario('claude', {
      steps: [{ write: { path: 'a.txt', content: 'a\n' } }, { commit: 'Add a' }, { end: 'hang' }],
    });
    const codex = bench.scenario('codex', { steps: [{ commit: 'Add a' }, { end: 'complete' }] });
    const control = new ExecutionControl();
    const task = bench.task({
      harness: simulated('claude-code', claude),
      fallbacks: [simulated('codex', codex)],
      maxSwitches: 0,
    });
    const result = await bench.run(task, {
      control,
      onRecord: (record) => {
        if (record.type === 'operation' && record.data.kind === 'commit')
          control.requestSwitch({ harness: 'codex', by: 'test' });
      },
    });
    expect(result.attempts.map((a) => [a.harness, a.outcome])).toEqual([
      ['claude-code', 'switched'],
      ['codex', 'completed'],
    ]);
    expect(result.state).toBe('succeeded');
    // The handoff kept codex from committing the same work again.
    expect(git(result.worktree, 'log', '--format=%s', `${result.baseSha}..HEAD`)).toBe('Add a');
  });
});
