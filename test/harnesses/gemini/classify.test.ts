import { describe, expect, it } from 'vitest';
import type { HarnessEvent } from '../../../src/events/schema.js';
import type { Classification } from '../../../src/harnesses/adapter.js';
import { apiStatusOf, classifyGemini, retryDelaySeconds } from '../../../src/harnesses/gemini/classify.js';
import { geminiAdapter } from '../../../src/harnesses/gemini/index.js';
import { replay } from '../replay.js';
import {
  CAPACITY,
  CAPACITY_RETRIES,
  DAILY,
  LIMIT_0,
  LONG_RETRY,
  NOISE,
  PER_MINUTE,
  PER_MINUTE_RETRIES,
  report,
  statusRetries,
  stderr,
} from './stderr.js';

const NOW = Date.parse('2026-11-29T11:33:24.000Z');
const ADVICE =
  '\nPlease wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method';
const apiError = (message: string, advice = true) => `[API Error: ${message}]${advice ? ADVICE : ''}`;

const BODY_500 =
  '{"error":{"code":500,"message":"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting","status":"INTERNAL"}}';
const BODY_503 =
  '{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}';
const BODY_400 =
  '{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}]}}';
const BODY_403 =
  '{"error":{"code":403,"message":"Method doesn\'t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.","status":"PERMISSION_DENIED"}}';
const NOT_FOUND =
  'models/gemini-9-nope is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of supported models and the supported methods.';
const EMPTY =
  'The model returned an empty response with no text or thoughts. This may be a transient API issue; please try again.';

const classify = (events: HarnessEvent[], exitCode: number | null, stderrTail = '', signal: string | null = null) =>
  classifyGemini({ events, exitCode, signal, stderrTail, timeZone: 'UTC' }, NOW);
const failedResult = (message: string): HarnessEvent[] => [{ type: 'result', data: { ok: false, message } }];

