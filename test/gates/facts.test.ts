import { describe, expect, it } from 'vitest';
import type { ExecutionContext } from '../../src/execution/context-schema.js';
import { earlierWork } from '../../src/gates/facts.js';

type Attempt = ExecutionContext['attempts'][number];

const attempt = (number: number, harness: string, rest: Partial<Attempt> = {}): Attempt => ({
  number,
  harness,
  outcome: 'quota_exhausted',
  startedAt: '2025-01-01T00:00:00Z',
  endedAt: '2025-01-01T00:10:00Z',
  workItems: [],
  ...rest,
});

const context = (attempts: Attempt[]): ExecutionContext => ({
  version: 2,
  execution: '01jexec',
  task: 'fix-dates',
  branch: 'harmflow/fix-dates-01jexec',
  baseRef: 'main',
  baseSha: 'a'.repeat(40),
  worktree: '/srv/wt',
  writtenAt: '2025-01-01T00:20:00Z',
  attempts,
});

describe('earlierWork', () => {
  it('collects each attempt’s reported pushes and pull requests, crediting the attempt', () => {
    const work = earlierWork(
      context([
        attempt(1, 'codex', {
          workItems: [
            { text: 'push', push: { remote: 'origin', branch: 'harmflow/x', sha: 'abc' } },
            { text: 'pr', pullRequest: { url: 'https://forge.test/pull/3', number: 3 } },
          ],
        }),
      ]),
    );
    expect(work).toStrictEqual({
      pushes: [{ remote: 'origin', branch: 'harmflow/x', sha: 'abc', attempt: 1, harness: 'codex' }],
      pullRequests: [{ url: 'https://forge.test/pull/3', number: 3, attempt: 1, harness: 'codex' }],
    });
  });

  it('keeps one entry per remote branch: a later push replaces it, an unchanged remote keeps the pusher', () => {
    const remote = { remote: 'origin', branch: 'harmflow/x', sha: 'abc' };
    const work = earlierWork(
      context([
        attempt(1, 'codex', {
          workItems: [{ text: 'a', push: remote }],
          workspace: { head: 'abc', uncommittedFiles: [], commits: [], remote },
        }),
        attempt(2, 'gemini', { workspace: { head: 'abc', uncommittedFiles: [], commits: [], remote } }),
      ]),
    );
    expect(work.pushes).toStrictEqual([{ ...remote, attempt: 1, harness: 'codex' }]);

    const moved = earlierWork(
      context([
        attempt(1, 'codex', { workItems: [{ text: 'a', push: remote }] }),
        attempt(2, 'gemini', {
          workspace: { head: 'def', uncommittedFiles: [], commits: [], remote: { ...remote, sha: 'def' } },
        }),
      ]),
    );
    expect(moved.pushes).toStrictEqual([{ ...remote, sha: 'def', attempt: 2, harness: 'gemini' }]);
  });

  it('is empty for an execution whose attempts pushed nothing', () => {
    expect(earlierWork(context([attempt(1, 'claude-code')]))).toStrictEqual({ pushes: [], pullRequests: [] });
  });
});
