import { describe, expect, it } from 'vitest';
import { StoredContext } from '../../src/execution/context-schema.js';

describe('StoredContext', () => {
  it("reads a version 1 file as version 2: a plan status becomes what the attempt's harness reported", () => {
    const v1 = {
      version: 1,
      execution: '01jf',
      task: 'iso-week',
      branch: 'harmflow/iso-week-01jf',
      baseRef: 'main',
      baseSha: 'b'.repeat(40),
      worktree: '/w',
      writtenAt: '2025-03-01T10:00:00.000Z',
      attempts: [
        {
          number: 1,
          harness: 'codex',
          outcome: 'quota_exhausted',
          startedAt: '2025-03-01T09:00:00.000Z',
          endedAt: '2025-03-01T10:00:00.000Z',
          workItems: [
            { text: 'Open a pull request', status: 'completed' },
            { text: 'iso-week', push: { remote: 'origin', branch: 'x', sha: 'c'.repeat(40) } },
          ],
        },
      ],
    };
    const read = StoredContext.parse(v1);
    expect(read.version).toBe(2);
    expect(read.attempts[0]?.workItems).toStrictEqual([
      { text: 'Open a pull request', reported: { status: 'completed', by: 'codex plan' } },
      { text: 'iso-week', push: { remote: 'origin', branch: 'x', sha: 'c'.repeat(40) } },
    ]);
  });

  it('refuses a version it does not know', () => {
    expect(StoredContext.safeParse({ version: 3, attempts: [] }).success).toBe(false);
  });
});
