import { describe, expect, it } from 'vitest';
import { groupAlive, waitGroupGone } from '../../src/proc/group.js';
import { spawnProcess } from '../../src/proc/spawn.js';
import { ENV } from './helpers.js';

describe('groupAlive', () => {
  it('is false for a group that does not exist', () => {
    expect(groupAlive(2 ** 22 + 12_345)).toBe(false);
  });

  it('is true while a member runs and false once the group is killed', async () => {
    const proc = spawnProcess({ command: 'sleep', args: ['30'], cwd: '/', env: ENV });
    const pgid = proc.pid ?? 0;
    expect(groupAlive(pgid)).toBe(true);
    proc.kill();
    await proc.exited;
    expect(groupAlive(pgid)).toBe(false);
  });

  // A group whose only member is a zombie: python forks a child that leaves for its own group and
  // exits, and python waits for that exit without reaping it. kill(-pgid, 0) still succeeds on it.
  // python3 is always present where HarmFlow installs: node-gyp needs it to build better-sqlite3.
  it('does not count a zombie as alive', async () => {
    const script = [
      'import os, sys, time',
      'pid = os.fork()',
      'if pid == 0:',
      '    os.setsid()',
      '    os._exit(0)',
      'os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped',
      'print(pid, flush=True)',
      'time.sleep(30)',
    ].join('\n');
    let zombie = 0;
    const proc = spawnProcess({
      command: 'python3',
      args: ['-c', script],
      cwd: '/',
      env: ENV,
      onLine: (_stream, line) => {
        zombie = Number(line);
      },
    });
    try {
      while (zombie === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      let signalable = true;
      try {
        process.kill(-zombie, 0);
      } catch {
        signalable = false;
      }
      expect(signalable).toBe(true);
      expect(groupAlive(zombie)).toBe(false);
      expect(await waitGroupGone(zombie, 100)).toBe(true);
    } finally {
      proc.kill();
      await proc.exited;
    }
  });
});
