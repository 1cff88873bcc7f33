/**
 * Quota-aware scheduling with the REAL Claude Code and Codex CLIs (through the loopback model-API
 * simulator), run by the real engine with a clock moved by hand: Claude Code on a subscription runs
 * out and says when it resets; the registry keeps that reset; the next execution skips it and starts
 * on Codex; once the clock passes the reset, Claude Code is tried first again. A chain of Claude Code
 * alone that may wait for the reset waits (the execution `waiting`), then carries on as a new attempt
 * on Claude Code, with the handoff. Runs when HARMFLOW_HARNESS_BIN_DIRS lists the CLIs.
 */
import { describe, expect, it } from 'vitest';
import type { HarnessName } from '../../src/core/outcome.js';
import { readEvents } from '../../src/events/log.js';
import type { EventRecord } from '../../src/events/schema.js';
import type { EngineOptions } from '../../src/execution/engine.js';
import { GIT_IDENTITY } from '../execution/fixture.js';
import { HandClock } from '../execution/hand-clock.js';
import { REAL_PATH, realCliLab, realHarnessesAvailable, realLink } from './real-harnesses.js';

const enabled = realHarnessesAvailable(['claude-code', 'codex']);

/** How far ahead the simulator puts a subscription's reset (anthropic.ts): 2 hours. */
const SUBSCRIPTION_RESET_MS = 2 * 60 * 60 * 1000;

/** Up to three real CLI runs of a few seconds each. */
const TEST_TIMEOUT_MS = 120_000;

const lab = realCliLab(enabled, () => ({
  'skip-claude': [{ quota: true }, 'Claude again, after the reset.'],
  'skip-codex': ['Done on codex.'],
  'wait-claude': [{ quota: true }, 'Done after the reset.'],
}));

/** A chain link running the real CLI on `script` (real-harnesses.ts). */
function link(harness: HarnessName, script: string): Record<string, unknown> {
  return realLink(lab.api.url, harness, script);
}

function run(fields: Record<string, unknown>, options: Partial<EngineOptions>) {
  return lab.bench.run(lab.bench.task({ timeout: '3m', ...fields }), {
    hostEnv: { ...process.env, ...GIT_IDENTITY, PATH: REAL_PATH }, // realLink passes the git identity through
    ...options,
  });
}

function recordsOf<T extends EventRecord['type']>(id: string, type: T): Extract<EventRecord, { type: T }>[] {
  return readEvents(lab.bench.home.eventsFile(id)).filter(
    (record): record is Extract<EventRecord, { type: T }> => record.type === type,
  );
}

function requestsOf(script: string) {
  return lab.api.requests.filter((request) => request.script === script);
}

/**
 * The reset claude-code gave in execution `id`: its `rate_limit_event` (rejected, five_hour), two hours
 * after the simulator refused `script`'s first reply (within 2 s: the event gives whole epoch seconds).
 */
function claudeReset(id: string, script: string): string {
  const rejected = recordsOf(id, 'rate_limit').find((record) => record.data.status === 'rejected');
  expect(rejected?.data).toMatchObject({ window: 'five_hour', resetsAt: expect.any(String) });
  const resetsAt = rejected?.data.resetsAt ?? '';
  const refused = requestsOf(script).find((request) => request.reply === 0);
  expect(refused?.status).toBe(429);
  expect(Math.abs(Date.parse(resetsAt) - Date.parse(refused?.at ?? '') - SUBSCRIPTION_RESET_MS)).toBeLessThan(2_000);
  return resetsAt;
}

/** What the registry holds for the real claude-code: exhausted, until `resetsAt`. */
function exhaustedUntil(resetsAt: string) {
  return { harness: 'claude-code', account: '', state: 'exhausted', source: 'quota.exhausted', resetsAt };
}

