import { describe, expect, it } from 'vitest';
import type { HarnessEvent } from '../../src/events/schema.js';
import { type AttemptEnding, AttemptObserver, OUTSIDE_PLAN } from '../../src/execution/attempt-observer.js';
import type { WorkspaceSnapshot } from '../../src/workspace/inspect.js';

const WORKTREE = '/home/u/.harmflow/worktrees/01jf3k';
const EARLIER = { sha: 'e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0', subject: 'Earlier attempt’s work' };
const ABC = { sha: 'abc1234000000000000000000000000000000000', subject: 'Add week parsing' };
const DEF = { sha: 'def5678000000000000000000000000000000000', subject: 'Test week parsing' };
const FFF = { sha: 'fff0000000000000000000000000000000000000', subject: 'Commit made by a script' };

const ITEM_A = 'Parse ISO week dates';
const ITEM_B = 'Add tests';
const ITEM_C = 'Open a pull request';

/** Builds the events of one tool call and its result. */
function tool(
  id: string,
  call: { shell?: string; files?: string[]; name?: string },
  result: { ok: boolean; output?: string; exitCode?: number },
): HarnessEvent[] {
  return [
    {
      type: 'tool.call',
      data: {
        id,
        name: call.name ?? (call.shell !== undefined ? 'Bash' : 'Write'),
        input: {},
        ...(call.shell !== undefined && { shell: call.shell }),
        ...(call.files !== undefined && { files: call.files }),
      },
    },
    { type: 'tool.result', data: { id, ...result } },
  ];
}

const plan = (a: string, b: string, c: string): HarnessEvent => ({
  type: 'plan',
  data: {
    items: [
      { text: ITEM_A, status: a as 'pending' },
      { text: ITEM_B, status: b as 'pending' },
      { text: ITEM_C, status: c as 'pending' },
    ],
  },
});

const snapshot = (commits: { sha: string; subject: string }[], remote?: { branch: string; sha: string }) =>
  ({
    head: commits.at(-1)?.sha ?? 'base',
    changedFiles: [],
    commits,
    ...(remote && { remote: { remote: 'origin', ...remote, source: 'ls-remote' as const } }),
    durationMs: 12,
  }) satisfies WorkspaceSnapshot;

const ending = (change: Partial<AttemptEnding> = {}): AttemptEnding => ({
  number: 2,
  harness: 'claude-code',
  model: 'claude-sonnet-4-5',
  simulated: false,
  outcome: 'completed',
  startedAt: '2025-03-01T10:00:00.000Z',
  endedAt: '2025-03-01T10:20:00.000Z',
  ...change,
});

function feed(observer: AttemptObserver, events: HarnessEvent[]) {
  return events.map((event) => observer.observe(event));
}

