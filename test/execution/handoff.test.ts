import { describe, expect, it } from 'vitest';
import type { AttemptContext, ExecutionContext } from '../../src/execution/context-schema.js';
import { buildHandoffPrompt, CONTEXT_LINE_PREFIX, describeOperation } from '../../src/execution/handoff.js';

const BRANCH = 'harmflow/iso-week-01jf3k9x7q';
const BASE_SHA = '0123456789abcdef0123456789abcdef01234567';
const CONTEXT_PATH = '/home/u/.harmflow/runs/01jf3k9x7q/context.json';

const FIRST: AttemptContext = {
  number: 1,
  harness: 'claude-code',
  model: 'claude-sonnet-4-5',
  simulated: false,
  outcome: 'quota_exhausted',
  message: 'Claude AI usage limit reached|1767225600',
  startedAt: '2025-03-01T10:00:00.000Z',
  endedAt: '2025-03-01T10:12:00.000Z',
  sessionId: 'c0ffee',
  lastOperation: { kind: 'push', command: 'git push -u origin HEAD', ok: true, remote: 'origin', branch: BRANCH },
  lastMessage: 'Parser done and pushed.\nNext: the tests.',
  workItems: [
    {
      text: 'Parse ISO week dates',
      status: 'completed',
      filesChanged: ['src/week.js', 'src/date.js'],
      commits: [{ sha: 'aaaaaaa1111111111111111111111111111111111', subject: 'Add ISO week parsing' }],
      push: { remote: 'origin', branch: BRANCH, sha: 'aaaaaaa1111111111111111111111111111111111' },
      testRuns: [{ command: 'npm test', passed: true, counts: { passed: 4 } }],
    },
    { text: 'Add tests', status: 'in_progress', testRuns: [{ command: 'npx vitest run', passed: false }] },
    { text: 'Open a pull request', status: 'pending' },
  ],
  workspace: {
    head: 'aaaaaaa1111111111111111111111111111111111',
    uncommittedFiles: ['test/week.test.js'],
    commits: [{ sha: 'aaaaaaa1111111111111111111111111111111111', subject: 'Add ISO week parsing' }],
    remote: { remote: 'origin', branch: BRANCH, sha: 'aaaaaaa1111111111111111111111111111111111' },
  },
};

const context = (attempts: AttemptContext[]): ExecutionContext => ({
  version: 1,
  execution: '01jf3k9x7q',
  task: 'iso-week',
  branch: BRANCH,
  baseRef: 'main',
  baseSha: BASE_SHA,
  worktree: '/home/u/.harmflow/worktrees/01jf3k9x7q',
  writtenAt: '2025-03-01T10:12:01.000Z',
  attempts,
});

