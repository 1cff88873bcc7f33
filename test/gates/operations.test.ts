import { describe, expect, it } from 'vitest';
import { operationsGate } from '../../src/gates/builtin/operations.js';
import { claudeHookDialect } from '../../src/harnesses/claude-code/hook-dialect.js';
import { bash, WORKTREE, write } from './fixture.js';

/** A PostToolUse hook input for a Bash call, in the shape Claude Code sends. */
const postBash = (command: string, stdout: string) =>
  JSON.stringify({
    session_id: 's1',
    cwd: WORKTREE,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: 'toolu_07',
    tool_response: { stdout, stderr: '', interrupted: false, isImage: false },
  });

const fromHook = (text: string) => {
  const hook = claudeHookDialect.parse('PostToolUse', text);
  if (hook.event !== 'PostToolUse') throw new Error('expected a PostToolUse input');
  return operationsGate(hook.call, hook.result, { worktree: WORKTREE });
};

describe('operations gate (the engine’s recognizer behind a gate’s call and result)', () => {
  it('reads a commit with its sha and subject from a hook’s Bash result', () => {
    expect(
      fromHook(postBash('git add -A && git commit -m "Fix dates"', '[harmflow/x 1a2b3c4] Fix dates\n 1 file changed')),
    ).toStrictEqual([
      {
        kind: 'commit',
        command: 'git commit -m "Fix dates"',
        ok: true,
        sha: '1a2b3c4',
        subject: 'Fix dates',
        toolId: 'toolu_07',
      },
    ]);
  });

  it('reads a push, a pull request with its URL and number, and a test run with counts', () => {
    const output = [
      'To github.com:acme/dates.git',
      ' * [new branch]      HEAD -> harmflow/x',
      'https://github.com/acme/dates/pull/42',
    ].join('\n');
    expect(fromHook(postBash('git push -u origin HEAD && gh pr create --fill', output))).toStrictEqual([
      {
        kind: 'push',
        command: 'git push -u origin HEAD',
        ok: true,
        remote: 'origin',
        branch: 'harmflow/x',
        toolId: 'toolu_07',
      },
      {
        kind: 'pull_request',
        command: 'gh pr create --fill',
        ok: true,
        url: 'https://github.com/acme/dates/pull/42',
        number: 42,
        toolId: 'toolu_07',
      },
    ]);
    expect(
      fromHook(postBash('npx vitest run', ' Test Files  3 passed (3)\n      Tests  41 passed | 2 skipped (43)')),
    ).toStrictEqual([
      {
        kind: 'test_run',
        command: 'npx vitest run',
        passed: true,
        counts: { passed: 41, skipped: 2 },
        toolId: 'toolu_07',
      },
    ]);
  });

  it('records a failed test run from an exit code a harness reported', () => {
    expect(
      operationsGate(
        bash('pytest -q'),
        { ok: false, exitCode: 1, output: '2 failed, 5 passed in 0.4s' },
        { worktree: WORKTREE },
      ),
    ).toStrictEqual([
      {
        kind: 'test_run',
        command: 'pytest -q',
        passed: false,
        exitCode: 1,
        counts: { passed: 5, failed: 2 },
        toolId: 'toolu_01',
      },
    ]);
  });

  it('records a file change relative to the worktree, and nothing for a failed write', () => {
    expect(operationsGate(write(`${WORKTREE}/src/a b.ts`), { ok: true }, { worktree: WORKTREE })).toStrictEqual([
      { kind: 'file_change', files: ['src/a b.ts'], toolId: 'toolu_02' },
    ]);
    expect(operationsGate(write(`${WORKTREE}/a.ts`), { ok: false }, { worktree: WORKTREE })).toStrictEqual([]);
  });

  it('leaves toolId out when the call had no id, and finds nothing in a plain command', () => {
    const { id: _, ...withoutId } = bash('git commit -m wip');
    expect(operationsGate(withoutId, { ok: true, output: '[b 1234567] wip' }, { worktree: WORKTREE })).toStrictEqual([
      { kind: 'commit', command: 'git commit -m wip', ok: true, sha: '1234567', subject: 'wip' },
    ]);
    expect(operationsGate(bash('ls -la'), { ok: true, output: 'total 0' }, { worktree: WORKTREE })).toStrictEqual([]);
  });
});
