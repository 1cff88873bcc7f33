/**
 * Harness process groups a dead worker left running on its machine. A worker killed with SIGKILL (or
 * by the OOM killer) cannot stop the harnesses it started: each leads a process group of its own
 * (proc/group.ts), whose id the engine wrote to `runs/<execution>/attempts/<n>/pgid` under the
 * worker's state directory (execution/run-attempt.ts). Such a harness keeps working in a worktree no
 * worker drives any more, spending quota and racing the worker that carries the execution on.
 *
 * A worker restarted on the same state directory sweeps them at its start (`harmflow worker`):
 * every recorded group of an execution that no live process of this machine owns (its
 * `runs/<execution>/owner` file, which the drive claims, names no running process) is killed with
 * SIGKILL — but only while one of its live members still works inside that execution's worktree
 * here (its current directory, read from /proc). A group id names a process of this machine only and
 * may be reused once the whole group is gone; a group found with no member in the worktree is
 * another program's now, or gone, and is left alone. Without /proc nothing is killed.
 *
 * A worker closing whose executions did not suspend within its close budget kills its own harnesses
 * the same way (`own`: the executions whose owner file names this process), so that it can exit.
 *
 * On another machine nothing can be killed, and nothing needs to be: the worker that takes the
 * execution over does so only once the dead worker's lease expired, and a worker still alive but cut
 * off suspends its engine (interrupting its harness) the moment its lease is lost (kept-lease.ts,
 * drive-job.ts); a harness on a machine that died died with it. What a harness on a machine that
 * lives on but whose worker is gone does is confined to that machine's worktree, which no worker
 * checkpoints any more, until that machine's worker restarts and sweeps it.
 */
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { HomePaths } from '../core/home.js';
import { ownedByLiveProcess, ownedElsewhere } from '../execution/owner-file.js';
import { signalGroup } from '../proc/group.js';

/** A harness group killed by the sweep. */
export interface KilledHarness {
  readonly execution: string;
  readonly attempt: number;
  readonly pgid: number;
}

/** Whose harnesses to kill: those of executions no live process owns, or those this process owns. */
export type HarnessesOf = 'orphaned' | 'own';

/**
 * Kills the harness groups recorded under `home` for the executions `whose` names, as described
 * above, and returns them. Never throws for a missing or unreadable file: what cannot be read is left
 * alone.
 */
export function killHarnesses(home: HomePaths, whose: HarnessesOf): KilledHarness[] {
  const killed: KilledHarness[] = [];
  for (const execution of entries(home.runs)) {
    const ownerFile = home.ownerFile(execution);
    const live = ownedByLiveProcess(ownerFile);
    if (whose === 'orphaned' ? live : !live || ownedElsewhere(ownerFile)) continue;
    const worktree = realpath(home.worktree(execution));
    if (worktree === undefined) continue;
    const attempts = join(home.runDir(execution), 'attempts');
    for (const name of entries(attempts)) {
      const attempt = Number(name);
      const pgid = readPgid(join(attempts, name, 'pgid'));
      if (!Number.isSafeInteger(attempt) || pgid === undefined) continue;
      if (!groupWorksIn(pgid, worktree)) continue;
      if (signalGroup(pgid, 'SIGKILL')) killed.push({ execution, attempt, pgid });
    }
  }
  return killed;
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function realpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function readPgid(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const pgid = Number(text.trim());
  return Number.isSafeInteger(pgid) && pgid > 1 ? pgid : undefined;
}

/** True when a live (not zombie) member of group `pgid` has its current directory in `worktree`. */
function groupWorksIn(pgid: number, worktree: string): boolean {
  for (const entry of entries('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // After the command name, in parentheses that may hold spaces: state, ppid, pgrp, …
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z' || Number(pgrp) !== pgid) continue;
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${entry}/cwd`);
    } catch {
      continue;
    }
    if (cwd === worktree || cwd.startsWith(`${worktree}${sep}`)) return true;
  }
  return false;
}
