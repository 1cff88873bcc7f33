/**
 * One work item's words for both Summaries (src/web/describe-work-item.ts): what its harness reported
 * kept apart from what HarmFlow observed, what was tried and not done, and the unconfirmed sentence.
 */
import { describe, expect, it } from 'vitest';
import type { WorkItem } from '../../src/execution/context-schema.js';
import { describeWorkItem, isUnconfirmed, workItemParts } from '../../src/web/describe-work-item.js';

describe('workItemParts', () => {
  it('keeps the reported status as the harness word, apart from what was observed', () => {
    const item: WorkItem = {
      text: 'Add slugify and commit it',
      reported: { status: 'completed', by: 'claude-code plan' },
      filesChanged: ['src/slug.js', 'test/slug.test.js'],
      commits: [{ sha: 'e2ad641aa0b1', subject: 'Add slugify' }],
      push: { remote: 'origin', branch: 'harmflow/slug', sha: 'e2ad641aa0b1', observed: 'tracking-ref' },
      pullRequest: { url: 'https://forge.example/pr/3', number: 3 },
      testRuns: [{ command: 'npm test', passed: false, exitCode: 1, counts: { passed: 4, failed: 1 } }],
    };
    expect(workItemParts(item)).toEqual({
      text: 'Add slugify and commit it',
      reported: 'claude-code plan: completed',
      observed: [
        'changed src/slug.js, test/slug.test.js',
        'commit e2ad641 "Add slugify"',
        'pushed to origin/harmflow/slug at e2ad641 (the tracking ref; the remote did not answer)',
        'pull request #3 https://forge.example/pr/3',
        'tests `npm test` failed (exit 1; 4 passed, 1 failed)',
      ],
      tried: [],
    });
    expect(isUnconfirmed(item)).toBe(false);
  });

  it('says what was tried with its exit code and why, and the unconfirmed sentence', () => {
    const item: WorkItem = {
      text: 'Open a pull request',
      reported: { status: 'completed', by: 'codex plan' },
      tried: [
        {
          kind: 'push',
          command: 'git push -u origin HEAD',
          exitCode: 128,
          error: 'fatal: could not read Username',
          why: 'failed (exit 128)',
        },
        { kind: 'pull_request', command: 'gh pr create --title x', why: 'printed no pull request URL' },
      ],
      unconfirmed:
        'HarmFlow saw no pull request opened by this attempt: `gh pr create --title x` printed no pull request URL',
    };
    const parts = workItemParts(item);
    expect(parts.tried).toEqual([
      'push failed (exit 128): fatal: could not read Username — `git push -u origin HEAD`',
      'pull request printed no pull request URL — `gh pr create --title x`',
    ]);
    expect(parts.unconfirmed).toBe(item.unconfirmed);
    expect(isUnconfirmed(item)).toBe(true);
    expect(describeWorkItem(item)).toBe(
      [
        'Open a pull request',
        'reported codex plan: completed',
        `⚠ unconfirmed: ${item.unconfirmed}`,
        `tried: ${parts.tried.join('; ')}`,
      ].join(' · '),
    );
  });

  it('has nothing reported when no plan came, and an in-progress status in words', () => {
    expect(workItemParts({ text: 'fix-login' })).toEqual({ text: 'fix-login', observed: [], tried: [] });
    expect(workItemParts({ text: 'x', reported: { status: 'in_progress', by: 'gemini plan' } }).reported).toBe(
      'gemini plan: in progress',
    );
    expect(describeWorkItem({ text: 'fix-login', filesChanged: ['a.ts'] })).toBe('fix-login · observed: changed a.ts');
  });
});
