import { describe, expect, it } from 'vitest';
import type { HarnessEvent, OperationData } from '../../src/events/schema.js';
import { type AttemptEnding, AttemptObserver, OUTSIDE_PLAN } from '../../src/execution/attempt-observer.js';
import type { WorkRecord } from '../../src/execution/work-items.js';
import type { WorkspaceSnapshot } from '../../src/workspace/inspect.js';
import type { RemoteBranch } from '../../src/workspace/remote.js';

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
  branch: 'feature',
  ...change,
});

function feed(observer: AttemptObserver, events: HarnessEvent[]) {
  return events.map((event) => observer.observe(event));
}

/**
 * Feeds `events` as the engine does and returns the attempt's records as the log then holds them:
 * each harness event, followed by the operations the engine recorded for it.
 */
function recorded(observer: AttemptObserver, events: HarnessEvent[]): WorkRecord[] {
  return events.flatMap((event): WorkRecord[] => [
    event,
    ...observer.observe(event).map((operation: OperationData) => ({ type: 'operation' as const, data: operation })),
  ]);
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
        command: 'git commit -m "Add week parsing"',
        ok: true,
        exitCode: 0,
        sha: 'abc1234',
        subject: 'Add week parsing',
        toolId: 't5',
      },
      { kind: 'push', command: 'git push -u origin HEAD', ok: true, remote: 'origin', branch: 'feature', toolId: 't6' },
      { kind: 'file_change', files: ['test/week.test.js'], toolId: 't7' },
      { kind: 'test_run', command: 'npx vitest run', passed: true, exitCode: 0, counts: { passed: 5 }, toolId: 't8' },
      {
        kind: 'commit',
        command: 'git commit -am "Test week parsing"',
        ok: true,
        sha: 'def5678',
        subject: 'Test week parsing',
        toolId: 't9',
      },
      { kind: 'push', command: 'git push', ok: true, branch: 'feature', sha: 'def5678', toolId: 't10' },
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

  it('credits operations to the item in progress and counts commits and pushes only when git shows them', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    const records = recorded(observer, events);
    const before = snapshot([EARLIER]);
    const after = snapshot([EARLIER, ABC, DEF], { branch: 'feature', sha: DEF.sha });
    expect(observer.summarize(ending({ before, after }), records)).toStrictEqual({
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
          reported: { status: 'completed', by: 'claude-code plan' },
          filesChanged: ['src/week.js'],
          commits: [ABC],
          // `* [new branch]` names no sha: the remote holds a commit of the branch, which confirms it.
          push: { remote: 'origin', branch: 'feature', sha: DEF.sha, observed: 'ls-remote' },
          testRuns: [{ command: 'npm test', passed: false, exitCode: 1, counts: { passed: 3, failed: 1 } }],
        },
        {
          text: ITEM_B,
          reported: { status: 'completed', by: 'claude-code plan' },
          filesChanged: ['test/week.test.js'],
          commits: [DEF],
          push: { remote: 'origin', branch: 'feature', sha: DEF.sha, observed: 'ls-remote' },
          testRuns: [{ command: 'npx vitest run', passed: true, exitCode: 0, counts: { passed: 5 } }],
        },
        {
          text: ITEM_C,
          reported: { status: 'completed', by: 'claude-code plan' },
          pullRequest: { url: 'https://github.com/acme/app/pull/9', number: 9 },
        },
      ],
      newCommits: [ABC, DEF],
      workspace: {
        head: DEF.sha,
        uncommittedFiles: [],
        commits: [EARLIER, ABC, DEF],
        remote: { remote: 'origin', branch: 'feature', sha: DEF.sha },
      },
    });
  });

  it('reads the plans and operations from the records, whoever recorded them (a hook, not the stream)', () => {
    // Gemini's stream says a failed shell call succeeded; its hook said exit 128 and the gates recorded that.
    const observer = new AttemptObserver('iso-week', WORKTREE);
    const records: WorkRecord[] = [
      plan('in_progress', 'pending', 'pending'),
      { type: 'operation', data: { kind: 'push', command: 'git push', ok: false, exitCode: 128, error: 'fatal: no' } },
    ];
    const summary = observer.summarize(ending({ after: snapshot([]) }), records);
    expect(summary.workItems[0]?.tried).toStrictEqual([
      { kind: 'push', command: 'git push', exitCode: 128, error: 'fatal: no', why: 'failed (exit 128)' },
    ]);
    expect(summary.lastOperation).toMatchObject({ kind: 'push', ok: false, exitCode: 128 });
  });

  it('lists no outside-plan item when every operation happened under a reported item', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    const records = recorded(observer, [
      plan('in_progress', 'pending', 'pending'),
      ...tool('t1', { files: ['a.js'] }, { ok: true }),
    ]);
    expect(observer.summarize(ending(), records).workItems).toStrictEqual([
      { text: ITEM_A, reported: { status: 'in_progress', by: 'claude-code plan' }, filesChanged: ['a.js'] },
      { text: ITEM_B, reported: { status: 'pending', by: 'claude-code plan' } },
      { text: ITEM_C, reported: { status: 'pending', by: 'claude-code plan' } },
    ]);
  });

  it('confirms a push to another branch by what that remote branch holds, and keeps it as tried when it holds nothing', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    const records = recorded(observer, [
      plan('in_progress', 'pending', 'pending'),
      ...tool('t1', { shell: 'git push origin other' }, { ok: true, exitCode: 0 }),
    ]);
    const after = snapshot([ABC], { branch: 'feature', sha: ABC.sha });
    const other: RemoteBranch = { remote: 'origin', branch: 'other', sha: ABC.sha, source: 'ls-remote' };
    const pushedBranches = new Map([[`origin\u0000other`, other]]);
    expect(
      observer.summarize(ending({ before: snapshot([]), after, pushedBranches }), records).workItems[0]?.push,
    ).toStrictEqual({ remote: 'origin', branch: 'other', sha: ABC.sha, observed: 'ls-remote' });
    const summary = observer.summarize(ending({ before: snapshot([]), after }), records);
    expect(summary.workItems[0]).not.toHaveProperty('push');
    expect(summary.workItems[0]?.tried).toStrictEqual([
      {
        kind: 'push',
        command: 'git push origin other',
        exitCode: 0,
        why: 'exited 0, but origin/other does not exist on the remote after the attempt',
      },
    ]);
  });
});