describe('gemini classification of recorded runs', () => {
  const cases: { fixture: string; exitCode: number; stderrTail: string; expected: Classification }[] = [
    {
      fixture: 'success-tool',
      exitCode: 0,
      stderrTail: stderr(),
      expected: { outcome: 'completed', message: 'Done: wrote hello.txt.' },
    },
    {
      fixture: 'todos-shell',
      exitCode: 0,
      stderrTail: stderr(),
      expected: { outcome: 'completed', message: 'All done: hello.txt says hello there.' },
    },
    {
      fixture: 'tool-error',
      exitCode: 0,
      stderrTail: stderr(),
      expected: { outcome: 'completed', message: 'Carrying on without a topic.' },
    },
    {
      // The auto router's classifier call hit a daily quota; the turn went on and completed.
      fixture: 'auto-routed',
      exitCode: 0,
      stderrTail: stderr(
        report('TerminalQuotaError', DAILY, 429, 'generateJson'),
        '[Routing] NumericalClassifierStrategy failed: Error: Failed to generate content: You have exhausted your daily quota on this model.',
      ),
      expected: { outcome: 'completed', message: 'Done: wrote hello.txt.' },
    },
    {
      fixture: 'quota-daily',
      exitCode: 173,
      stderrTail: stderr(report('TerminalQuotaError', DAILY, 429)),
      expected: { outcome: 'quota_exhausted', message: apiError(DAILY) },
    },
    {
      fixture: 'quota-limit0',
      exitCode: 173,
      stderrTail: stderr(report('TerminalQuotaError', LIMIT_0, 429)),
      expected: { outcome: 'quota_exhausted', message: apiError(LIMIT_0) },
    },
    {
      fixture: 'quota-long-retry',
      exitCode: 173,
      stderrTail: stderr(report('TerminalQuotaError', LONG_RETRY, 429)),
      expected: { outcome: 'quota_exhausted', message: apiError(LONG_RETRY), resetsAt: '2026-11-29T12:33:24.000Z' },
    },
    {
      fixture: 'capacity',
      exitCode: 173,
      stderrTail: stderr(CAPACITY_RETRIES, report('TerminalQuotaError', CAPACITY, 429)),
      expected: { outcome: 'quota_exhausted', message: apiError(CAPACITY) },
    },
    {
      fixture: 'rate-limit-minute',
      exitCode: 173,
      stderrTail: stderr(PER_MINUTE_RETRIES, report('RetryableQuotaError', PER_MINUTE, 429)),
      expected: { outcome: 'rate_limited', message: apiError(PER_MINUTE) },
    },
    {
      fixture: 'rate-limit-plain',
      exitCode: 173,
      stderrTail: stderr(
        statusRetries(
          429,
          '{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}',
          'Resource has been exhausted (e.g. check quota).',
        ),
        report('RetryableQuotaError', 'Resource has been exhausted (e.g. check quota).', 429),
      ),
      expected: { outcome: 'rate_limited', message: apiError('Resource has been exhausted (e.g. check quota).') },
    },
    {
      fixture: 'server-500',
      exitCode: 244,
      stderrTail: stderr(statusRetries(500, BODY_500, BODY_500), report('_ApiError', BODY_500, 500)),
      expected: { outcome: 'overloaded', message: apiError(BODY_500, false) },
    },
    {
      // Gemini files a 503 as a RetryableQuotaError too: the exit status tells it apart.
      fixture: 'overloaded-503',
      exitCode: 247,
      stderrTail: stderr(
        statusRetries(503, BODY_503, 'The model is overloaded. Please try again later.'),
        report('RetryableQuotaError', 'The model is overloaded. Please try again later.', 503),
      ),
      expected: { outcome: 'overloaded', message: apiError('The model is overloaded. Please try again later.', false) },
    },
    {
      fixture: 'bad-api-key',
      exitCode: 144,
      stderrTail: stderr(report('_ApiError', BODY_400, 400)),
      expected: { outcome: 'auth_failed', message: apiError(BODY_400, false) },
    },
    {
      fixture: 'forbidden-403',
      exitCode: 147,
      stderrTail: stderr(report('_ApiError', BODY_403, 403)),
      expected: { outcome: 'auth_failed', message: apiError(BODY_403, false) },
    },
    {
      fixture: 'model-not-found',
      exitCode: 1,
      stderrTail: stderr(report('ModelNotFoundError', NOT_FOUND, 404)),
      expected: { outcome: 'failed', message: apiError(NOT_FOUND, false) },
    },
    {
      fixture: 'empty-response',
      exitCode: 0,
      stderrTail: stderr(),
      expected: { outcome: 'failed', message: EMPTY },
    },
    {
      fixture: 'auth-41',
      exitCode: 41,
      stderrTail:
        'YOLO mode is enabled. All tool calls will be automatically approved.\nInvalid auth method selected.\n',
      expected: { outcome: 'auth_failed', message: 'Invalid auth method selected.' },
    },
    {
      fixture: 'auth-41',
      exitCode: 41,
      stderrTail:
        'YOLO mode is enabled. All tool calls will be automatically approved.\nWhen using Gemini API, you must specify the GEMINI_API_KEY environment variable.\nUpdate your environment and try again (no reload needed if using .env)!\n',
      expected: {
        outcome: 'auth_failed',
        message: 'When using Gemini API, you must specify the GEMINI_API_KEY environment variable.',
      },
    },
    {
      fixture: 'resume-42',
      exitCode: 42,
      stderrTail: 'Error resuming session: No previous sessions found for this project.\n',
      expected: { outcome: 'failed', message: 'Error resuming session: No previous sessions found for this project.' },
    },
    {
      // SIGTERM during a retry wait: exit 0, no result line (note §2.8).
      fixture: 'killed',
      exitCode: 0,
      stderrTail: stderr(statusRetries(429, '{}', 'x').split('\n').slice(0, 3).join('\n')),
      expected: { outcome: 'crashed', message: 'exited with code 0 before a final result: }' },
    },
  ];

  for (const { fixture, exitCode, stderrTail, expected } of cases) {
    it(`${fixture} (exit ${exitCode}) → ${expected.outcome}`, () => {
      const { classification } = replay(geminiAdapter, fixture, { exitCode, stderrTail }, (input) =>
        classifyGemini(input, NOW),
      );
      expect(classification).toEqual(expected);
    });
  }

  it('is what the adapter itself answers, apart from the clock', () => {
    const stderrTail = stderr(report('TerminalQuotaError', DAILY, 429));
    const { classification } = replay(geminiAdapter, 'quota-daily', { exitCode: 173, stderrTail });
    expect(classification).toEqual({ outcome: 'quota_exhausted', message: apiError(DAILY) });
  });
});

