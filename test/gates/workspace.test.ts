import { describe, expect, it } from 'vitest';
import { workspaceGate } from '../../src/gates/builtin/workspace.js';
import type { ToolCall } from '../../src/gates/tool-call.js';
import { bash, facts, WORKTREE, write } from './fixture.js';

const decide = (call: ToolCall, allowPaths: string[] = []) => workspaceGate(call, facts(), { allowPaths });

describe('workspace gate: file tools', () => {
  it.each([
    [`${WORKTREE}/src/a.ts`],
    [`${WORKTREE}/docs/with space/a b.md`],
    ['src/relative.ts'],
    ['/tmp/scratch/notes.txt'],
  ])('allows a write of %s', (path) => {
    expect(decide(write(path))).toStrictEqual({ decision: 'allow' });
  });

  it.each([
    ['/home/agent/.bashrc'],
    [`${WORKTREE}/../other-execution/a.ts`],
    [`${WORKTREE}-evil/a.ts`],
    ['../escape.ts'],
  ])('denies a write of %s, naming the path, the worktree and what to do', (path) => {
    const verdict = decide(write(path));
    expect(verdict.decision).toBe('deny');
    expect(verdict.decision === 'deny' && verdict.message).toMatch(/workspace gate refused/);
    expect(verdict.decision === 'deny' && verdict.message).toContain(WORKTREE);
    expect(verdict.decision === 'deny' && verdict.message).toMatch(/Make changes inside the worktree/);
  });

  it('allows reads anywhere and calls it does not know', () => {
    const read: ToolCall = { tool: 'Read', kind: 'read', paths: ['/etc/passwd'], input: {} };
    const other: ToolCall = { tool: 'WebFetch', kind: 'other', paths: [], input: {} };
    expect(decide(read)).toStrictEqual({ decision: 'allow' });
    expect(decide(other)).toStrictEqual({ decision: 'allow' });
  });

  it('allows the task’s allowPaths, absolute or under ~/', () => {
    expect(decide(write('/home/agent/.cache/tool/x'), ['~/.cache/tool']).decision).toBe('allow');
    expect(decide(write('/opt/shared/x'), ['/opt/shared']).decision).toBe('allow');
    expect(decide(write('/opt/sharedother/x'), ['/opt/shared']).decision).toBe('deny');
  });
});

describe('workspace gate: shell commands', () => {
  it.each([
    ['echo hi > out.txt && cat out.txt'],
    ['echo hi > "dir with spaces/out file.txt"'],
    ['npm test 2>&1 | tee /tmp/test.log'],
    ['cd /tmp && rm -rf x'],
    ['cat /etc/hosts > /dev/null'],
    ['ls ~ && cat ~/.gitconfig && grep -r foo /usr/include'],
    ['cd /opt/lib && ls && git log --oneline'],
    ['cp /etc/hosts ./hosts.copy'],
    ['git -C /other/repo status'],
    ['cat > notes.md <<EOF\nrm -rf /\necho x > /etc/passwd\nEOF'],
    ['(cd /opt && ls) && make'],
    ['mkdir -p build && cd build && cmake ..'],
  ])('allows %s', (command) => {
    expect(decide(bash(command)).decision).toBe('allow');
  });

  it.each([
    ['echo x > /etc/motd', '/etc/motd'],
    ['echo x >> ../sibling/log', '/srv/harmflow/worktrees/sibling/log'],
    ['cd / && rm -rf x', '/x'],
    ['cd .. && touch y', '/srv/harmflow/worktrees/y'],
    ['rm -rf "../other dir"', '/srv/harmflow/worktrees/other dir'],
    ['cp build/app ~/bin/app', '/home/agent/bin/app'],
    ['mv src/a.ts $HOME/a.ts', '/home/agent/a.ts'],
    ['sed -i s/a/b/ /etc/hosts', '/etc/hosts'],
    ['git -C /other/repo commit -am x', '/other/repo'],
    ['cd /other/repo && git commit -am x', '/other/repo'],
    ['cd /other && npm install', '/other'],
    ["bash -c 'echo x > /etc/y'", '/etc/y'],
    ['rm -rf ../*', 'files in /srv/harmflow/worktrees'],
  ])('denies %s, naming %s', (command, named) => {
    const verdict = decide(bash(command));
    expect(verdict.decision).toBe('deny');
    expect(verdict.decision === 'deny' && verdict.message).toContain(named);
  });

  it('checks the directory the hook reported: a mutating command run outside is denied', () => {
    expect(decide(bash('make install', '/usr/src/app')).decision).toBe('deny');
    expect(decide(bash('ls -la', '/usr/src/app')).decision).toBe('allow');
  });

  it('allows what it cannot resolve, and notes it for the log', () => {
    expect(decide(bash('cp a "$OUT_DIR"/a'))).toStrictEqual({
      decision: 'allow',
      notes: ['could not tell where "$OUT_DIR/a" is, in `cp a "$OUT_DIR"/a`'],
    });
    expect(decide(bash('cd "$(mktemp -d)" && git init'))).toStrictEqual({
      decision: 'allow',
      notes: ['could not tell where `git init` runs (after `cd $(mktemp -d)`)'],
    });
  });
});