describe('AttemptObserver: what is tried and not done', () => {
  it('keeps a bare push that exited 0 as tried when the branch is on no remote after the attempt', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    const records = recorded(observer, tool('p1', { shell: 'git push' }, { ok: true, exitCode: 0 }));
    const item = observer.summarize(ending({ before: snapshot([]), after: snapshot([ABC]) }), records).workItems[0];
    expect(item?.push).toBeUndefined();
    expect(item?.tried).toStrictEqual([
      {
        kind: 'push',
        command: 'git push',
        exitCode: 0,
        why: 'exited 0, but feature is on no remote after the attempt',
      },
    ]);
  });

  it('keeps failed commits, pushes and pull requests with their exit codes and why, never as done', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    const records = recorded(observer, [
      plan('in_progress', 'pending', 'pending'),
      ...tool(
        'c1',
        { shell: 'git commit -m "Add week parsing"' },
        { ok: false, exitCode: 128, output: 'Author identity unknown\nfatal: unable to auto-detect email address' },
      ),
      ...tool(
        'p1',
        { shell: 'git push origin HEAD' },
        { ok: false, exitCode: 128, output: "fatal: 'origin' does not appear to be a git repository" },
      ),
      ...tool('r1', { shell: 'gh pr create --fill' }, { ok: false, exitCode: 1, output: 'gh: not logged in' }),
      ...tool('t1', { shell: 'npm test' }, { ok: false, exitCode: 1, output: '# fail 2' }),
    ]);
    const item = observer.summarize(ending({ before: snapshot([]), after: snapshot([]) }), records).workItems[0];
    expect(item).toStrictEqual({
      text: ITEM_A,
      reported: { status: 'in_progress', by: 'claude-code plan' },
      testRuns: [{ command: 'npm test', passed: false, exitCode: 1, counts: { failed: 2 } }],
      tried: [
        {
          kind: 'commit',
          command: 'git commit -m "Add week parsing"',
          exitCode: 128,
          error: 'Author identity unknown',
          why: 'failed (exit 128)',
        },
        {
          kind: 'push',
          command: 'git push origin HEAD',
          exitCode: 128,
          error: "fatal: 'origin' does not appear to be a git repository",
          why: 'failed (exit 128)',
        },
        {
          kind: 'pull_request',
          command: 'gh pr create --fill',
          exitCode: 1,
          error: 'gh: not logged in',
          why: 'failed (exit 1)',
        },
      ],
    });
  });

  it('keeps a commit git reported but the branch does not hold (reset away) as tried', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    const records = recorded(observer, [
      ...tool(
        'c1',
        { shell: 'git commit -m "Add week parsing"' },
        { ok: true, exitCode: 0, output: '[feature abc1234] Add week parsing' },
      ),
      ...tool('c2', { shell: 'git reset --hard HEAD~1' }, { ok: true, exitCode: 0 }),
    ]);
    const item = observer.summarize(ending({ before: snapshot([]), after: snapshot([]) }), records).workItems[0];
    expect(item?.commits).toBeUndefined();
    expect(item?.tried).toStrictEqual([
      {
        kind: 'commit',
        command: 'git commit -m "Add week parsing"',
        exitCode: 0,
        why: 'exited 0, but its commit abc1234 is not on the branch after the attempt',
      },
    ]);
  });
});

