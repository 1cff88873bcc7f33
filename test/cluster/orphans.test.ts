/**
 * killHarnesses: the process groups recorded under a worker's state directory, as a worker killed
 * with SIGKILL leaves them, played by `sleep` processes leading groups of their own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killHarnesses } from '../../src/cluster/orphans.js';
import type { HomePaths } from '../../src/core/home.js';
import { newExecutionId } from '../../src/core/ids.js';
import { claimOwnership, releaseOwnership } from '../../src/execution/owner-file.js';
import { signalGroup } from '../../src/proc/group.js';
import { dirs, newMachine } from './workspace-fixture.js';

const started: ChildProcess[] = [];
const claimed: string[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
  for (const file of claimed.splice(0)) releaseOwnership(file);
});

/**
 * A "harness" of a new execution under `home`: a process group led by `sleep`, working in `cwd`
 * (default the execution's worktree), its group id recorded as the engine records it.
 */
function harness(home: HomePaths, cwd?: string): { execution: string; child: ChildProcess; exited: Promise<unknown> } {
  const execution = newExecutionId();
  const worktree = home.worktree(execution);
  mkdirSync(worktree, { recursive: true });
  const attemptDir = home.attemptDir(execution, 1);
  mkdirSync(attemptDir, { recursive: true });
  const child = spawn('sleep', ['60'], { cwd: cwd ?? worktree, detached: true, stdio: 'ignore' });
  started.push(child);
  writeFileSync(join(attemptDir, 'pgid'), `${child.pid}\n`);
  return { execution, child, exited: once(child, 'exit') };
}

describe('killHarnesses', () => {
  it('kills the groups of executions no live process owns, working in their worktree, and no other', async () => {
    const { home } = await newMachine();
    const orphan = harness(home);
    const elsewhere = harness(home, await dirs.make());
    const owned = harness(home);
    claimed.push(home.ownerFile(owned.execution));
    expect(claimOwnership(home.ownerFile(owned.execution))).toBe(true);
    // An owner file naming a process that is gone does not protect its execution.
    const abandoned = harness(home);
    writeFileSync(home.ownerFile(abandoned.execution), '999999999 0\n');

    const killed = killHarnesses(home, 'orphaned');
    expect(killed.map((entry) => entry.execution).sort()).toEqual([orphan.execution, abandoned.execution].sort());
    expect(killed.find((entry) => entry.execution === orphan.execution)).toEqual({
      execution: orphan.execution,
      attempt: 1,
      pgid: orphan.child.pid,
    });
    await Promise.all([orphan.exited, abandoned.exited]);
    expect(orphan.child.signalCode).toBe('SIGKILL');
    expect(elsewhere.child.exitCode === null && elsewhere.child.signalCode === null).toBe(true);
    expect(owned.child.exitCode === null && owned.child.signalCode === null).toBe(true);
    // Once gone, nothing is left to kill.
    expect(killHarnesses(home, 'orphaned')).toEqual([]);

    expect(killHarnesses(home, 'own')).toEqual([{ execution: owned.execution, attempt: 1, pgid: owned.child.pid }]);
    await owned.exited;
    expect(elsewhere.child.exitCode === null && elsewhere.child.signalCode === null).toBe(true);
  });
});