describe('gemini classification rules', () => {
  it('takes Gemini’s TerminalQuotaError verdict over an unfamiliar wording', () => {
    const message = apiError('Some new quota wording');
    expect(
      classify(failedResult(message), 173, stderr(report('TerminalQuotaError', 'Some new quota wording', 429))),
    ).toEqual({ outcome: 'quota_exhausted', message });
  });

  it('does not call a per-minute 429 a quota for its `exceeded your current quota` wording', () => {
    expect(classify(failedResult(apiError(PER_MINUTE)), 173).outcome).toBe('rate_limited');
  });

  it('ignores a side call’s TerminalQuotaError when the turn ended on a transient one', () => {
    const stderrTail = stderr(
      report('TerminalQuotaError', DAILY, 429, 'generateJson'),
      PER_MINUTE_RETRIES,
      report('RetryableQuotaError', PER_MINUTE, 429),
    );
    expect(classify(failedResult(apiError(PER_MINUTE)), 173, stderrTail).outcome).toBe('rate_limited');
  });

  it('reads the verdict from the last report only, even when that one names no quota class', () => {
    const body = '{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}}';
    const stderrTail = stderr(report('TerminalQuotaError', DAILY, 429), report('_ApiError', body, 400));
    expect(classify(failedResult(`[API Error: ${body}]`), 144, stderrTail).outcome).toBe('failed');
  });

  it('reads the quota wording without any stderr', () => {
    for (const text of [DAILY, LIMIT_0, CAPACITY, 'MODEL_CAPACITY_EXHAUSTED']) {
      expect(classify(failedResult(apiError(text)), 173).outcome).toBe('quota_exhausted');
    }
  });

  it('dates a quota by a retry delay over 300 s, and only then', () => {
    expect(classify(failedResult(apiError(LONG_RETRY)), 173)).toEqual({
      outcome: 'quota_exhausted',
      message: apiError(LONG_RETRY),
      resetsAt: '2026-11-29T12:33:24.000Z',
    });
    const daily = classify(failedResult(`${apiError(DAILY)}\nPlease retry in 41.5s.`), 173);
    expect(daily).toEqual({ outcome: 'quota_exhausted', message: `${apiError(DAILY)}\nPlease retry in 41.5s.` });
    expect(classify(failedResult('[API Error: busy\nSuggested retry after 300s.]'), 173).outcome).toBe('rate_limited');
  });

  it('lets the exit status decide when the message does not', () => {
    expect(classify(failedResult('[API Error: x]'), 173).outcome).toBe('rate_limited');
    expect(classify(failedResult('[API Error: x]'), 243).outcome).toBe('rate_limited');
    expect(classify(failedResult('[API Error: x]'), 246).outcome).toBe('overloaded');
    expect(classify(failedResult('[API Error: x]'), 145).outcome).toBe('auth_failed');
    expect(classify(failedResult('[API Error: x]'), 144).outcome).toBe('failed');
  });

  it('reads the wording when no HTTP status is known', () => {
    expect(classify(failedResult('[API Error: The model is overloaded.]'), 1).outcome).toBe('overloaded');
    expect(classify(failedResult('[API Error: x\nSuggested retry after 5s.]'), 1).outcome).toBe('rate_limited');
    expect(classify(failedResult('[API Error: API key not valid.]'), 1).outcome).toBe('auth_failed');
  });

  it('calls a FatalAuthenticationError result auth_failed', () => {
    expect(classify(failedResult('Invalid auth method selected.'), 41)).toEqual({
      outcome: 'auth_failed',
      message: 'Invalid auth method selected.',
    });
  });

  it('fails on a turn limit, a fatal tool error and an untrusted folder', () => {
    const turnLimit =
      'Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.';
    expect(classify(failedResult(turnLimit), 53)).toEqual({ outcome: 'failed', message: turnLimit });
    expect(classify(failedResult('Error executing tool write_file: ENOSPC'), 54).outcome).toBe('failed');
    const untrusted =
      'Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode.';
    expect(classify([], 55, `${NOISE}\n${untrusted}\n`)).toEqual({ outcome: 'failed', message: untrusted });
  });

  it('fails on a yargs usage error printed above the help text', () => {
    const help = 'Usage: gemini [options] [command]\n\n  -h, --help   Show help  [boolean]\n';
    expect(classify([], 1, `Unknown arguments: bogus-flag, bogusFlag\n${help}`)).toEqual({
      outcome: 'failed',
      message: 'Unknown arguments: bogus-flag, bogusFlag',
    });
    expect(classify([], 1, `Not enough arguments following: p\n${help}`).outcome).toBe('failed');
  });

  it('calls a process killed by a signal crashed', () => {
    expect(classify([], null, '', 'SIGKILL')).toEqual({
      outcome: 'crashed',
      message: 'killed by SIGKILL before a final result',
    });
  });

  it('calls a successful result followed by a non-zero exit crashed', () => {
    expect(classify([{ type: 'result', data: { ok: true, message: 'done' } }], 1)).toEqual({
      outcome: 'crashed',
      message: 'exited with code 1 after a successful result',
    });
  });
});

describe('gemini exit statuses and retry delays', () => {
  it('reads an HTTP status from status & 0xff', () => {
    expect([173, 244, 247, 144, 145, 147, 148].map(apiStatusOf)).toEqual([429, 500, 503, 400, 401, 403, 404]);
    expect([0, 1, 41, 42, 130, 143, null].map(apiStatusOf)).toEqual(Array(7).fill(undefined));
  });

  it('finds the longest retry delay a message names', () => {
    expect(retryDelaySeconds(PER_MINUTE)).toBe(2.5);
    expect(retryDelaySeconds('Please retry in 1500ms.')).toBe(1.5);
    expect(retryDelaySeconds(LONG_RETRY)).toBe(3600);
    expect(retryDelaySeconds(DAILY)).toBeUndefined();
  });
});
