import { describe, expect, it } from 'vitest';
import type { HarnessEvent } from '../../../src/events/schema.js';
import { classifyCodex, parseTryAgainAt } from '../../../src/harnesses/codex/classify.js';
import { codexAdapter } from '../../../src/harnesses/codex/index.js';
import { fixtureLines, parseLines, replay } from '../replay.js';

/** The zone the Codex of these tests ran in (PST in November, -8), whatever the machine's zone. */
const ZONE = 'America/Los_Angeles';
/** 08:00 on 29 Nov 2026 in ZONE: before the fixture's 9:31 AM. */
const NOW = Date.parse('2026-11-29T08:00:00-08:00');

const failed = (message: string): HarnessEvent[] => [
  { type: 'harness.error', data: { message, fatal: true } },
  { type: 'result', data: { ok: false, message } },
];
const classify = (events: HarnessEvent[], exitCode: number | null, signal: string | null = null, stderrTail = '') =>
  classifyCodex({ events, exitCode, signal, stderrTail, timeZone: ZONE }, NOW);

describe('codex classification of recorded runs', () => {
  const cases = [
    {
      fixture: 'success',
      exitCode: 0,
      expected: { outcome: 'completed', message: 'MOCK_FINAL: the tool ran and the file was written.' },
    },
    {
      fixture: 'item-error-warning',
      exitCode: 0,
      expected: { outcome: 'completed', message: 'MOCK_TEXT: hello from the mock provider.' },
    },
    {
      fixture: 'insufficient-quota',
      exitCode: 1,
      expected: { outcome: 'quota_exhausted', message: 'Quota exceeded. Check your plan and billing details.' },
    },
    {
      fixture: 'usage-limit-plus',
      exitCode: 1,
      expected: {
        outcome: 'quota_exhausted',
        message:
          'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 9:31 AM.',
        resetsAt: '2026-11-29T17:31:00.000Z',
      },
    },
    {
      fixture: 'usage-not-included',
      exitCode: 1,
      expected: {
        outcome: 'quota_exhausted',
        message: 'To use Codex with your ChatGPT plan, upgrade to Plus: https://chatgpt.com/explore/plus.',
      },
    },
    {
      fixture: 'rate-limit',
      exitCode: 1,
      expected: {
        outcome: 'rate_limited',
        message: 'exceeded retry limit, last status: 429 Too Many Requests, request id: req_7f3a9c1e2b4d6f80',
      },
    },
    {
      fixture: 'rate-limit-stream',
      exitCode: 1,
      expected: {
        outcome: 'rate_limited',
        message:
          'rate limit exceeded: Rate limit reached for gpt-5 in organization org-mock on tokens per min (TPM): Limit 30000, Used 30000, Requested 1200. Please try again in 1.5s.',
      },
    },
    {
      fixture: 'overloaded-503',
      exitCode: 1,
      expected: { outcome: 'overloaded', message: 'Selected model is at capacity. Please try a different model.' },
    },
    {
      fixture: 'high-demand-500',
      exitCode: 1,
      expected: {
        outcome: 'overloaded',
        message: 'We’re currently experiencing high demand, which may cause temporary errors.',
      },
    },
  ] as const;

  for (const { fixture, exitCode, expected } of cases) {
    it(`${fixture} (exit ${exitCode}) → ${expected.outcome}`, () => {
      const { classification } = replay(codexAdapter, fixture, { exitCode, timeZone: ZONE }, (input) =>
        classifyCodex(input, NOW),
      );
      expect(classification).toEqual(expected);
    });
  }

  it('is what the adapter itself answers, apart from the clock', () => {
    const { classification } = replay(codexAdapter, 'rate-limit', { exitCode: 1 });
    expect(classification.outcome).toBe('rate_limited');
  });
});

describe('codex classification without a final turn line', () => {
  it('calls a run killed while reconnecting crashed, not rate limited', () => {
    const events = parseLines(codexAdapter, fixtureLines('codex', 'rate-limit').slice(0, 4));
    expect(classify(events, null, 'SIGTERM', 'Reading additional input from stdin...\n')).toEqual({
      outcome: 'crashed',
      message: 'killed by SIGTERM before a final result: Reading additional input from stdin...',
    });
  });

  it('fails on a clap usage error (exit 2)', () => {
    const stderrTail = "error: unexpected argument '--full-auto' found\n\nUsage: codex exec [OPTIONS] [PROMPT]\n";
    expect(classify([], 2, null, stderrTail)).toEqual({
      outcome: 'failed',
      message: "error: unexpected argument '--full-auto' found",
    });
  });

  it('calls exit 0 without turn.completed crashed', () => {
    expect(classify([{ type: 'session.started', data: { sessionId: 't' } }], 0)).toEqual({
      outcome: 'crashed',
      message: 'exited with code 0 before a final result',
    });
  });

  it('calls turn.completed followed by a non-zero exit crashed', () => {
    expect(classify([{ type: 'result', data: { ok: true } }], 1)).toEqual({
      outcome: 'crashed',
      message: 'exited with code 1 after turn.completed',
    });
  });
});

