import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { opencodeAdapter } from '../../../src/harnesses/opencode/index.js';
import { createOpencodeStderrWatcher, logField, streamErrorMessage } from '../../../src/harnesses/opencode/stderr.js';

const NOW = Date.parse('2026-11-29T12:00:00.000Z');

const stderrLines = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../fixtures/opencode/${name}.stderr.log`, import.meta.url)), 'utf8')
    .split('\n')
    .filter((line) => line !== '');

/** Feeds a recorded stderr to a fresh watcher; returns the index and answer of each line it answered. */
function watch(name: string) {
  const watcher = createOpencodeStderrWatcher(() => NOW);
  return stderrLines(name).flatMap((line, index) => {
    const answer = watcher(line);
    return answer === undefined ? [] : [{ index, answer }];
  });
}

const QUOTA_MESSAGE =
  'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.';

describe('opencode stderr watcher on recorded runs', () => {
  it('answers quota_exhausted on the first failed request of an insufficient_quota run', () => {
    const answers = watch('insufficient-quota');
    // Line 22 is logged 0.3 s after the request; OpenCode's own error line came 72 s later.
    expect(answers[0]).toEqual({ index: 21, answer: { outcome: 'quota_exhausted', message: QUOTA_MESSAGE } });
  });

  it('dates a plan limit from the line timestamp', () => {
    expect(watch('go-usage-limit')[0]).toEqual({
      index: 21,
      answer: {
        outcome: 'quota_exhausted',
        message:
          '5-hour usage limit reached. Resets in 3hr 12min. To continue using this model now, enable usage from your available balance: https://opencode.ai/workspace/wrk_mock/go',
        resetsAt: '2026-11-29T14:58:30.769Z',
      },
    });
  });

  it('leaves transient rate limits, server errors, unexpected errors and a clean run to OpenCode', () => {
    for (const name of ['rate-limit', 'server-error-500', 'unknown-model', 'success']) {
      expect(watch(name), name).toEqual([]);
    }
  });

  it('is the adapter hook', () => {
    const watcher = opencodeAdapter.createStderrWatcher?.();
    const first = stderrLines('insufficient-quota').find((line) => watcher?.(line) !== undefined);
    expect(first).toContain('message="stream error"');
  });
});

describe('opencode stderr lines', () => {
  const line = (fields: string) => `timestamp=2026-11-29T11:43:59.206Z level=ERROR run=8e287823 ${fields}`;

  it('ignores the small model, which only names sessions', () => {
    const watcher = createOpencodeStderrWatcher(() => NOW);
    const title = line(
      'message="stream error" providerID=mock small=true agent=title error.error="AI_APICallError: Quota exceeded. Check your plan and billing details."',
    );
    expect(watcher(title)).toBeUndefined();
    expect(watcher(title.replace('small=true', 'small=false'))?.outcome).toBe('quota_exhausted');
  });

  it('dates a reset from the clock when the line has no timestamp', () => {
    const watcher = createOpencodeStderrWatcher(() => NOW);
    expect(
      watcher('level=ERROR message="stream error" error.error="AI_APICallError: Free usage exceeded. Retry in 30min"'),
    ).toEqual({
      outcome: 'quota_exhausted',
      message: 'Free usage exceeded. Retry in 30min',
      resetsAt: '2026-11-29T12:30:00.000Z',
    });
  });

  it('reads only failed-request lines', () => {
    expect(streamErrorMessage(line('message=process error="You exceeded your current quota"'))).toBeUndefined();
    expect(streamErrorMessage(line('message="stream error"').replace('ERROR', 'WARN'))).toBeUndefined();
    expect(streamErrorMessage('! permission requested: external_directory (/tmp/*); auto-rejecting')).toBeUndefined();
    expect(
      streamErrorMessage(line('message="stream error" error.error="AI_RetryError: Failed after 3 attempts"')),
    ).toBe('Failed after 3 attempts');
  });

  it('reads bare and quoted logfmt values, with escapes', () => {
    const text = 'timestamp=t level=INFO message="say \\"hi\\"\\nbye" count=3 error.error="x y"';
    expect(logField(text, 'timestamp')).toBe('t');
    expect(logField(text, 'message')).toBe('say "hi"\nbye');
    expect(logField(text, 'count')).toBe('3');
    expect(logField(text, 'error.error')).toBe('x y');
    expect(logField(text, 'error')).toBeUndefined();
    expect(logField('message="unterminated', 'message')).toBeUndefined();
  });
});
