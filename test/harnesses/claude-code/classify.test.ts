import { describe, expect, it } from 'vitest';
import type { HarnessEvent } from '../../../src/events/schema.js';
import { classifyClaude } from '../../../src/harnesses/claude-code/classify.js';
import { claudeCodeAdapter } from '../../../src/harnesses/claude-code/index.js';
import { fixtureLines, parseLines, replay } from '../replay.js';

/** Noon UTC on 29 Nov 2026: dates a reset a limit text gives as wall time. */
const NOW = Date.parse('2026-11-29T12:00:00.000Z');

const classify = (events: HarnessEvent[], exitCode: number | null, signal: string | null = null, stderrTail = '') =>
  classifyClaude({ events, exitCode, signal, stderrTail, timeZone: 'UTC' }, NOW);

const errorResult = (message: string, apiErrorStatus?: number): HarnessEvent => ({
  type: 'result',
  data: { ok: false, message, ...(apiErrorStatus !== undefined && { apiErrorStatus }), numTurns: 1 },
});

describe('claude-code classification of recorded runs', () => {
  const cases = [
    {
      fixture: 'success-tool-use',
      exitCode: 0,
      expected: { outcome: 'completed', message: 'MOCK_FINAL: the tool ran and the file was written.' },
    },
    {
      fixture: 'permission-denied',
      exitCode: 0,
      expected: { outcome: 'completed', message: 'MOCK_FINAL: the tool ran and the file was written.' },
    },
    {
      fixture: 'allowed-warning',
      exitCode: 0,
      expected: { outcome: 'completed', message: 'MOCK_TEXT: hello from the mock provider.' },
    },
    {
      fixture: 'rate-limit-429',
      exitCode: 1,
      expected: {
        outcome: 'rate_limited',
        message:
          'API Error: Request rejected (429) · This request would exceed the rate limit for your organization (mock) of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.',
      },
    },
    {
      fixture: 'overloaded-529',
      exitCode: 1,
      expected: {
        outcome: 'overloaded',
        message:
          'API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:18791).',
      },
    },
    {
      fixture: 'auth-401',
      exitCode: 1,
      expected: { outcome: 'auth_failed', message: 'Invalid API key · Fix external API key' },
    },
    {
      fixture: 'credit-balance',
      exitCode: 1,
      expected: { outcome: 'quota_exhausted', message: 'Credit balance is too low' },
    },
    {
      fixture: 'subscription-5h',
      exitCode: 1,
      expected: {
        outcome: 'quota_exhausted',
        message: "You've hit your 5-hour limit · resets 9:40am (UTC)",
        resetsAt: '2026-11-29T09:40:54.000Z',
      },
    },
    {
      fixture: 'weekly-limit',
      exitCode: 1,
      expected: {
        outcome: 'quota_exhausted',
        message: "You've hit your weekly limit · resets Nov 30, 9:41am (UTC)",
        resetsAt: '2026-11-30T09:41:54.000Z',
      },
    },
    {
      fixture: 'max-turns',
      exitCode: 1,
      expected: { outcome: 'failed', message: 'Reached maximum number of turns (1)' },
    },
  ] as const;

  for (const { fixture, exitCode, expected } of cases) {
    it(`${fixture} (exit ${exitCode}) → ${expected.outcome}`, () => {
      expect(replay(claudeCodeAdapter, fixture, { exitCode }).classification).toEqual(expected);
    });
  }
});