describe('AttemptObserver: claims without evidence', () => {
  const claims = (status: 'completed' | 'in_progress'): HarnessEvent => ({
    type: 'plan',
    data: {
      items: [
        { text: 'Write the parser', status: 'completed' },
        { text: 'Run the tests', status },
        { text: 'Commit and push', status },
        { text: 'Open a pull request', status },
      ],
    },
  });

  it('marks each completed item whose words name a commit, a push, a pull request or a test run HarmFlow did not see', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    const records = recorded(observer, [
      claims('in_progress'),
      ...tool('w1', { files: ['src/week.js'] }, { ok: true }),
      claims('completed'),
      { type: 'message', data: { text: 'Tested, committed, pushed and opened a pull request.' } },
    ]);
    const summary = observer.summarize(ending({ before: snapshot([]), after: snapshot([]) }), records);
    expect(summary.workItems).toStrictEqual([
      { text: 'Write the parser', reported: { status: 'completed', by: 'claude-code plan' } },
      {
        text: 'Run the tests',
        reported: { status: 'completed', by: 'claude-code plan' },
        filesChanged: ['src/week.js'],
        unconfirmed: 'HarmFlow saw no test run in this attempt',
      },
      {
        text: 'Commit and push',
        reported: { status: 'completed', by: 'claude-code plan' },
        unconfirmed: 'HarmFlow saw no commit made by this attempt; nothing pushed by this attempt',
      },
      {
        text: 'Open a pull request',
        reported: { status: 'completed', by: 'claude-code plan' },
        unconfirmed: 'HarmFlow saw no pull request opened by this attempt',
      },
    ]);
    // The harness's words are kept as its words.
    expect(summary.lastMessage).toBe('Tested, committed, pushed and opened a pull request.');
  });

  it('names the failed try when the claim is contradicted, and does not judge items still in progress', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    const records = recorded(observer, [
      claims('in_progress'),
      ...tool('p1', { shell: 'git push origin HEAD' }, { ok: false, exitCode: 128, output: 'fatal: denied' }),
      ...tool('t1', { shell: 'npm test' }, { ok: false, exitCode: 1 }),
    ]);
    const inProgress = observer.summarize(ending({ after: snapshot([]) }), records).workItems;
    expect(inProgress.some((item) => item.unconfirmed !== undefined)).toBe(false);
    const done = observer.summarize(ending({ after: snapshot([]) }), [...records, claims('completed')]).workItems;
    expect(done.find((item) => item.text === 'Commit and push')?.unconfirmed).toBe(
      'HarmFlow saw no commit made by this attempt; nothing pushed by this attempt: `git push origin HEAD` failed (exit 128): fatal: denied',
    );
    expect(done.find((item) => item.text === 'Run the tests')?.unconfirmed).toBe(
      'HarmFlow saw no passing test run in this attempt: `npm test` failed (exit 1)',
    );
  });

  it('takes a commit and a push seen on the workspace as evidence, whichever item made them', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    const records = recorded(observer, [claims('completed')]);
    const summary = observer.summarize(
      ending({ before: snapshot([]), after: snapshot([ABC], { branch: 'feature', sha: ABC.sha }) }),
      records,
    );
    expect(summary.workItems.find((item) => item.text === 'Commit and push')).not.toHaveProperty('unconfirmed');
  });
});

