/**
 * Process groups. Every child HarmFlow starts leads its own group (pgid = its pid), so one signal
 * reaches it and everything it started that did not leave the group (shells, test runners, dev
 * servers an agent left behind).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** How often `waitGroupGone` looks again: 5 ms keeps the wait short without a busy loop. */
const GONE_POLL_MS = 5;

/**
 * Sends `signal` to every process of the group. Returns false when there was no such group (ESRCH)
 * or it may not be signalled (EPERM); never throws.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Tells whether any process of the group is still alive. Zombies (exited, not yet reaped) do not
 * count: orphans are reaped by PID 1, and in containers whose PID 1 reaps late or never, a zombie
 * would otherwise look alive for seconds or forever. On Linux the members are read from /proc;
 * elsewhere a zombie counts as alive.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  const members = liveMembers(pgid);
  return members === undefined || members > 0;
}

/**
 * Waits until no process of the group is alive, or `maxMs` has passed. Returns whether the group is
 * gone. SIGKILL ends a process as soon as it is scheduled, so this returns within milliseconds
 * unless a member sits in uninterruptible sleep (a stuck disk or NFS mount).
 */
export async function waitGroupGone(pgid: number, maxMs: number): Promise<boolean> {
  const deadline = Date.now() + maxMs;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await sleep(GONE_POLL_MS);
  }
  return true;
}

/** Counts the group's members that are not zombies, from /proc; undefined when /proc is unreadable. */
function liveMembers(pgid: number): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  let count = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') count++;
  }
  return count;
}

/** Reads state and process group from /proc/<pid>/stat; undefined when the process is gone. */
function readStat(pid: string): { state: string; pgrp: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses, so parse after the last ")".
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const pgrp = Number(fields[2]);
  return state === undefined || Number.isNaN(pgrp) ? undefined : { state, pgrp };
}
