/**
 * What one turn's sandbox leaves the harness (attempt-sandbox.ts `turnPolicy`), without bubblewrap:
 * the writable set with and without the gate runner inside, the files kept read-only within it, and
 * what of the private /tmp is brought back — never anything of the state directory.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ExecutionSandbox, turnPolicy } from '../../src/execution/attempt-sandbox.js';

const STATE = '/tmp/t/home';
const SANDBOX: ExecutionSandbox = {
  tools: { bwrap: '/usr/bin/bwrap', env: '/usr/bin/env' },
  stateDir: STATE,
  eventsFile: `${STATE}/runs/e1/events.jsonl`,
  contextFile: `${STATE}/runs/e1/context.json`,
  gitDir: '/tmp/t/repo/.git',
  worktreeGitDir: '/tmp/t/repo/.git/worktrees/e1',
  remoteGitDirs: ['/tmp/t/origin.git'],
};
const TURN = {
  worktree: `${STATE}/worktrees/e1`,
  attemptDir: `${STATE}/runs/e1/attempts/2`,
  homeDir: `${STATE}/runs/e1/attempts/1/home`,
  env: { PATH: `/tmp/t/bin:${STATE}/bin:/usr/bin`, HARMFLOW_FORGE_DIR: '/tmp/t/forge' },
  reads: ['/usr/local/bin/node', '/tmp/t/task.scenario.yaml'],
  hookFiles: [`${STATE}/runs/e1/attempts/1/home/.codex/hooks.json`],
  caches: [],
};

describe('a turn in the sandbox', () => {
  it('writes its worktree, its home (an earlier attempt’s), what a commit and a push write in the git directories, and the fake forge', () => {
    const policy = turnPolicy(SANDBOX, { ...TURN, gateRunner: false });
    expect(policy.hidden).toEqual([STATE]);
    expect(policy.writable).toEqual([
      TURN.worktree,
      TURN.homeDir,
      '/tmp/t/repo/.git/objects',
      '/tmp/t/repo/.git/refs',
      '/tmp/t/repo/.git/logs',
      '/tmp/t/origin.git/objects',
      '/tmp/t/origin.git/refs',
      '/tmp/t/origin.git/logs',
      '/tmp/t/repo/.git/worktrees/e1',
      '/tmp/t/forge',
    ]);
  });

  it('writes the folders of its caches, and of the cache root nothing else', () => {
    const caches = [`${STATE}/caches/npm`, `${STATE}/caches/go`, `${STATE}/runs/e1/caches`];
    const policy = turnPolicy(SANDBOX, { ...TURN, caches, gateRunner: false });
    expect(policy.writable).toEqual(expect.arrayContaining(caches));
    expect(policy.writable).not.toContain(`${STATE}/caches`);
    expect(policy.hidden).toEqual([STATE]);
  });

  it('keeps the git directories (config, hooks, the room for a commondir), the admin folder’s links, the worktree’s .git file, its attempt folder, the hooks’ settings and context.json read-only', () => {
    const policy = turnPolicy(SANDBOX, { ...TURN, gateRunner: false });
    expect(policy.readOnly).toEqual(
      expect.arrayContaining([
        SANDBOX.contextFile,
        TURN.attemptDir,
        ...TURN.hookFiles,
        join(TURN.worktree, '.git'),
        '/tmp/t/repo/.git',
        '/tmp/t/origin.git',
        '/tmp/t/repo/.git/worktrees/e1/commondir',
        '/tmp/t/repo/.git/worktrees/e1/gitdir',
      ]),
    );
    expect(policy.writable.filter((path) => path.startsWith(TURN.attemptDir))).toEqual([]);
  });

  it('brings back from /tmp what the command needs, and nothing of the state directory', () => {
    const env = { ...TURN.env, SSH_AUTH_SOCK: '/tmp/ssh-XXXXabcd/agent.1234' };
    const policy = turnPolicy(SANDBOX, { ...TURN, env, gateRunner: false });
    expect(policy.readOnly).toContain('/tmp/ssh-XXXXabcd/agent.1234');
    expect(policy.readOnly).toContain('/tmp/t/bin');
    expect(policy.readOnly).toContain('/tmp/t/task.scenario.yaml');
    expect(policy.readOnly).not.toContain(`${STATE}/bin`);
    expect(policy.readOnly).not.toContain('/usr/bin');
    expect(policy.readOnly).not.toContain('/usr/local/bin/node');
  });

  it('with the gate runner inside: the two files it appends to writable, its attempt folder still read-only', () => {
    const policy = turnPolicy(SANDBOX, { ...TURN, gateRunner: true });
    expect(policy.writable.slice(-2)).toEqual([SANDBOX.eventsFile, join(TURN.attemptDir, 'gate-seen.jsonl')]);
    expect(policy.readOnly).toContain(TURN.attemptDir);
  });
});
