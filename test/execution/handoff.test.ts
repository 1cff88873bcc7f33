import { describe, expect, it } from 'vitest';
import type { AttemptContext, ExecutionContext } from '../../src/execution/context-schema.js';
import { buildHandoffPrompt, CONTEXT_LINE_PREFIX } from '../../src/execution/handoff.js';

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
      reported: { status: 'completed', by: 'claude-code plan' },
      filesChanged: ['src/week.js', 'src/date.js'],
      commits: [{ sha: 'aaaaaaa1111111111111111111111111111111111', subject: 'Add ISO week parsing' }],
      push: { remote: 'origin', branch: BRANCH, sha: 'aaaaaaa1111111111111111111111111111111111' },
      testRuns: [{ command: 'npm test', passed: true, counts: { passed: 4 } }],
    },
    {
      text: 'Add tests',
      reported: { status: 'in_progress', by: 'claude-code plan' },
      testRuns: [{ command: 'npx vitest run', passed: false, exitCode: 1 }],
      tried: [
        {
          kind: 'push',
          command: 'git push origin HEAD',
          exitCode: 128,
          error: "fatal: 'origin' does not appear to be a git repository",
          why: 'failed (exit 128)',
        },
      ],
    },
    {
      text: 'Open a pull request',
      reported: { status: 'completed', by: 'claude-code plan' },
      unconfirmed: 'HarmFlow saw no pull request opened by this attempt',
    },
  ],
  workspace: {
    head: 'aaaaaaa1111111111111111111111111111111111',
    uncommittedFiles: ['test/week.test.js'],
    commits: [{ sha: 'aaaaaaa1111111111111111111111111111111111', subject: 'Add ISO week parsing' }],
    remote: { remote: 'origin', branch: BRANCH, sha: 'aaaaaaa1111111111111111111111111111111111' },
  },
};

const context = (attempts: AttemptContext[]): ExecutionContext => ({
  version: 2,
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
        "  Last message (claude-code's own words, not checked by HarmFlow): Parser done and pushed. Next: the tests.",
        '  Work items — the status is what claude-code reported in its plan; "HarmFlow saw" is what exit codes, the branch and the remote showed:',
        `  - "Parse ISO week dates": claude-code reported it completed. HarmFlow saw: files src/week.js, src/date.js; commits aaaaaaa "Add ISO week parsing"; pushed to origin/${BRANCH} at aaaaaaa; tests \`npm test\` passed (4 passed)`,
        `  - "Add tests": claude-code reported it in progress. HarmFlow saw: tests \`npx vitest run\` failed (exit 1); tried to push (\`git push origin HEAD\`); it failed (exit 128): fatal: 'origin' does not appear to be a git repository`,
        '  - "Open a pull request": claude-code reported it completed, but HarmFlow saw no pull request opened by this attempt — check before you rely on it',
        `  Workspace after it: 1 commit(s) on the branch, 1 uncommitted file(s), origin/${BRANCH} at aaaaaaa11111`,
        '',
        `HarmFlow context file: ${CONTEXT_PATH}`,
        '(JSON: for each earlier attempt, its work items: what its harness reported, kept apart from what HarmFlow saw — files changed, commits on the branch, pushes the remote holds, pull requests, test runs, what was tried and failed, and claims HarmFlow could not confirm.)',
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
    expect(lines.slice(next, next + 6)).toStrictEqual([
      'Attempt 2 — codex — ended rate_limited',
      '  Last recorded operation: pull request https://github.com/acme/app/pull/7',
      '  Work items — codex reported no plan; "HarmFlow saw" is what exit codes, the branch and the remote showed:',
      '  - "iso-week" (no plan reported): HarmFlow saw: pull request https://github.com/acme/app/pull/7',
      '  - "Plain item" (no plan reported)',
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
    expect(lines).toContain(`  Last message (claude-code's own words, not checked by HarmFlow): ${clipped}`);
    const short: AttemptContext = { ...FIRST, lastMessage: `  ${'x'.repeat(600)}  ` };
    expect(buildHandoffPrompt('Task.', context([short]), CONTEXT_PATH).split('\n')).toContain(
      `  Last message (claude-code's own words, not checked by HarmFlow): ${'x'.repeat(600)}`,
    );
  });
});
