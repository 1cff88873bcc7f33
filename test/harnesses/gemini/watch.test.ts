import { describe, expect, it } from 'vitest';
import { geminiAdapter } from '../../../src/harnesses/gemini/index.js';
import { createGeminiStderrWatcher } from '../../../src/harnesses/gemini/watch.js';
import {
  CAPACITY,
  CAPACITY_RETRIES,
  DAILY,
  LIMIT_0,
  LONG_RETRY,
  PER_MINUTE,
  PER_MINUTE_RETRIES,
  report,
  statusRetries,
  stderr,
} from './stderr.js';

const NOW = Date.parse('2026-11-29T11:33:24.000Z');

/** Feeds a stderr text line by line; returns each answer with the line that gave it. */
function watch(text: string) {
  const watcher = createGeminiStderrWatcher(() => NOW);
  return text.split('\n').flatMap((line) => {
    const answer = watcher(line);
    return answer === undefined ? [] : [{ line, answer }];
  });
}

describe('gemini stderr watcher', () => {
  it('answers a daily quota at the first stack frame of its report', () => {
    expect(watch(stderr(report('TerminalQuotaError', DAILY, 429)))).toEqual([
      {
        line: '    at classifyGoogleError (file:///<bundle>/chunk-JDPZ4CE3.js:307320:18)',
        answer: { outcome: 'quota_exhausted', message: DAILY },
      },
    ]);
  });

  it('collects a message over several lines, and dates a long retry delay', () => {
    expect(watch(stderr(report('TerminalQuotaError', LIMIT_0, 429))).map(({ answer }) => answer)).toEqual([
      { outcome: 'quota_exhausted', message: LIMIT_0 },
    ]);
    expect(watch(stderr(report('TerminalQuotaError', LONG_RETRY, 429))).map(({ answer }) => answer)).toEqual([
      { outcome: 'quota_exhausted', message: LONG_RETRY, resetsAt: '2026-11-29T12:33:24.000Z' },
    ]);
  });

  it('lets capacity retries run and answers once they end in a TerminalQuotaError', () => {
    expect(
      watch(stderr(CAPACITY_RETRIES, report('TerminalQuotaError', CAPACITY, 429))).map(({ answer }) => answer),
    ).toEqual([{ outcome: 'quota_exhausted', message: CAPACITY }]);
  });

  it('says nothing of transient limits, server errors and a side call’s quota', () => {
    const body =
      '{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}';
    const quiet = stderr(
      PER_MINUTE_RETRIES,
      report('RetryableQuotaError', PER_MINUTE, 429),
      statusRetries(503, body, 'The model is overloaded. Please try again later.'),
      report('RetryableQuotaError', 'The model is overloaded. Please try again later.', 503),
      report('TerminalQuotaError', DAILY, 429, 'generateJson'),
      '[Routing] NumericalClassifierStrategy failed: Error: Failed to generate content: You have exhausted your daily quota on this model.',
    );
    expect(watch(quiet)).toEqual([]);
  });

  it('waits for the end of a message that is the last line so far', () => {
    const watcher = createGeminiStderrWatcher(() => NOW);
    const [first] = report('TerminalQuotaError', DAILY, 429).split('\n');
    expect(watcher(first ?? '')).toBeUndefined();
    expect(watcher('')).toEqual({ outcome: 'quota_exhausted', message: DAILY });
  });

  it('is what the adapter offers', () => {
    const watcher = geminiAdapter.createStderrWatcher?.();
    const answers = report('TerminalQuotaError', DAILY, 429)
      .split('\n')
      .map((line) => watcher?.(line));
    expect(answers.filter((answer) => answer !== undefined).map((answer) => answer?.outcome)).toEqual([
      'quota_exhausted',
    ]);
  });
});
