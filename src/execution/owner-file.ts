/**
 * Who drives an execution: `runs/<execution>/owner` names the one process that does (its pid, on
 * Linux its start time, so a recycled pid is not mistaken for the owner, and its host name: one line
 * `<pid> <start time> <host>`; files written before the host was kept have none). The process that
 * creates an execution owns it; a process that carries on an open execution (the service after a
 * restart) claims it first, and may do so only when the named owner is gone. So `harmflow run` in a
 * terminal and a service on the same state directory never drive the same execution twice. Within
 * one process a claim is exclusive too: the service's worktree cleanup, holding an execution while it
 * removes its worktree, and a follow-up reopening that execution cannot both have it.
 */
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { PRIVATE_FILE_MODE } from '../core/home.js';
import { stillRunning, thisProcess } from '../proc/process-identity.js';

/** The owner files this process holds now (claimed or created, not yet released). */
const held = new Set<string>();

/**
 * Makes this process the owner of the execution whose owner file is `file`. Returns false when a
 * live process other than this one owns it, or this process already holds it (until it releases
 * it). Atomic between processes: the file is created by a hard link of a complete temporary file,
 * which fails when one exists.
 */
export function claimOwnership(file: string): boolean {
  if (held.has(file)) return false;
  const claimed = claim(file);
  if (claimed) held.add(file);
  return claimed;
}

/** The line that names this process as an owner. */
function ownerLine(): string {
  return `${thisProcess()} ${hostname()}`;
}

function claim(file: string): boolean {
  const mine = ownerLine();
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${mine}\n`, { mode: PRIVATE_FILE_MODE });
  try {
    for (let tries = 0; tries < 2; tries++) {
      try {
        linkSync(temp, file);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const current = readOwner(file);
      if (current === mine) return true;
      if (current !== undefined && stillRunning(current)) return false;
      // The owner is gone: take its place (a concurrent claimer that also saw it gone loses the link).
      try {
        unlinkSync(file);
      } catch {
        // Someone else removed it first.
      }
    }
    return false;
  } finally {
    unlinkSync(temp);
  }
}

/** Gives up ownership, if this process has it. */
export function releaseOwnership(file: string): void {
  held.delete(file);
  if (readOwner(file) === ownerLine()) unlinkSync(file);
}

/** True when a live process other than this one owns the execution. */
export function ownedElsewhere(file: string): boolean {
  const current = readOwner(file);
  if (current === undefined) return false;
  return current !== ownerLine() && stillRunning(current);
}

/**
 * True when a live process owns the execution, this one included: it is being driven (or, in the
 * service, about to be), so its workspace is in use.
 */
export function ownedByLiveProcess(file: string): boolean {
  const current = readOwner(file);
  return current !== undefined && stillRunning(current);
}

/**
 * The process that drives an execution, as observed now: the one its owner file names or, in
 * cluster mode, the worker holding its lease (cluster/lease-owners.ts).
 */
export interface OwnerProcess {
  /** Its process id; absent only for a cluster worker named by `--worker-id` (`worker` names it). */
  readonly pid?: number;
  /** Its host name; absent in owner files written before HarmFlow kept it. */
  readonly host?: string;
  /** Cluster mode: the worker holding the execution's lease, by its name in the leases. */
  readonly worker?: string;
  /**
   * Whether it still runs: checked on this machine by pid and start time; `null` when the file names
   * another host (not checked). `false` is a stale file: that process is gone and drives nothing. A
   * cluster worker holding an unexpired lease is `true`: it renewed the lease within its time.
   */
  readonly alive: boolean | null;
}

/** Who the owner file `file` names, or undefined when there is none (nobody drives the execution). */
export function ownerProcess(file: string): OwnerProcess | undefined {
  const line = readOwner(file);
  if (line === undefined) return undefined;
  const [pid, , host] = line.split(' ');
  const number = Number(pid);
  if (!Number.isSafeInteger(number) || number <= 0) return undefined;
  const elsewhere = host !== undefined && host !== hostname();
  return { pid: number, ...(host !== undefined && { host }), alive: elsewhere ? null : stillRunning(line) };
}

function readOwner(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}
