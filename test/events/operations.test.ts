import { describe, expect, it } from 'vitest';
import { operationsOf, shellSegments, testCounts } from '../../src/events/operations.js';

/** The commands of a command line, as parsed (quotes removed). */
const splitShell = (command: string) => shellSegments(command).map((segment) => segment.text);

import type { EventData } from '../../src/events/schema.js';

type ToolCall = EventData<'tool.call'>;
type ToolResult = EventData<'tool.result'>;

/** A Claude Code `Bash` call, as its adapter normalizes it. */
const bash = (command: string, id = 'toolu_01'): ToolCall => ({
  id,
  name: 'Bash',
  input: { command, description: 'run it' },
  shell: command,
});

/** A Codex `command_execution` item, as its adapter normalizes it (the bash -lc wrapper removed). */
const codexShell = (command: string, id = 'item_3'): ToolCall => ({
  id,
  name: 'shell',
  input: { command: `/bin/bash -lc '${command}'` },
  shell: command,
});

const ok = (output: string, id = 'toolu_01'): ToolResult => ({ id, ok: true, exitCode: 0, output });
const failed = (output: string, exitCode = 1, id = 'toolu_01'): ToolResult => ({ id, ok: false, exitCode, output });

describe('operationsOf: commits', () => {
  it('reads the sha and subject git reports, after a git add in the same command', () => {
    expect(
      operationsOf(
        bash("git add -A && git commit -m 'msg'"),
        ok('[feature abc1234] msg\n 1 file changed, 2 insertions(+)\n'),
      ),
    ).toStrictEqual([
      {
        kind: 'commit',
        command: "git commit -m 'msg'",
        ok: true,
        exitCode: 0,
        sha: 'abc1234',
        subject: 'msg',
        toolId: 'toolu_01',
      },
    ]);
  });

  it('reads the same from a Codex shell call, and a root commit on a branch with a slash', () => {
    expect(
      operationsOf(
        codexShell('git commit -am "Add ISO week parsing"', 'item_7'),
        ok('[harmflow/iso-week-01jf3k (root-commit) 0123456789ab] Add ISO week parsing\n', 'item_7'),
      ),
    ).toStrictEqual([
      {
        kind: 'commit',
        command: 'git commit -am "Add ISO week parsing"',
        ok: true,
        exitCode: 0,
        sha: '0123456789ab',
        subject: 'Add ISO week parsing',
        toolId: 'item_7',
      },
    ]);
  });

  it('records a failed commit as not ok, with the subject from -m and no sha', () => {
    expect(operationsOf(bash('git commit -m "x"'), failed('nothing to commit, working tree clean'))).toStrictEqual([
      {
        kind: 'commit',
        command: 'git commit -m "x"',
        ok: false,
        exitCode: 1,
        error: 'nothing to commit, working tree clean',
        subject: 'x',
        toolId: 'toolu_01',
      },
    ]);
  });

  it('takes the subject from -m up to the next option when git printed nothing', () => {
    expect(operationsOf(bash('git commit -m "Add tests" --quiet'), ok(''))).toStrictEqual([
      {
        kind: 'commit',
        command: 'git commit -m "Add tests" --quiet',
        ok: true,
        exitCode: 0,
        subject: 'Add tests',
        toolId: 'toolu_01',
      },
    ]);
  });

  it('finds the verb after git global options that take a value', () => {
    expect(
      operationsOf(bash('git -C /work/tree -c commit.gpgsign=false commit -m wip'), ok('[main 1234567] wip')),
    ).toStrictEqual([
      {
        kind: 'commit',
        command: 'git -C /work/tree -c commit.gpgsign=false commit -m wip',
        ok: true,
        exitCode: 0,
        sha: '1234567',
        subject: 'wip',
        toolId: 'toolu_01',
      },
    ]);
  });
});

