/**
 * Switching before the limit with the REAL Claude Code and Codex CLIs (through the loopback model-API
 * simulator), in the session service: Claude Code on a subscription gets an answer whose unified
 * rate-limit headers say the five-hour window is 96% used (`allowed_warning`) and prints its
 * `rate_limit_event`; with `switchAtUtilization: 0.95` and a follow-up queued, its attempt ends
 * `switched` at the turn boundary and the follow-up runs on Codex with the handoff; the registry
 * keeps Claude Code's warning. Runs when HARMFLOW_HARNESS_BIN_DIRS lists the CLIs.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HarnessName } from '../../src/core/outcome.js';
import type { EventRecord } from '../../src/events/schema.js';
import { type ModelApi, startModelApi } from '../../src/simulators/model-api/server.js';
import { GIT_IDENTITY } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench } from '../service/bench.js';
import { REAL_PATH, realHarnessesAvailable, realLink } from './real-harnesses.js';

const enabled = realHarnessesAvailable(['claude-code', 'codex']);

/** How far ahead the simulator puts a subscription's reset (anthropic.ts): 2 hours. */
const SUBSCRIPTION_RESET_MS = 2 * 60 * 60 * 1000;

/** Two real CLI runs of a few seconds each. */
const TEST_TIMEOUT_MS = 120_000;

const FOLLOW_UP = 'Now also add a test for it.';

let api: ModelApi;
let bench: ServiceBench | undefined;
beforeAll(async () => {
  if (enabled) {
    api = await startModelApi({
      scripts: {
        'early-claude': [{ limitWarning: { text: 'First part done.', utilization: 0.96 } }],
        'early-codex': ['Follow-up done on codex.'],
      },
    });
  }
});
afterAll(async () => {
  await api?.close();
});
afterEach(async () => {
  await bench?.cleanup();
  bench = undefined;
});

/** A chain link running the real CLI on `script` (real-harnesses.ts). */
function link(harness: HarnessName, script: string): Record<string, unknown> {
  return realLink(api.url, harness, script);
}

function requestsOf(script: string) {
  return api.requests.filter((request) => request.script === script);
}

describe.skipIf(!enabled)('switching before the limit with the real claude-code and codex CLIs', () => {
  it(
    'claude-code reporting 96% of its window used is left at the turn boundary; the follow-up runs on codex',
    async () => {
      const service = makeServiceBench({ hostEnv: { ...process.env, ...GIT_IDENTITY, PATH: REAL_PATH } });
      bench = service;
      const recordsOf = <T extends EventRecord['type']>(id: string, type: T) =>
        service.events(id).filter((record): record is Extract<EventRecord, { type: T }> => record.type === type);
      const task = service.task({
        harness: link('claude-code', 'early-claude'),
        fallbacks: [link('codex', 'early-codex')],
        switchAtUtilization: 0.95,
        timeout: '3m',
      });
      const execution = await service.registry.submit(task);
      await service.registry.send(execution.id, FOLLOW_UP);
      await service.registry.settled();

      expect((await service.store.getExecution(execution.id))?.state).toBe('succeeded');
      const ended = recordsOf(execution.id, 'attempt.ended');
      expect(ended.map((record) => [record.attempt, record.harness, record.data.outcome])).toEqual([
        [1, 'claude-code', 'switched'],
        [2, 'codex', 'completed'],
      ]);
      expect(ended[0]?.data.message).toBe(
        'claude-code reports 96% of its limit used (switchAtUtilization 0.95): switching before it runs out',
      );

      // What the real claude-code printed for the headers: the five-hour window, allowed_warning at 0.96.
      const warned = requestsOf('early-claude').find((request) => request.reply === 0);
      expect(warned).toMatchObject({ auth: 'bearer', served: 'limitWarning', status: 200 });
      const [rateLimit] = recordsOf(execution.id, 'rate_limit');
      expect(rateLimit?.data).toMatchObject({ status: 'allowed_warning', window: 'five_hour', utilization: 0.96 });
      const resetsAt = rateLimit?.data.resetsAt ?? '';
      expect(Math.abs(Date.parse(resetsAt) - Date.parse(warned?.at ?? '') - SUBSCRIPTION_RESET_MS)).toBeLessThan(2_000);

      expect(recordsOf(execution.id, 'failover').map((record) => record.data)).toEqual([
        {
          from: 'claude-code',
          to: 'codex',
          reason: 'switched',
          switchNumber: 1,
          maxSwitches: 1,
          toIndex: 1,
          utilization: 0.96,
          threshold: 0.95,
        },
      ]);
      const turns = recordsOf(execution.id, 'turn.started');
      expect(turns.map((record) => [record.data.turn, record.harness])).toEqual([
        ['t1', 'claude-code'],
        ['t2', 'codex'],
      ]);

      // The follow-up ran on codex as attempt 2 with the handoff, and the real CLI sent both to the model.
      const second = recordsOf(execution.id, 'attempt.started')[1];
      expect(second).toMatchObject({ attempt: 2, harness: 'codex', data: { handoff: true } });
      expect(second?.data.prompt).toContain(FOLLOW_UP);
      const codexRequests = requestsOf('early-codex').filter((request) => request.reply !== undefined);
      expect(codexRequests.length).toBeGreaterThan(0);
      expect(codexRequests[0]?.status).toBe(200);
      expect(codexRequests[0]?.lastUserText).toContain(FOLLOW_UP);
      expect(codexRequests[0]?.lastUserText).toContain('Attempt 1 — claude-code');
      expect(requestsOf('early-claude').filter((request) => request.reply !== undefined)).toHaveLength(1);

      const quotas = await service.store.listQuotas();
      expect(quotas.find((record) => record.harness === 'claude-code')).toMatchObject({
        state: 'warning',
        utilization: 0.96,
        source: 'rate_limit',
        resetsAt,
      });
      expect(Date.parse(resetsAt)).toBeGreaterThan(Date.now());
    },
    TEST_TIMEOUT_MS,
  );
});