describe('AttemptObserver without a plan', () => {
  it('puts everything under one item named after the task, with the commits git saw', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    const records = recorded(observer, [
      { type: 'session.started', data: { sessionId: 'thread-1' } },
      ...tool('i1', { name: 'apply_patch', files: [`${WORKTREE}/src/week.js`, 'src/date.js'] }, { ok: true }),
      ...tool('i2', { name: 'apply_patch', files: ['src/broken.js'] }, { ok: false }),
      ...tool('i3', { shell: 'git commit -m "nothing"' }, { ok: false, exitCode: 1, output: 'nothing to commit' }),
      ...tool(
        'i4',
        { shell: 'git commit -m "Add week parsing"' },
        { ok: true, exitCode: 0, output: '[feature abc1234] Add week parsing' },
      ),
      ...tool('i5', { shell: 'sh scripts/release.sh' }, { ok: true }),
      ...tool('i6', { shell: 'git push origin feature' }, { ok: true, exitCode: 0 }),
      ...tool('i7', { shell: 'gh pr create --fill' }, { ok: false, exitCode: 4, output: 'gh: not logged in' }),
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
      records,
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
      lastOperation: {
        kind: 'pull_request',
        command: 'gh pr create --fill',
        ok: false,
        exitCode: 4,
        error: 'gh: not logged in',
        toolId: 'i7',
      },
      workItems: [
        {
          text: 'iso-week',
          filesChanged: ['src/week.js', 'src/date.js'],
          commits: [ABC, FFF],
          push: { remote: 'origin', branch: 'feature', sha: FFF.sha, observed: 'ls-remote' },
          tried: [
            {
              kind: 'commit',
              command: 'git commit -m "nothing"',
              exitCode: 1,
              error: 'nothing to commit',
              why: 'failed (exit 1)',
            },
            {
              kind: 'pull_request',
              command: 'gh pr create --fill',
              exitCode: 4,
              error: 'gh: not logged in',
              why: 'failed (exit 4)',
            },
          ],
        },
      ],
      newCommits: [ABC, FFF],
      workspace: {
        head: FFF.sha,
        uncommittedFiles: [],
        commits: [EARLIER, ABC, FFF],
        remote: { remote: 'origin', branch: 'feature', sha: FFF.sha },
      },
    });
    expect(summary.workItems[0]).not.toHaveProperty('reported');
    expect(summary.workItems[0]).not.toHaveProperty('unconfirmed');
    expect(summary).not.toHaveProperty('lastMessage');
  });

  it('counts nothing as done when the workspace could not be inspected, and says so', () => {
    const observer = new AttemptObserver('iso-week', WORKTREE);
    const records = recorded(observer, [
      ...tool(
        'i1',
        { shell: 'git commit -m "Add week parsing"' },
        { ok: true, exitCode: 0, output: '[feature abc1234] Add week parsing' },
      ),
      ...tool('i2', { shell: 'git push' }, { ok: true, exitCode: 0, output: 'Everything up-to-date' }),
    ]);
    const summary = observer.summarize(ending(), records);
    expect(summary).toStrictEqual({
      number: 2,
      harness: 'claude-code',
      model: 'claude-sonnet-4-5',
      simulated: false,
      outcome: 'completed',
      startedAt: '2025-03-01T10:00:00.000Z',
      endedAt: '2025-03-01T10:20:00.000Z',
      lastOperation: { kind: 'push', command: 'git push', ok: true, exitCode: 0, toolId: 'i2' },
      workItems: [
        {
          text: 'iso-week',
          tried: [
            {
              kind: 'commit',
              command: 'git commit -m "Add week parsing"',
              exitCode: 0,
              why: 'exited 0, but the workspace could not be inspected to confirm it',
            },
            {
              kind: 'push',
              command: 'git push',
              exitCode: 0,
              why: 'exited 0, but the workspace could not be inspected to confirm it',
            },
          ],
        },
      ],
    });
  });

  it('names the single item after the task even when nothing happened', () => {
    const observer = new AttemptObserver('fix-dates', WORKTREE);
    const summary = observer.summarize(
      {
        number: 1,
        harness: 'codex',
        simulated: true,
        outcome: 'failed',
        startedAt: '2025-03-01T10:00:00.000Z',
        endedAt: '2025-03-01T10:00:05.000Z',
        branch: 'harmflow/fix-dates-01',
      },
      [],
    );
    expect(summary.workItems).toStrictEqual([{ text: 'fix-dates' }]);
    expect(summary).not.toHaveProperty('model');
    expect(summary).not.toHaveProperty('lastOperation');
    expect(summary).not.toHaveProperty('sessionId');
  });
});