describe('operationsOf: pushes', () => {
  it('reads the branch git reports for `git push -u origin HEAD`', () => {
    const output = [
      'To /tmp/origin.git',
      ' * [new branch]      HEAD -> feature',
      "branch 'feature' set up to track 'origin/feature'.",
    ].join('\n');
    expect(operationsOf(bash('git push -u origin HEAD'), ok(output))).toStrictEqual([
      {
        kind: 'push',
        command: 'git push -u origin HEAD',
        ok: true,
        exitCode: 0,
        remote: 'origin',
        branch: 'feature',
        toolId: 'toolu_01',
      },
    ]);
  });

  it('takes the branch from the command when git printed nothing', () => {
    expect(operationsOf(codexShell('git push origin feature', 'item_1'), ok('', 'item_1'))).toStrictEqual([
      {
        kind: 'push',
        command: 'git push origin feature',
        ok: true,
        exitCode: 0,
        remote: 'origin',
        branch: 'feature',
        toolId: 'item_1',
      },
    ]);
    expect(operationsOf(bash('git push origin HEAD:refs/heads/feat'), ok(''))).toStrictEqual([
      {
        kind: 'push',
        command: 'git push origin HEAD:refs/heads/feat',
        ok: true,
        exitCode: 0,
        remote: 'origin',
        branch: 'feat',
        toolId: 'toolu_01',
      },
    ]);
    expect(operationsOf(bash('git -C /w push --force-with-lease origin topic'), ok(''))).toStrictEqual([
      {
        kind: 'push',
        command: 'git -C /w push --force-with-lease origin topic',
        ok: true,
        exitCode: 0,
        remote: 'origin',
        branch: 'topic',
        toolId: 'toolu_01',
      },
    ]);
  });

  it('leaves out what neither the command nor the output tells', () => {
    expect(operationsOf(bash('git push'), ok('Everything up-to-date'))).toStrictEqual([
      { kind: 'push', command: 'git push', ok: true, exitCode: 0, toolId: 'toolu_01' },
    ]);
    expect(operationsOf(bash('git push origin HEAD'), failed('fatal: could not read from remote', 128))).toStrictEqual([
      {
        kind: 'push',
        command: 'git push origin HEAD',
        ok: false,
        exitCode: 128,
        error: 'fatal: could not read from remote',
        remote: 'origin',
        toolId: 'toolu_01',
      },
    ]);
  });
});

describe('operationsOf: pull requests', () => {
  it('reads the url and number gh prints', () => {
    expect(
      operationsOf(
        bash('gh pr create --title t --body b'),
        ok('Creating pull request\nhttps://github.com/acme/app/pull/42\n'),
      ),
    ).toStrictEqual([
      {
        kind: 'pull_request',
        command: 'gh pr create --title t --body b',
        ok: true,
        exitCode: 0,
        url: 'https://github.com/acme/app/pull/42',
        number: 42,
        toolId: 'toolu_01',
      },
    ]);
  });

  it('is not ok when gh failed or printed no url', () => {
    expect(operationsOf(bash('gh pr create --fill'), failed('a pull request already exists'))).toStrictEqual([
      {
        kind: 'pull_request',
        command: 'gh pr create --fill',
        ok: false,
        exitCode: 1,
        error: 'a pull request already exists',
        toolId: 'toolu_01',
      },
    ]);
    expect(operationsOf(bash('gh pr create --fill'), ok('done'))).toStrictEqual([
      { kind: 'pull_request', command: 'gh pr create --fill', ok: false, exitCode: 0, toolId: 'toolu_01' },
    ]);
  });

  it('says why from the line git or gh gives it, not the first line it printed', () => {
    const rejected = [
      'To /srv/origin.git',
      ' ! [rejected]        feature -> feature (fetch first)',
      "error: failed to push some refs to '/srv/origin.git'",
    ].join('\n');
    expect(operationsOf(bash('git push origin feature'), failed(rejected, 1))[0]).toMatchObject({
      ok: false,
      exitCode: 1,
      error: '! [rejected]        feature -> feature (fetch first)',
    });
    const identity = [
      'Author identity unknown',
      '',
      '*** Please tell me who you are.',
      "fatal: unable to auto-detect email address (got 'root@box.(none)')",
    ].join('\n');
    expect(operationsOf(bash('git commit -m x'), failed(identity, 128))[0]).toMatchObject({
      exitCode: 128,
      error: 'Author identity unknown',
    });
    const clean = 'On branch feature\nnothing to commit, working tree clean';
    expect(operationsOf(bash('git commit -m x'), failed(clean))[0]).toMatchObject({
      error: 'nothing to commit, working tree clean',
    });
  });

  it('keeps the sha a push put on the remote when git printed it', () => {
    const output = 'To /srv/origin.git\n   1a2b3c4..5d6e7f8  feature -> feature\n';
    expect(operationsOf(bash('git push'), ok(output))[0]).toMatchObject({
      ok: true,
      sha: '5d6e7f8',
      branch: 'feature',
    });
    const forced = 'To /srv/origin.git\n + 1a2b3c4...9f8e7d6 feature -> feature (forced update)\n';
    expect(operationsOf(bash('git push -f'), ok(forced))[0]).toMatchObject({ sha: '9f8e7d6' });
  });
});

