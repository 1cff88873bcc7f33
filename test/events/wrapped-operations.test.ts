/**
 * Operations behind wrappers, absolute command paths and nested shells are recorded as what they
 * are, so the `nothing-twice` gate and context.json learn of a push made as `timeout 60 git push …`
 * exactly as of a bare `git push …` (issue 22).
 */
import { describe, expect, it } from 'vitest';
import { readWords } from '../../src/core/shell-words.js';
import { operationsOf } from '../../src/events/operations.js';
import type { EventData } from '../../src/events/schema.js';

const bash = (command: string): EventData<'tool.call'> => ({
  id: 'toolu_01',
  name: 'Bash',
  input: { command },
  shell: command,
});
const ok = (output: string): EventData<'tool.result'> => ({ id: 'toolu_01', ok: true, exitCode: 0, output });

const PUSHED = 'To github.com:acme/app.git\n * [new branch]      HEAD -> feature\n';
const COMMITTED = '[feature abc1234] Add week\n 1 file changed\n';
const OPENED = 'https://github.com/acme/app/pull/7\n';
const TESTED = ' Tests  4 passed (4)\n';

const push = { kind: 'push', ok: true, remote: 'origin', branch: 'feature' };
const commit = { kind: 'commit', ok: true, sha: 'abc1234', subject: 'Add week' };
const pullRequest = { kind: 'pull_request', ok: true, url: 'https://github.com/acme/app/pull/7', number: 7 };
const testRun = { kind: 'test_run', passed: true, counts: { passed: 4 } };

const ROWS: readonly (readonly [command: string, output: string, operation: Record<string, unknown>])[] = [
  ['timeout 60 git push origin feature', PUSHED, push],
  ['/usr/bin/git push origin feature', PUSHED, push],
  ['sudo -u ci git push origin feature', PUSHED, push],
  ['nohup stdbuf -oL git push origin feature', PUSHED, push],
  ['env GIT_TRACE=1 /usr/bin/git push origin feature', PUSHED, push],
  ["sh -c 'git push origin feature'", PUSHED, push],
  [`bash -lc "cd . && timeout 30 git push origin feature"`, PUSHED, push],
  ["git -c alias.p='push' p origin feature", PUSHED, push],
  ["/usr/bin/git commit -m 'Add week'", COMMITTED, commit],
  ["timeout 10 git commit -am 'Add week'", COMMITTED, commit],
  [`sh -c "git add -A && git commit -m 'Add week'"`, COMMITTED, commit],
  ['/usr/bin/gh pr create --fill', OPENED, pullRequest],
  ['timeout 30 gh pr create --fill', OPENED, pullRequest],
  ["bash -c 'gh pr create --fill'", OPENED, pullRequest],
  ['timeout 300 npm test', TESTED, testRun],
  ['nice -n 10 npx vitest run', TESTED, testRun],
  ["sh -c 'npm run build && npm test'", TESTED, testRun],
  ['./node_modules/.bin/vitest run', TESTED, testRun],
];

describe('operations behind wrappers, absolute paths and nested shells', () => {
  it.each(ROWS)('records %s', (command, output, operation) => {
    const found = operationsOf(bash(command), ok(output));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject(operation);
  });
});

describe('readWords', () => {
  it('splits a command as the shell does: quotes removed, escapes applied, continued lines joined', () => {
    expect(readWords(`git commit -m "say \\"hi\\" \\$x" a\\ b 'c d' e\\\nf`)).toStrictEqual([
      'git',
      'commit',
      '-m',
      'say "hi" $x',
      'a b',
      'c d',
      'ef',
    ]);
  });
});
