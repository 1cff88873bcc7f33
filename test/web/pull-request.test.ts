/** The pull request an execution's records show it opened (src/web/pull-request.ts): only a succeeded one, only an http(s) URL. */
import { describe, expect, it } from 'vitest';
import { pullRequestLabel, pullRequestOf } from '../../src/web/pull-request.js';
import type { EventRecord } from '../../src/web/records.js';

const operation = (data: Record<string, unknown>): EventRecord => ({
  ts: '2025-03-01T10:00:00.000Z',
  execution: '01jf3k9x7q2m4n6p8r0s2t4v6w',
  attempt: 1,
  harness: 'claude-code',
  source: 'harness',
  type: 'operation',
  data: { kind: 'pull_request', command: 'gh pr create', ...data },
});

describe('pullRequestOf', () => {
  it('reads the URL and number of a pull request opened', () => {
    const opened = pullRequestOf(operation({ ok: true, url: 'https://forge.example/o/r/pull/12', number: 12 }));
    expect(opened).toEqual({ url: 'https://forge.example/o/r/pull/12', number: 12 });
    expect(pullRequestLabel(opened ?? { url: '' })).toBe('Pull request #12');
    expect(pullRequestOf(operation({ ok: true, url: 'http://127.0.0.1:9/pull/3' }))).toEqual({
      url: 'http://127.0.0.1:9/pull/3',
    });
    expect(pullRequestLabel({ url: 'http://127.0.0.1:9/pull/3' })).toBe('Pull request');
  });

  it('finds none in a failed attempt, a record without a URL or with another scheme, or another record', () => {
    expect(pullRequestOf(operation({ ok: false, url: 'https://forge.example/o/r/pull/12' }))).toBeUndefined();
    expect(pullRequestOf(operation({ ok: true }))).toBeUndefined();
    expect(pullRequestOf(operation({ ok: true, url: 'javascript:alert(1)//pull/1' }))).toBeUndefined();
    expect(pullRequestOf(operation({ ok: true, url: 'https://forge.example/pull/1 and more' }))).toBeUndefined();
    expect(pullRequestOf({ ...operation({ ok: true, url: 'https://x/pull/1' }), type: 'message' })).toBeUndefined();
    expect(pullRequestOf(operation({ kind: 'push', ok: true, url: 'https://x/pull/1' }))).toBeUndefined();
  });
});