describe('codex classification rules', () => {
  const byMessage = [
    [
      'You’ve hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at 9:44 AM.',
      'quota_exhausted',
    ],
    ["You've hit your usage limit for gpt-5.5. Switch to another model now, or try again later.", 'quota_exhausted'],
    [
      "Usage limit reached. You've reached your usage limit. Increase your limits to continue using codex.",
      'quota_exhausted',
    ],
    ["You've reached your workspace credit limit", 'quota_exhausted'],
    ['Your workspace is out of credits. Ask your workspace owner to add more.', 'quota_exhausted'],
    ['unexpected status 401 Unauthorized: {"error":{"message":"Incorrect API key provided"}}', 'auth_failed'],
    ['exceeded retry limit, last status: 401 Unauthorized', 'auth_failed'],
    ['Missing environment variable: `OPENAI_API_KEY`.', 'auth_failed'],
    [
      'Your access token could not be refreshed because your refresh token has expired. Please log out and sign in again.',
      'auth_failed',
    ],
    ['exceeded retry limit, last status: 502 Bad Gateway', 'overloaded'],
    ['unexpected status 503 Service Unavailable: upstream', 'overloaded'],
    ['unexpected status 429 Too Many Requests: slow down', 'rate_limited'],
    [
      "Codex ran out of room in the model's context window. Start a new conversation or clear earlier history before retrying.",
      'failed',
    ],
  ] as const;
  for (const [message, outcome] of byMessage) {
    it(`reads "${message.slice(0, 60)}…" as ${outcome}`, () => {
      const classification = classify(failed(message), 1);
      expect(classification.outcome).toBe(outcome);
      expect(classification.message).toBe(message);
    });
  }

  it('takes the message of turn.failed, not of earlier error lines', () => {
    const events: HarnessEvent[] = [
      { type: 'harness.error', data: { message: 'Reconnecting... 1/5 (unexpected status 503)', fatal: false } },
      ...failed('Quota exceeded. Check your plan and billing details.'),
    ];
    expect(classify(events, 1).outcome).toBe('quota_exhausted');
  });
});

describe('parseTryAgainAt', () => {
  it('reads a bare time as today when it is still ahead', () => {
    expect(parseTryAgainAt('or try again at 9:31 AM.', NOW, ZONE)).toBe('2026-11-29T17:31:00.000Z');
    expect(parseTryAgainAt('Try again at 12:05 PM.', NOW, ZONE)).toBe('2026-11-29T20:05:00.000Z');
    expect(parseTryAgainAt('Try again at 11:59 PM.', NOW, ZONE)).toBe('2026-11-30T07:59:00.000Z');
  });

  it('reads a bare time that has passed as tomorrow', () => {
    expect(parseTryAgainAt('try again at 7:15 AM.', NOW, ZONE)).toBe('2026-11-30T15:15:00.000Z');
    expect(parseTryAgainAt('try again at 12:00 AM.', NOW, ZONE)).toBe('2026-11-30T08:00:00.000Z');
  });

  it('reads the dated form codex prints for another day', () => {
    expect(parseTryAgainAt('or try again at Dec 2nd, 2026 9:44 AM.', NOW, ZONE)).toBe('2026-12-02T17:44:00.000Z');
    expect(parseTryAgainAt('Try again at Jan 1st, 2027 1:05 PM.', NOW, ZONE)).toBe('2027-01-01T21:05:00.000Z');
  });

  it('leaves the time absent when the message names none', () => {
    expect(parseTryAgainAt('Try again later.', NOW, ZONE)).toBeUndefined();
    expect(parseTryAgainAt('try again at Foo 2nd, 2026 9:44 AM', NOW, ZONE)).toBeUndefined();
    expect(classify(failed("You've hit your usage limit. Try again later."), 1)).toEqual({
      outcome: 'quota_exhausted',
      message: "You've hit your usage limit. Try again later.",
    });
  });
});