describe('claude-code classification without a result line', () => {
  it('fails with the root refusal, which prints no JSON', () => {
    const stderrTail = '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n';
    expect(classify([], 1, null, stderrTail)).toEqual({
      outcome: 'failed',
      message: '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons',
    });
  });

  it('fails on a command-line usage error', () => {
    expect(classify([], 1, null, "error: unknown option '--bogus'\n")).toEqual({
      outcome: 'failed',
      message: "error: unknown option '--bogus'",
    });
  });

  it('calls a process killed mid-turn crashed', () => {
    const events = parseLines(claudeCodeAdapter, fixtureLines('claude-code', 'success-tool-use').slice(0, 3));
    expect(classify(events, null, 'SIGKILL')).toEqual({
      outcome: 'crashed',
      message: 'killed by SIGKILL before a final result',
    });
  });

  it('calls exit 0 without a result crashed, naming the last stderr line', () => {
    expect(classify([], 0, null, 'starting\nsegfault in worker\n')).toEqual({
      outcome: 'crashed',
      message: 'exited with code 0 before a final result: segfault in worker',
    });
  });

  it('calls a successful result followed by a non-zero exit crashed', () => {
    expect(classify([{ type: 'result', data: { ok: true, message: 'done' } }], 137)).toEqual({
      outcome: 'crashed',
      message: 'exited with code 137 after a successful result',
    });
  });
});

describe('claude-code classification rules', () => {
  it('treats a 429 after a rejected unified window as quota, whatever the wording', () => {
    const events: HarnessEvent[] = [
      { type: 'rate_limit', data: { status: 'rejected', resetsAt: '2026-11-29T09:40:54.000Z', window: 'five_hour' } },
      errorResult('Some new limit wording', 429),
    ];
    expect(classify(events, 1)).toEqual({
      outcome: 'quota_exhausted',
      message: 'Some new limit wording',
      resetsAt: '2026-11-29T09:40:54.000Z',
    });
  });

  it('keeps a warning window from turning a 429 into quota', () => {
    const events: HarnessEvent[] = [
      { type: 'rate_limit', data: { status: 'allowed_warning', resetsAt: '2026-11-29T09:40:54.000Z' } },
      errorResult('API Error: Request rejected (429) · Error', 429),
    ];
    expect(classify(events, 1).outcome).toBe('rate_limited');
  });

  const byText = [
    ['Your org is out of usage · add funds to continue', 'quota_exhausted'],
    ["You're out of usage credits. Switch to another model to continue.", 'quota_exhausted'],
    ["You've hit your monthly spend limit. See Usage in Settings", 'quota_exhausted'],
    ['You’ve hit your Opus limit · resets 3pm (UTC)', 'quota_exhausted', '2026-11-29T15:00:00.000Z'],
    ['Your credit balance is too low to access the Anthropic API.', 'quota_exhausted'],
    ['OAuth token has expired · Please run /login', 'auth_failed'],
    ['API Error: 529 Overloaded. This is a server-side issue', 'overloaded'],
    ['API Error: Request rejected (429) · Error', 'rate_limited'],
    ['Server is temporarily limiting requests (not your usage limit)', 'rate_limited'],
    ['API Error: 400 invalid_request_error · prompt is too long', 'failed'],
  ] as const;
  for (const [text, outcome, resetsAt] of byText) {
    it(`reads "${text}" without a status as ${outcome}`, () => {
      expect(classify([errorResult(text)], 1)).toEqual({ outcome, message: text, ...(resetsAt && { resetsAt }) });
    });
  }

  it('lets the HTTP status decide over the wording', () => {
    expect(classify([errorResult('API Error: 503 upstream connect error', 503)], 1).outcome).toBe('overloaded');
    expect(classify([errorResult('overloaded-ish words', 429)], 1).outcome).toBe('rate_limited');
    expect(classify([errorResult('whatever', 401)], 1).outcome).toBe('auth_failed');
  });

  it('falls back to the synthetic error text when the result has no message', () => {
    const events: HarnessEvent[] = [
      { type: 'harness.error', data: { message: 'Credit balance is too low', fatal: false } },
      { type: 'result', data: { ok: false, apiErrorStatus: 400 } },
    ];
    expect(classify(events, 1)).toEqual({ outcome: 'quota_exhausted', message: 'Credit balance is too low' });
  });
});
