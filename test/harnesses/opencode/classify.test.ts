import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { HarnessEvent } from '../../../src/events/schema.js';
import { classifyOpencode } from '../../../src/harnesses/opencode/classify.js';
import { opencodeAdapter } from '../../../src/harnesses/opencode/index.js';
import { replay } from '../replay.js';

/** 12:00 UTC on 29 Nov 2026, the recorded runs' day. */
const NOW = Date.parse('2026-11-29T12:00:00.000Z');

const stderrFixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../fixtures/opencode/${name}.stderr.log`, import.meta.url)), 'utf8');

const classify = (events: HarnessEvent[], exitCode: number | null, signal: string | null = null, stderrTail = '') =>
  classifyOpencode({ events, exitCode, signal, stderrTail, timeZone: 'UTC' }, NOW);

const failed = (message: string, apiErrorStatus?: number): HarnessEvent[] => [
  { type: 'harness.error', data: { message, fatal: true } },
  { type: 'result', data: { ok: false, message, ...(apiErrorStatus !== undefined && { apiErrorStatus }) } },
];
const started: HarnessEvent = { type: 'session.started', data: { sessionId: 'ses_a' } };

describe('opencode classification of recorded runs', () => {
  const cases = [
    { fixture: 'success', exitCode: 0, expected: { outcome: 'completed', message: 'Done: tool finished.' } },
    { fixture: 'bash-exit-code', exitCode: 0, expected: { outcome: 'completed', message: 'Done: badbash finished.' } },
    // The run goes on after an auto-rejected permission and exits 0 (note §3.1).
    { fixture: 'permission-rejected', exitCode: 0, expected: { outcome: 'completed' } },
    {
      fixture: 'insufficient-quota',
      exitCode: 1,
      expected: {
        outcome: 'quota_exhausted',
        message:
          'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors. (insufficient_quota)',
      },
    },
    {
      fixture: 'free-usage',
      exitCode: 1,
      expected: {
        outcome: 'quota_exhausted',
        message: 'Rate limit exceeded. Please try again later. (FreeUsageLimitError)',
        resetsAt: '2026-11-29T11:50:32.778Z',
      },
    },
    {
      fixture: 'go-usage-limit',
      exitCode: 1,
      expected: {
        outcome: 'quota_exhausted',
        message:
          '5-hour usage limit reached. Resets in 3hr 12min. To continue using this model now, enable usage from your available balance: https://opencode.ai/workspace/wrk_mock/go (GoUsageLimitError)',
        resetsAt: '2026-11-29T11:46:43.022Z',
      },
    },
    {
      fixture: 'rate-limit',
      exitCode: 1,
      expected: {
        outcome: 'rate_limited',
        message:
          'Rate limit reached for mock-model in organization org-mock on tokens per min (TPM): Limit 30000, Used 30000, Requested 1200. Please try again in 2s.',
      },
    },
    {
      fixture: 'server-error-500',
      exitCode: 1,
      expected: {
        outcome: 'overloaded',
        message: 'The server had an error while processing your request. Sorry about that!',
      },
    },
    {
      fixture: 'auth-401',
      exitCode: 1,
      expected: {
        outcome: 'auth_failed',
        message:
          'Incorrect API key provided: dummy. You can find your API key at https://platform.openai.com/account/api-keys.',
      },
    },
  ] as const;

  for (const { fixture, exitCode, expected } of cases) {
    it(`${fixture} (exit ${exitCode}) → ${expected.outcome}`, () => {
      const { classification } = replay(opencodeAdapter, fixture, { exitCode }, (input) =>
        classifyOpencode(input, NOW),
      );
      expect(classification).toEqual(expected);
    });
  }

  it('names the cause OpenCode logged for an unexpected error', () => {
    const stderrTail = stderrFixture('unknown-model');
    const { classification } = replay(opencodeAdapter, 'unknown-model', { exitCode: 1, stderrTail });
    expect(classification).toEqual({
      outcome: 'failed',
      message:
        'Unexpected server error. Check server logs for details. (ProviderModelNotFoundError: Model not found: mock/nope.)',
    });
  });

  it('is what the adapter itself answers, apart from the clock', () => {
    const { classification } = replay(opencodeAdapter, 'rate-limit', { exitCode: 1 });
    expect(classification.outcome).toBe('rate_limited');
  });
});

describe('opencode classification without an error line', () => {
  it('calls exit 0 with no output at all crashed (a run with --attach after an error, note §3.3)', () => {
    expect(classify([], 0, null, stderrFixture('success'))).toEqual({
      outcome: 'crashed',
      message: 'exited with code 0 before a final result',
    });
  });

  it('calls a run killed during its retries crashed, naming the last line that is not progress', () => {
    const stderrTail = stderrFixture('insufficient-quota').split('\n').slice(0, 22).join('\n');
    const classification = classify([], null, 'SIGTERM', stderrTail);
    expect(classification.outcome).toBe('crashed');
    expect(classification.message).toMatch(/^killed by SIGTERM before a final result: timestamp=\S+ level=ERROR /);
  });

  it('calls a non-zero exit after a session started crashed', () => {
    expect(classify([started], 137)).toEqual({
      outcome: 'crashed',
      message: 'exited with code 137 before a final result',
    });
  });

  it('fails on a refusal OpenCode colours on stderr: unknown session, missing message', () => {
    expect(classify([], 1, null, '\x1b[91m\x1b[1mError: \x1b[0mSession not found\n')).toEqual({
      outcome: 'failed',
      message: 'Error: Session not found',
    });
    expect(classify([], 1, null, '\x1b[91m\x1b[1mError: \x1b[0mYou must provide a message or a command\n')).toEqual({
      outcome: 'failed',
      message: 'Error: You must provide a message or a command',
    });
  });

  it('fails when OpenCode prints its usage for a bad option', () => {
    const usage =
      'opencode run [message..]\n\nrun opencode with a message\n\nPositionals:\n  message  message to send\n';
    expect(classify([], 1, null, usage)).toEqual({
      outcome: 'failed',
      message: 'OpenCode printed its usage: the command line has an unknown option or value',
    });
  });

  it('decides by the error line even when the exit code is 0', () => {
    expect(classify([started, ...failed('Incorrect API key provided: x', 401)], 0).outcome).toBe('auth_failed');
  });
});

describe('opencode classification rules', () => {
  const byMessage = [
    ['Quota exceeded. Check your plan and billing details.', undefined, 'quota_exhausted'],
    ['Free usage exceeded, subscribe to Go', 429, 'quota_exhausted'],
    ['Subscription quota exceeded. Retry in 1 day.', 429, 'quota_exhausted'],
    ['Insufficient balance. Manage your billing here: https://opencode.ai/workspace/w/billing', 401, 'quota_exhausted'],
    [
      'Your workspace has reached its monthly spending limit of $50. Manage your limits here: x',
      401,
      'quota_exhausted',
    ],
    ['Invalid API key.', 401, 'auth_failed'],
    ['Forbidden', 403, 'auth_failed'],
    ['Incorrect API key provided: sk-…', undefined, 'auth_failed'],
    ['Bad gateway', 502, 'overloaded'],
    ['Overloaded', 529, 'overloaded'],
    ['Provider is overloaded', undefined, 'overloaded'],
    ['Rate limit exceeded. Please try again later.', 429, 'rate_limited'],
    ['Too Many Requests', undefined, 'rate_limited'],
    ['This model does not support tools', 400, 'failed'],
  ] as const;
  for (const [message, status, outcome] of byMessage) {
    it(`reads "${message.slice(0, 50)}" (${status ?? 'no status'}) as ${outcome}`, () => {
      const classification = classify([started, ...failed(message, status)], 1);
      expect(classification.outcome).toBe(outcome);
      expect(classification.message).toBe(message);
    });
  }

  it('dates a plan limit from its words when no retry-after came', () => {
    const message = 'Weekly usage limit reached. It will reset in 2 days 3 hours. To continue using this model now, …';
    expect(classify([started, ...failed(message, 429)], 1)).toEqual({
      outcome: 'quota_exhausted',
      message,
      resetsAt: '2026-12-01T15:00:00.000Z',
    });
  });

  it('takes a rejected limit as quota exhaustion whatever the words and status', () => {
    const events: HarnessEvent[] = [
      started,
      { type: 'rate_limit', data: { status: 'rejected', resetsAt: '2026-11-30T00:00:00.000Z' } },
      ...failed('Rate limit exceeded. Please try again later. (FreeUsageLimitError)', 429),
    ];
    expect(classify(events, 1)).toEqual({
      outcome: 'quota_exhausted',
      message: 'Rate limit exceeded. Please try again later. (FreeUsageLimitError)',
      resetsAt: '2026-11-30T00:00:00.000Z',
    });
  });
});