describe('operationsOf: test runs', () => {
  it('recognizes test commands, passed when the call succeeded', () => {
    const commands: [string, string][] = [
      ['npm test', 'npm test'],
      ['npx vitest run', 'npx vitest run'],
      ['pytest -q', 'pytest -q'],
      ['go test ./...', 'go test ./...'],
      ['cargo test', 'cargo test'],
      ['node --test', 'node --test'],
      ['cd app && npm test', 'npm test'],
      ['CI=1 npm test', 'CI=1 npm test'],
      ['npm run test:unit', 'npm run test:unit'],
      ['python -m pytest tests/', 'python -m pytest tests/'],
    ];
    for (const [shell, command] of commands) {
      expect(operationsOf(bash(shell), ok('')), shell).toStrictEqual([
        { kind: 'test_run', command, passed: true, exitCode: 0, toolId: 'toolu_01' },
      ]);
      expect(operationsOf(codexShell(shell), failed('', 2, 'item_3')), shell).toStrictEqual([
        { kind: 'test_run', command, passed: false, exitCode: 2, toolId: 'item_3' },
      ]);
    }
  });

  it('reads counts from the summary of each runner', () => {
    const runs: [string, string, { passed?: number; failed?: number; skipped?: number }][] = [
      ['npx vitest run', ' Test Files  1 failed (1)\n      Tests  3 passed | 1 failed (4)\n', { passed: 3, failed: 1 }],
      [
        'npx jest',
        'Test Suites: 1 failed, 1 total\nTests:       1 failed, 3 passed, 4 total\nSnapshots:   0 total\n',
        { passed: 3, failed: 1 },
      ],
      ['pytest -q', '...F\n==== 3 passed, 1 failed in 0.12s ====\n', { passed: 3, failed: 1 }],
      [
        'node --test',
        'TAP version 13\n# tests 4\n# pass 3\n# fail 1\n# skipped 0\n',
        { passed: 3, failed: 1, skipped: 0 },
      ],
      ['node --test', 'ℹ tests 4\nℹ pass 3\nℹ fail 1\n', { passed: 3, failed: 1 }],
      ['npx mocha', '  3 passing (12ms)\n  2 pending\n  1 failing\n', { passed: 3, failed: 1, skipped: 2 }],
      [
        'cargo test',
        'test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out',
        { passed: 3, failed: 0 },
      ],
    ];
    for (const [command, output, counts] of runs) {
      const [operation] = operationsOf(bash(command), failed(output));
      expect(operation, command).toStrictEqual({
        kind: 'test_run',
        command,
        passed: false,
        exitCode: 1,
        counts,
        toolId: 'toolu_01',
      });
    }
  });

  it('leaves counts out when the runner printed no summary, and the exit code when none was reported', () => {
    expect(
      operationsOf(bash('go test ./...'), { id: 'toolu_01', ok: true, output: 'ok  \texample.com/x\t0.01s' }),
    ).toStrictEqual([{ kind: 'test_run', command: 'go test ./...', passed: true, toolId: 'toolu_01' }]);
  });
});

describe('operationsOf: file changes and non-operations', () => {
  it('records the files of a call that succeeded, before its shell operations', () => {
    const write: ToolCall = {
      id: 'toolu_09',
      name: 'Write',
      input: { file_path: '/w/src/a.ts' },
      files: ['/w/src/a.ts'],
    };
    expect(operationsOf(write, { id: 'toolu_09', ok: true })).toStrictEqual([
      { kind: 'file_change', files: ['/w/src/a.ts'], toolId: 'toolu_09' },
    ]);
    const patch: ToolCall = { id: 'item_2', name: 'apply_patch', input: {}, files: ['src/a.ts', 'src/b.ts'] };
    expect(operationsOf(patch, { id: 'item_2', ok: true })).toStrictEqual([
      { kind: 'file_change', files: ['src/a.ts', 'src/b.ts'], toolId: 'item_2' },
    ]);
  });

  it('records no file change for a call that failed or named no file', () => {
    const write: ToolCall = { id: 'toolu_09', name: 'Edit', input: {}, files: ['src/a.ts'] };
    expect(operationsOf(write, { id: 'toolu_09', ok: false, output: 'old_string not found' })).toStrictEqual([]);
    expect(operationsOf({ ...write, files: [] }, { id: 'toolu_09', ok: true })).toStrictEqual([]);
  });

  it('finds nothing in commands without an effect outside the conversation', () => {
    for (const command of [
      'ls',
      'git status',
      'echo "git commit"',
      'echo npm test',
      'git log --oneline',
      'npm install',
      'cat package.json',
    ]) {
      expect(operationsOf(bash(command), ok('')), command).toStrictEqual([]);
    }
    expect(operationsOf({ id: 'toolu_02', name: 'Read', input: { file_path: 'a.ts' } }, ok(''))).toStrictEqual([]);
  });

  it('returns each operation of a compound command, in order', () => {
    const command = 'npm test && git add -A && git commit -m "Add week" && git push origin feature';
    expect(
      operationsOf(bash(command), ok('Tests  4 passed (4)\n[feature 89abcde] Add week\n')).map((o) => o.kind),
    ).toStrictEqual(['test_run', 'commit', 'push']);
  });
});