describe('AttemptObserver with a reported plan', () => {
  const events: HarnessEvent[] = [
    { type: 'session.started', data: { sessionId: 'sess-1', model: 'claude-opus-4-1' } },
    ...tool('t0', { shell: 'ls' }, { ok: true, output: 'src\n' }),
    ...tool('t1', { files: [`${WORKTREE}/NOTES.md`] }, { ok: true }),
    plan('in_progress', 'pending', 'pending'),
    ...tool('t2', { files: [`${WORKTREE}/src/week.js`] }, { ok: true }),
    ...tool('t3', { shell: 'npm test' }, { ok: false, exitCode: 1, output: 'Tests  3 passed | 1 failed (4)\n' }),
    ...tool('t4', { name: 'Edit', files: ['src/week.js'] }, { ok: true }),
    ...tool(
      't5',
      { shell: 'git add -A && git commit -m "Add week parsing"' },
      { ok: true, exitCode: 0, output: '[feature abc1234] Add week parsing\n 1 file changed' },
    ),
    ...tool('t6', { shell: 'git push -u origin HEAD' }, { ok: true, output: ' * [new branch]      HEAD -> feature\n' }),
    plan('completed', 'in_progress', 'pending'),
    { type: 'message', data: { text: 'Parser pushed; tests next.' } },
    { type: 'usage', data: { inputTokens: 100, outputTokens: 20, costUsd: 0.01 } },
    ...tool('t7', { files: [`${WORKTREE}/test/week.test.js`] }, { ok: true }),
    ...tool('t8', { shell: 'npx vitest run' }, { ok: true, exitCode: 0, output: 'Tests  5 passed (5)\n' }),
    ...tool(
      't9',
      { shell: 'git commit -am "Test week parsing"' },
      { ok: true, output: '[feature def5678] Test week parsing' },
    ),
    ...tool('t10', { shell: 'git push' }, { ok: true, output: '   abc1234..def5678  feature -> feature\n' }),
    plan('completed', 'completed', 'in_progress'),
    ...tool('t11', { shell: 'gh pr create --fill' }, { ok: true, output: 'https://github.com/acme/app/pull/9\n' }),
    plan('completed', 'completed', 'completed'),
    ...tool('t12', { files: [`${WORKTREE}/CHANGELOG.md`] }, { ok: true }),
    { type: 'tool.call', data: { id: 't13', name: 'Bash', input: {}, shell: 'git push' } },
    { type: 'tool.result', data: { id: 'never-called', ok: true } },
    { type: 'usage', data: { inputTokens: 50, outputTokens: 5, costUsd: 0.02 } },
    { type: 'message', data: { text: 'All done: pull request #9.' } },
  ];

  it('returns the operations each event completed, with file paths relative to the worktree', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    const found = feed(observer, events).flat();
    expect(found).toStrictEqual([
      { kind: 'file_change', files: ['NOTES.md'], toolId: 't1' },
      { kind: 'file_change', files: ['src/week.js'], toolId: 't2' },
      {
        kind: 'test_run',
        command: 'npm test',
        passed: false,
        exitCode: 1,
        counts: { passed: 3, failed: 1 },
        toolId: 't3',
      },
      { kind: 'file_change', files: ['src/week.js'], toolId: 't4' },
      {
        kind: 'commit',
        command: 'git commit -m Add week parsing',
        ok: true,
        sha: 'abc1234',
        subject: 'Add week parsing',
        toolId: 't5',
      },
      { kind: 'push', command: 'git push -u origin HEAD', ok: true, remote: 'origin', branch: 'feature', toolId: 't6' },
      { kind: 'file_change', files: ['test/week.test.js'], toolId: 't7' },
      { kind: 'test_run', command: 'npx vitest run', passed: true, exitCode: 0, counts: { passed: 5 }, toolId: 't8' },
      {
        kind: 'commit',
        command: 'git commit -am Test week parsing',
        ok: true,
        sha: 'def5678',
        subject: 'Test week parsing',
        toolId: 't9',
      },
      { kind: 'push', command: 'git push', ok: true, branch: 'feature', toolId: 't10' },
      {
        kind: 'pull_request',
        command: 'gh pr create --fill',
        ok: true,
        url: 'https://github.com/acme/app/pull/9',
        number: 9,
        toolId: 't11',
      },
      { kind: 'file_change', files: ['CHANGELOG.md'], toolId: 't12' },
    ]);
  });

  it('keeps the session, the model it reported, the last message and the summed usage', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    feed(observer, events);
    expect(observer.sessionId).toBe('sess-1');
    expect(observer.model).toBe('claude-opus-4-1');
    expect(observer.lastMessage).toBe('All done: pull request #9.');
    expect(observer.usage).toStrictEqual({ inputTokens: 150, outputTokens: 25, costUsd: 0.03 });
  });

  it('attributes operations to the item in progress, the rest to the outside-plan item, and resolves shas from git', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    feed(observer, events);
    const before = snapshot([EARLIER]);
    const after = snapshot([EARLIER, ABC, DEF], { branch: 'feature', sha: DEF.sha });
    expect(observer.summarize(ending({ before, after }))).toStrictEqual({
      number: 2,
      harness: 'claude-code',
      model: 'claude-opus-4-1',
      simulated: false,
      outcome: 'completed',
      startedAt: '2025-03-01T10:00:00.000Z',
      endedAt: '2025-03-01T10:20:00.000Z',
      sessionId: 'sess-1',
      lastOperation: { kind: 'file_change', files: ['CHANGELOG.md'], toolId: 't12' },
      lastMessage: 'All done: pull request #9.',
      workItems: [
        { text: OUTSIDE_PLAN, filesChanged: ['NOTES.md', 'CHANGELOG.md'] },
        {
          text: ITEM_A,
          status: 'completed',
          filesChanged: ['src/week.js'],
          commits: [ABC],
          push: { remote: 'origin', branch: 'feature' },
          testRuns: [{ command: 'npm test', passed: false, counts: { passed: 3, failed: 1 } }],
        },
        {
          text: ITEM_B,
          status: 'completed',
          filesChanged: ['test/week.test.js'],
          commits: [DEF],
          push: { remote: 'origin', branch: 'feature', sha: DEF.sha },
          testRuns: [{ command: 'npx vitest run', passed: true, counts: { passed: 5 } }],
        },
        {
          text: ITEM_C,
          status: 'completed',
          pullRequest: { url: 'https://github.com/acme/app/pull/9', number: 9 },
        },
      ],
      newCommits: [ABC, DEF],
      workspace: {
        head: DEF.sha,
        uncommittedFiles: [],
        commits: [EARLIER, ABC, DEF],
        remote: { remote: 'origin', branch: 'feature', sha: DEF.sha, source: 'ls-remote' },
      },
    });
  });

  it('lists no outside-plan item when every operation happened under a reported item', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    feed(observer, [plan('in_progress', 'pending', 'pending'), ...tool('t1', { files: ['a.js'] }, { ok: true })]);
    expect(observer.summarize(ending()).workItems).toStrictEqual([
      { text: ITEM_A, status: 'in_progress', filesChanged: ['a.js'] },
      { text: ITEM_B, status: 'pending' },
      { text: ITEM_C, status: 'pending' },
    ]);
  });

  it('takes the pushed sha from git only for the branch git saw on the remote', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    feed(observer, [
      plan('in_progress', 'pending', 'pending'),
      ...tool('t1', { shell: 'git push origin other' }, { ok: true }),
    ]);
    const after = snapshot([ABC], { branch: 'feature', sha: ABC.sha });
    expect(observer.summarize(ending({ before: snapshot([]), after })).workItems[0]?.push).toStrictEqual({
      remote: 'origin',
      branch: 'other',
    });
  });
});