describe('buildHandoffPrompt', () => {
  it('gives the task prompt, a summary of the attempt, the context file and the checks to make', () => {
    const prompt = buildHandoffPrompt('Make parseDate accept ISO week dates.\n', context([FIRST]), CONTEXT_PATH);
    expect(prompt).toBe(
      [
        'Make parseDate accept ISO week dates.',
        '',
        '---',
        `HarmFlow handoff: this task was already worked on by an earlier attempt of the same execution, in this same worktree and on this same branch (${BRANCH}). Their work is in the workspace. Do not redo it: continue from where it stopped.`,
        '',
        'Attempt 1 — claude-code (model claude-sonnet-4-5) — ended quota_exhausted: Claude AI usage limit reached|1767225600',
        `  Last recorded operation: push to origin/${BRANCH}`,
        '  Last message: Parser done and pushed. Next: the tests.',
        `  - [completed] Parse ISO week dates — commits aaaaaaa "Add ISO week parsing"; pushed to origin/${BRANCH}; tests \`npm test\` passed; files src/week.js, src/date.js`,
        '  - [in_progress] Add tests — tests `npx vitest run` failed',
        '  - [pending] Open a pull request',
        `  Workspace after it: 1 commit(s) on the branch, 1 uncommitted file(s), origin/${BRANCH} at aaaaaaa11111`,
        '',
        `HarmFlow context file: ${CONTEXT_PATH}`,
        '(JSON: for each earlier attempt, its work items with files changed, commits, push, pull request and test results.)',
        '',
        'Before you commit, push or open a pull request, check what was already done:',
        '- `git status` and `git log --oneline 0123456789ab..HEAD` (commits already on the branch),',
        `- the remote branch: \`git ls-remote origin ${BRANCH}\` (what was already pushed),`,
        `- an existing pull request for the branch: \`gh pr list --head ${BRANCH}\`.`,
        'Never commit, push or open a pull request a second time for work that is already there.',
      ].join('\n'),
    );
  });

  it('starts with the task prompt and names the context file on a line of its own', () => {
    const prompt = buildHandoffPrompt('Fix it.', context([FIRST]), CONTEXT_PATH);
    expect(prompt.startsWith('Fix it.\n\n---\n')).toBe(true);
    expect(prompt.split('\n').filter((line) => line.startsWith(CONTEXT_LINE_PREFIX))).toStrictEqual([
      `HarmFlow context file: ${CONTEXT_PATH}`,
    ]);
  });

  it('summarizes every attempt, in order, with what is known of each', () => {
    const second: AttemptContext = {
      number: 2,
      harness: 'codex',
      outcome: 'rate_limited',
      startedAt: '2025-03-01T10:12:02.000Z',
      endedAt: '2025-03-01T10:20:00.000Z',
      lastOperation: {
        kind: 'pull_request',
        command: 'gh pr create --fill',
        ok: true,
        url: 'https://github.com/acme/app/pull/7',
        number: 7,
      },
      workItems: [
        { text: 'iso-week', pullRequest: { url: 'https://github.com/acme/app/pull/7', number: 7 } },
        { text: 'Plain item' },
      ],
      workspace: { head: 'bbbb', uncommittedFiles: [], commits: [] },
    };
    const lines = buildHandoffPrompt('Task.', context([FIRST, second]), CONTEXT_PATH).split('\n');
    expect(lines[3]).toContain('already worked on by 2 earlier attempts of the same execution');
    const first = lines.findIndex((line) => line.startsWith('Attempt 1 — '));
    const next = lines.findIndex((line) => line.startsWith('Attempt 2 — '));
    expect(first).toBeGreaterThan(0);
    expect(next).toBeGreaterThan(first);
    expect(lines.slice(next, next + 5)).toStrictEqual([
      'Attempt 2 — codex — ended rate_limited',
      '  Last recorded operation: pull request https://github.com/acme/app/pull/7',
      '  - iso-week — pull request https://github.com/acme/app/pull/7',
      '  - Plain item',
      '  Workspace after it: 0 commit(s) on the branch, 0 uncommitted file(s), branch not on the remote',
    ]);
  });

  it('leaves out the lines of what an attempt did not report', () => {
    const bare: AttemptContext = {
      number: 1,
      harness: 'codex',
      outcome: 'crashed',
      startedAt: 'a',
      endedAt: 'b',
      workItems: [],
    };
    const prompt = buildHandoffPrompt('Task.', context([bare]), CONTEXT_PATH);
    expect(prompt).toContain('\nAttempt 1 — codex — ended crashed\n\nHarmFlow context file: ');
    expect(prompt).not.toContain('Last recorded operation');
    expect(prompt).not.toContain('Last message');
    expect(prompt).not.toContain('Workspace after it');
  });

  it('clips long messages to one line of 600 characters', () => {
    const long = `${'word '.repeat(200)}\n\nend`;
    const attempt: AttemptContext = { ...FIRST, message: long, lastMessage: long };
    const lines = buildHandoffPrompt('Task.', context([attempt]), CONTEXT_PATH).split('\n');
    const clipped = `${'word '.repeat(120).slice(0, 600)}…`;
    expect(lines).toContain(`Attempt 1 — claude-code (model claude-sonnet-4-5) — ended quota_exhausted: ${clipped}`);
    expect(lines).toContain(`  Last message: ${clipped}`);
    const short: AttemptContext = { ...FIRST, lastMessage: `  ${'x'.repeat(600)}  ` };
    expect(buildHandoffPrompt('Task.', context([short]), CONTEXT_PATH).split('\n')).toContain(
      `  Last message: ${'x'.repeat(600)}`,
    );
  });
});

describe('describeOperation', () => {
  it('describes each kind of operation on one line', () => {
    expect(describeOperation({ kind: 'file_change', files: ['src/a.ts', 'src/b.ts'] })).toBe(
      'changed src/a.ts, src/b.ts',
    );
    expect(
      describeOperation({ kind: 'commit', command: 'git commit', ok: true, sha: 'abcdef0123', subject: 'Add week' }),
    ).toBe('commit abcdef0 "Add week"');
    expect(describeOperation({ kind: 'commit', command: 'git commit', ok: false, subject: 'x' })).toBe(
      'commit "x" (failed)',
    );
    expect(describeOperation({ kind: 'commit', command: 'git commit', ok: true })).toBe('commit');
    expect(
      describeOperation({ kind: 'push', command: 'git push', ok: true, remote: 'origin', branch: 'feature' }),
    ).toBe('push to origin/feature');
    expect(describeOperation({ kind: 'push', command: 'git push', ok: false })).toBe('push (failed)');
    expect(
      describeOperation({
        kind: 'pull_request',
        command: 'gh pr create',
        ok: true,
        url: 'https://x/pull/3',
        number: 3,
      }),
    ).toBe('pull request https://x/pull/3');
    expect(describeOperation({ kind: 'pull_request', command: 'gh pr create', ok: false })).toBe(
      'pull request (failed)',
    );
    expect(
      describeOperation({ kind: 'test_run', command: 'npm test', passed: false, counts: { passed: 3, failed: 1 } }),
    ).toBe('tests `npm test` failed (3 passed, 1 failed)');
    expect(describeOperation({ kind: 'test_run', command: 'pytest', passed: true })).toBe('tests `pytest` passed');
    expect(describeOperation({ kind: 'test_run', command: 'pytest', passed: true, counts: {} })).toBe(
      'tests `pytest` passed',
    );
  });
});
