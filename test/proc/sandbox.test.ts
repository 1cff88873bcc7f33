/**
 * The OS sandbox (src/proc/sandbox.ts) with the real bubblewrap: what a command inside may write, see
 * and signal, and that the process group HarmFlow signals still reaches it (an interrupt gives the
 * command its budget to save, a kill leaves nothing behind). The argv's mount order is checked
 * without bubblewrap.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { groupAlive } from '../../src/proc/group.js';
import { type SandboxPolicy, type SandboxTools, sandboxed } from '../../src/proc/sandbox.js';
import { type ProcessExit, spawnProcess } from '../../src/proc/spawn.js';
import { bwrapTools } from './bwrap.js';
import { ENV, tempDirs } from './helpers.js';

const tools = await bwrapTools();
const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('the sandbox command line', () => {
  const fake: SandboxTools = { bwrap: '/usr/bin/bwrap', env: '/usr/bin/env' };

  it('mounts parents before children, hidden folders first and read-only last at each depth', () => {
    const policy: SandboxPolicy = {
      hidden: ['/s'],
      writable: ['/s/wt', '/s/wt/inner', '/x'],
      readOnly: ['/s/wt/.git', '/s/wt/inner', '/tmp/bin'],
    };
    const { command, args } = sandboxed({ command: 'claude', args: ['-p', 'hi'] }, '/s/wt', policy, fake);
    expect(command).toBe('/usr/bin/env');
    expect(args.slice(0, 14)).toEqual([
      '--ignore-signal=INT,TERM',
      '/usr/bin/bwrap',
      '--unshare-pid',
      '--cap-drop',
      'ALL',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
    ]);
    const mounts = args.slice(14, args.indexOf('--chdir'));
    expect(mounts).toEqual([
      ...['--tmpfs', '/s'],
      ...['--bind-try', '/x', '/x'],
      ...['--bind-try', '/s/wt', '/s/wt'],
      ...['--ro-bind-try', '/tmp/bin', '/tmp/bin'],
      ...['--bind-try', '/s/wt/inner', '/s/wt/inner'],
      ...['--ro-bind-try', '/s/wt/.git', '/s/wt/.git'],
      ...['--ro-bind-try', '/s/wt/inner', '/s/wt/inner'],
    ]);
    expect(args.slice(args.indexOf('--chdir'))).toEqual([
      '--chdir',
      '/s/wt',
      '--',
      '/usr/bin/env',
      '--default-signal=INT,TERM',
      'claude',
      '-p',
      'hi',
    ]);
  });
});

/** Runs `script` with sh in the sandbox `policy`; resolves with its exit and stdout lines. */
async function runSandboxed(sandbox: SandboxTools, cwd: string, policy: SandboxPolicy, script: string) {
  const lines: string[] = [];
  const command = sandboxed({ command: 'sh', args: ['-c', script] }, cwd, policy, sandbox);
  const proc = spawnProcess({
    ...command,
    cwd,
    env: ENV,
    onLine: (stream, line) => stream === 'stdout' && lines.push(line),
  });
  return { exit: await proc.exited, lines };
}

/** A shell line that prints `ALLOWED <name>` or `DENIED <name>` for `command`. */
const attempt = (name: string, command: string) =>
  `(${command}) >/dev/null 2>&1 && echo "ALLOWED ${name}" || echo "DENIED ${name}"`;