describe('AttemptObserver without a plan', () => {
  it('puts everything under one item named after the task, with the commits git saw', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    feed(observer, [
      { type: 'session.started', data: { sessionId: 'thread-1' } },
      ...tool('i1', { name: 'apply_patch', files: [`${WORKTREE}/src/week.js`, 'src/date.js'] }, { ok: true }),
      ...tool('i2', { name: 'apply_patch', files: ['src/broken.js'] }, { ok: false }),
      ...tool('i3', { shell: 'git commit -m "nothing"' }, { ok: false, output: 'nothing to commit' }),
      ...tool(
        'i4',
        { shell: 'git commit -m "Add week parsing"' },
        { ok: true, output: '[feature abc1234] Add week parsing' },
      ),
      ...tool('i5', { shell: 'sh scripts/release.sh' }, { ok: true }),
      ...tool('i6', { shell: 'git push origin feature' }, { ok: true }),
      ...tool('i7', { shell: 'gh pr create --fill' }, { ok: false, output: 'gh: not logged in' }),
    ]);
    const before = snapshot([EARLIER]);
    const after = snapshot([EARLIER, ABC, FFF], { branch: 'feature', sha: FFF.sha });
    const summary = observer.summarize(
      ending({
        harness: 'codex',
        model: 'gpt-5.5',
        outcome: 'quota_exhausted',
        message: 'Quota exceeded',
        resetsAt: '2025-03-01T15:00:00.000Z',
        before,
        after,
      }),
    );
    expect(summary).toStrictEqual({
      number: 2,
      harness: 'codex',
      model: 'gpt-5.5',
      simulated: false,
      outcome: 'quota_exhausted',
      message: 'Quota exceeded',
      startedAt: '2025-03-01T10:00:00.000Z',
      endedAt: '2025-03-01T10:20:00.000Z',
      sessionId: 'thread-1',
      resetsAt: '2025-03-01T15:00:00.000Z',
      lastOperation: { kind: 'pull_request', command: 'gh pr create --fill', ok: false, toolId: 'i7' },
      workItems: [
        {
          text: 'iso-week',
          filesChanged: ['src/week.js', 'src/date.js'],
          commits: [ABC, FFF],
          push: { remote: 'origin', branch: 'feature', sha: FFF.sha },
        },
      ],
      newCommits: [ABC, FFF],
      workspace: {
        head: FFF.sha,
        uncommittedFiles: [],
        commits: [EARLIER, ABC, FFF],
        remote: { remote: 'origin', branch: 'feature', sha: FFF.sha, source: 'ls-remote' },
      },
    });
    expect(summary.workItems[0]).not.toHaveProperty('status');
    expect(summary.workItems[0]).not.toHaveProperty('pullRequest');
    expect(summary.workItems[0]).not.toHaveProperty('testRuns');
    expect(summary).not.toHaveProperty('lastMessage');
  });

  it('keeps what the harness reported when the workspace could not be inspected', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    feed(observer, [
      ...tool(
        'i1',
        { shell: 'git commit -m "Add week parsing"' },
        { ok: true, output: '[feature abc1234] Add week parsing' },
      ),
      ...tool('i2', { shell: 'git push' }, { ok: true, output: 'Everything up-to-date' }),
    ]);
    const summary = observer.summarize(ending());
    expect(summary).toStrictEqual({
      number: 2,
      harness: 'claude-code',
      model: 'claude-sonnet-4-5',
      simulated: false,
      outcome: 'completed',
      startedAt: '2025-03-01T10:00:00.000Z',
      endedAt: '2025-03-01T10:20:00.000Z',
      lastOperation: { kind: 'push', command: 'git push', ok: true, toolId: 'i2' },
      workItems: [{ text: 'iso-week', commits: [{ sha: 'abc1234', subject: 'Add week parsing' }] }],
    });
  });

  it('names the single item after the task even when nothing happened', () => {
    const observer = new AttemptObserver('fix-dates', WORKTREE);
    const summary = observer.summarize({
      number: 1,
      harness: 'codex',
      simulated: true,
      outcome: 'failed',
      startedAt: '2025-03-01T10:00:00.000Z',
      endedAt: '2025-03-01T10:00:05.000Z',
    });
    expect(summary.workItems).toStrictEqual([{ text: 'fix-dates' }]);
    expect(summary).not.toHaveProperty('model');
    expect(summary).not.toHaveProperty('lastOperation');
    expect(summary).not.toHaveProperty('sessionId');
  });
});