describe.skipIf(!enabled)('quota-aware scheduling with the real claude-code and codex CLIs', () => {
  it(
    'claude-code out of quota on a subscription is skipped for codex until its reset passes',
    async () => {
      const clock = new HandClock();
      const claude = link('claude-code', 'skip-claude');
      const first = await run({ harness: claude }, { clock });
      expect(first.state).toBe('failed');
      expect(first.attempts.map((a) => [a.harness, a.outcome])).toEqual([['claude-code', 'quota_exhausted']]);
      expect(first.attempts[0]?.message).toMatch(/^You've hit your 5-hour limit · resets /);
      const resetsAt = claudeReset(first.id, 'skip-claude');
      expect(first.attempts[0]?.resetsAt).toBe(resetsAt);
      expect(await lab.bench.store.listQuotas()).toMatchObject([exhaustedUntil(resetsAt)]);

      // The next execution starts on codex: claude-code is out for two more hours, and is not asked.
      const chain = { harness: claude, fallbacks: [link('codex', 'skip-codex')] };
      const second = await run(chain, { clock });
      expect(second.state).toBe('succeeded');
      expect(second.attempts.map((a) => [a.harness, a.outcome])).toEqual([['codex', 'completed']]);
      const skips = recordsOf(second.id, 'harness.skipped');
      expect(
        skips.map((skip) => [skip.data.harness, skip.data.until && Date.parse(skip.data.until), skip.data.known]),
      ).toEqual([['claude-code', Date.parse(resetsAt), true]]);
      expect(requestsOf('skip-claude').filter((request) => request.reply !== undefined)).toHaveLength(1);
      expect(requestsOf('skip-codex').length).toBeGreaterThan(0);

      // Once the clock passes the reset, claude-code is tried first again, and its turn completes.
      clock.time = Date.parse(resetsAt) + 1;
      const third = await run(chain, { clock });
      expect(third.state).toBe('succeeded');
      expect(third.attempts.map((a) => [a.harness, a.outcome])).toEqual([['claude-code', 'completed']]);
      expect(recordsOf(third.id, 'harness.skipped')).toEqual([]);
      expect(requestsOf('skip-claude').find((request) => request.reply === 1)?.status).toBe(200);
      const quotas = await lab.bench.store.listQuotas();
      expect(quotas.map((q) => [q.harness, q.account, q.state])).toEqual(
        expect.arrayContaining([
          ['claude-code', '', 'ok'],
          ['codex', '', 'ok'],
        ]),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a chain of claude-code alone waits for its reset, then carries the execution on with the handoff',
    async () => {
      const clock = new HandClock();
      const start = clock.time;
      const states: string[] = [];
      let registry: unknown[] = [];
      let execution = '';
      clock.onSleep = async () => {
        states.push((await lab.bench.store.getExecution(execution))?.state ?? '?');
        registry = await lab.bench.store.listQuotas();
      };
      const result = await run(
        { harness: link('claude-code', 'wait-claude'), waitForReset: true, timeout: '3h' },
        {
          clock,
          onRecord: (record) => {
            execution = record.execution;
          },
        },
      );
      expect(result.state).toBe('succeeded');
      expect(result.attempts.map((a) => [a.number, a.harness, a.outcome])).toEqual([
        [1, 'claude-code', 'quota_exhausted'],
        [2, 'claude-code', 'completed'],
      ]);
      const resetsAt = claudeReset(result.id, 'wait-claude');
      expect(result.attempts[0]?.resetsAt).toBe(resetsAt);

      // It waited once, for claude-code's reset (two hours, plus up to 10 s of jitter), as `waiting`.
      const [waiting] = recordsOf(result.id, 'quota.waiting');
      expect(waiting?.data).toMatchObject({ harness: 'claude-code', known: true });
      expect(Date.parse(waiting?.data.until ?? '')).toBe(Date.parse(resetsAt));
      expect(states).toEqual(['waiting']);
      expect(registry).toMatchObject([exhaustedUntil(resetsAt)]);
      expect(clock.slept).toHaveLength(1);
      expect(clock.slept[0]).toBe(waiting?.data.waitMs);
      expect(clock.slept[0]).toBeGreaterThanOrEqual(Date.parse(resetsAt) - start + 1_000);
      expect(clock.slept[0]).toBeLessThanOrEqual(Date.parse(resetsAt) - start + 10_000);
      expect(clock.time).toBeGreaterThan(Date.parse(resetsAt));
      const types = readEvents(lab.bench.home.eventsFile(result.id)).map((record) => record.type);
      expect(types.indexOf('quota.waiting')).toBeLessThan(types.indexOf('wait.ended'));
      expect(types.indexOf('wait.ended')).toBeLessThan(types.lastIndexOf('attempt.started'));
      expect(recordsOf(result.id, 'wait.ended')[0]?.data).toEqual({ harness: 'claude-code', reason: 'reset' });

      // The second attempt got the handoff, and the real CLI sent it to the model.
      const second = recordsOf(result.id, 'attempt.started')[1];
      expect(second).toMatchObject({ attempt: 2, harness: 'claude-code', data: { handoff: true } });
      const answered = requestsOf('wait-claude').find((request) => request.reply === 1);
      expect(answered?.status).toBe(200);
      expect(answered?.lastUserText).toContain(`HarmFlow context file: ${result.contextFile}`);
      expect(answered?.lastUserText).toContain('Attempt 1 — claude-code');
      expect((await lab.bench.store.getExecution(result.id))?.state).toBe('succeeded');
    },
    TEST_TIMEOUT_MS,
  );
});