describe.skipIf(tools === undefined)('a command in the sandbox', () => {
  const sandbox = tools as SandboxTools;

  it('writes only where it is let: not the rest of the file system, a hidden folder, a read-only file or a mount', async () => {
    const dir = await dirs.make();
    const state = join(dir, 'state');
    const work = join(state, 'work');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(state, 'db'), 'the database\n');
    writeFileSync(join(work, 'keep.txt'), 'kept\n');
    writeFileSync(join(dir, 'outside.txt'), 'outside\n');
    const policy = { hidden: [state], writable: [work], readOnly: [join(work, 'keep.txt')] };
    const script = [
      attempt('worktree', 'echo new > new.txt'),
      attempt('opt', 'echo x > /opt/harmflow-sandbox-test'),
      attempt('hidden', `cat ${join(state, 'db')}`),
      attempt('hidden-rm', `rm ${join(state, 'db')}`),
      attempt('tmp-outside', `cat ${join(dir, 'outside.txt')}`),
      attempt('tmp-private', 'echo x > /tmp/private && cat /tmp/private'),
      attempt('keep-write', 'echo x >> keep.txt'),
      attempt('keep-rm', 'rm -f keep.txt'),
      attempt('keep-mv', 'mv keep.txt moved.txt'),
      attempt('remount', 'mount -o remount,rw /'),
      attempt('host-process', `kill -0 ${process.pid}`),
      attempt('host-root', `ls /proc/${process.pid}/root`),
    ].join('\n');

    const { exit, lines } = await runSandboxed(sandbox, work, policy, script);

    expect(exit).toEqual({ exitCode: 0, signal: null });
    expect(lines).toEqual([
      'ALLOWED worktree',
      'DENIED opt',
      'DENIED hidden',
      'DENIED hidden-rm',
      'DENIED tmp-outside',
      'ALLOWED tmp-private',
      'DENIED keep-write',
      'DENIED keep-rm',
      'DENIED keep-mv',
      'DENIED remount',
      'DENIED host-process',
      'DENIED host-root',
    ]);
    expect(readFileSync(join(work, 'new.txt'), 'utf8')).toBe('new\n');
    expect(readFileSync(join(work, 'keep.txt'), 'utf8')).toBe('kept\n');
    expect(readFileSync(join(state, 'db'), 'utf8')).toBe('the database\n');
    expect(existsSync('/opt/harmflow-sandbox-test')).toBe(false);
    expect(existsSync('/tmp/private')).toBe(false);
  });

  it('passes on the exit code, and a signal that ends the command as 128 + its number', async () => {
    const dir = await dirs.make();
    const policy = { hidden: [], writable: [dir], readOnly: [] };
    expect((await runSandboxed(sandbox, dir, policy, 'exit 5')).exit).toEqual({ exitCode: 5, signal: null });
    expect((await runSandboxed(sandbox, dir, policy, 'kill -KILL $$')).exit).toEqual({ exitCode: 137, signal: null });
  });

  it('an interrupt reaches the command, which has its budget to save: the sandbox does not end first', async () => {
    const dir = await dirs.make();
    const script = `trap 'sleep 0.3; echo saved > saved.txt; exit 7' INT; echo ready; sleep 30 & wait`;
    const proc = await startedSandboxed(sandbox, dir, script);
    const exit: ProcessExit = await proc.stop(5_000, 'SIGINT');
    expect(exit).toEqual({ exitCode: 7, signal: null });
    expect(readFileSync(join(dir, 'saved.txt'), 'utf8')).toBe('saved\n');
    expect(groupAlive(proc.pid ?? 0)).toBe(false);
  });

  it('a command that ignores the interrupt is killed with everything it started once the budget is spent', async () => {
    const dir = await dirs.make();
    const script = `trap '' INT TERM; sleep 30 & echo ready; wait`;
    const proc = await startedSandboxed(sandbox, dir, script);
    const before = Date.now();
    const exit = await proc.stop(300, 'SIGTERM');
    expect(exit.signal).toBe('SIGKILL');
    expect(Date.now() - before).toBeGreaterThanOrEqual(250);
    expect(groupAlive(proc.pid ?? 0)).toBe(false);
  });
});

/** `script` run by sh in a sandbox that may write `dir`, once it printed `ready`. */
async function startedSandboxed(tools: SandboxTools, dir: string, script: string) {
  const command = sandboxed(
    { command: 'sh', args: ['-c', script] },
    dir,
    { hidden: [], writable: [dir], readOnly: [] },
    tools,
  );
  let ready: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const proc = spawnProcess({ ...command, cwd: dir, env: ENV, onLine: (_, line) => line === 'ready' && ready() });
  await started;
  return proc;
}