describe('shellSegments', () => {
  it('splits at &&, ||, ;, | and newlines, trimming the segments', () => {
    expect(splitShell('a && b || c; d | e\nf')).toStrictEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(splitShell('  a  &&  ')).toStrictEqual(['a']);
    expect(splitShell('')).toStrictEqual([]);
  });

  it('keeps operators inside quotes and removes the quotes', () => {
    expect(splitShell('echo "a && b" && ls')).toStrictEqual(['echo a && b', 'ls']);
    expect(splitShell("echo 'x;y|z' ; pwd")).toStrictEqual(['echo x;y|z', 'pwd']);
    expect(splitShell(`echo 'it'"'"'s'`)).toStrictEqual(["echo it's"]);
  });

  it('reads backslash escapes inside double quotes only', () => {
    expect(splitShell('git commit -m "say \\"hi\\"; ok" && ls')).toStrictEqual(['git commit -m say "hi"; ok', 'ls']);
    expect(splitShell("echo 'a\\'")).toStrictEqual(['echo a\\']);
  });

  it('keeps a single & (background) inside its segment', () => {
    expect(splitShell('server & npm test')).toStrictEqual(['server & npm test']);
  });

  it('keeps each command as written beside it', () => {
    expect(shellSegments(`git add -A && git commit -m "it's done" ; echo 'a|b'`)).toStrictEqual([
      { text: 'git add -A', raw: 'git add -A' },
      { text: "git commit -m it's done", raw: `git commit -m "it's done"` },
      { text: 'echo a|b', raw: "echo 'a|b'" },
    ]);
  });
});

describe('testCounts', () => {
  it('takes the last count of each kind, so the tests line wins over the files line', () => {
    expect(testCounts(' Test Files  2 passed (2)\n      Tests  7 passed | 2 skipped (9)\n')).toStrictEqual({
      passed: 7,
      skipped: 2,
    });
  });

  it('is undefined when no count was printed', () => {
    expect(testCounts('all good')).toBeUndefined();
    expect(testCounts('')).toBeUndefined();
  });
});

describe('a test run whose tool reported success', () => {
  it('is failed when the runner itself counted failures (Gemini CLI reports no exit code)', () => {
    const [operation] = operationsOf(
      { id: 't', name: 'run_shell_command', input: {}, shell: 'npm test' },
      { id: 't', ok: true, exitCode: 0, output: '# tests 3\n# pass 2\n# fail 1\n' },
    );
    expect(operation).toMatchObject({ kind: 'test_run', passed: false, counts: { passed: 2, failed: 1 } });
  });
});

describe('operationsOf: a command line of several commands', () => {
  it("gives the line's exit code to its last command only, and reads the others from what they printed", () => {
    const output = '[feature abc1234] Add week\n 1 file changed\n# tests 2\n# pass 1\n# fail 1\n';
    expect(operationsOf(bash('git commit -am "Add week" && npm test'), failed(output))).toStrictEqual([
      {
        kind: 'commit',
        command: 'git commit -am "Add week"',
        ok: true,
        sha: 'abc1234',
        subject: 'Add week',
        toolId: 'toolu_01',
      },
      {
        kind: 'test_run',
        command: 'npm test',
        passed: false,
        exitCode: 1,
        counts: { passed: 1, failed: 1 },
        toolId: 'toolu_01',
      },
    ]);
  });

  it('takes a push git reported as made, whatever failed after it, and a rejected one as failed', () => {
    const pushed = 'To /srv/origin.git\n * [new branch]      HEAD -> feature\n';
    expect(operationsOf(bash('git push -u origin HEAD && npm test'), failed(pushed))[0]).toMatchObject({
      kind: 'push',
      ok: true,
    });
    const rejected = 'To /srv/origin.git\n ! [rejected]        HEAD -> feature (fetch first)\n';
    expect(operationsOf(bash('git push origin HEAD; echo done'), ok(rejected))[0]).toMatchObject({
      kind: 'push',
      ok: false,
    });
  });

  it('does not count a test run before the last command as passed unless its runner said so', () => {
    expect(operationsOf(bash('npm test && git push'), failed('fatal: no remote', 128))[0]).toMatchObject({
      kind: 'test_run',
      passed: false,
    });
    expect(
      operationsOf(bash('npm test && git push'), failed('# pass 3\n# fail 0\nfatal: no remote', 128))[0],
    ).toStrictEqual({
      kind: 'test_run',
      command: 'npm test',
      passed: true,
      counts: { passed: 3, failed: 0 },
      toolId: 'toolu_01',
    });
  });

  it('does not take the URL of a pull request that already exists for one it opened', () => {
    const exists =
      'a pull request for branch "feature" into branch "main" already exists:\nhttps://github.com/acme/app/pull/7\n';
    expect(operationsOf(bash('gh pr create --fill && echo ok'), failed(exists))[0]).toMatchObject({
      kind: 'pull_request',
      ok: false,
    });
  });
});
