/**
 * Who drives a workflow run, and whether that process still runs. The engine (run.ts) records the
 * process that takes a run as its `owner` and clears it when the run stops, so a run left `running`
 * by a process that died (killed, its machine restarted) names an owner that is gone. A reader shows
 * such a run `interrupted`, never `running`: `runStatus` is what `harmflow workflow status` shows.
 *
 * A pid is checked only on the machine the owner ran on (by host name), with its start time, as the
 * execution owner files are (src/execution/owner-file.ts), so a recycled pid is not taken for the
 * owner. From another machine (a cluster's coordinator, read through its PostgreSQL) the owner is
 * named but not checked: the run is shown as stored.
 */
import { hostname } from 'node:os';
import { ConflictError } from '../core/errors.js';
import { stillRunning, thisProcess } from '../proc/process-identity.js';
import type { RunOwner, RunRecord } from '../store/resume-store.js';

/** This process as the owner of a run it takes at `since`. */
export function thisOwner(since: string): RunOwner {
  const [pid, startTime] = thisProcess().split(' ');
  return { pid: Number(pid), host: hostname(), startTime: startTime ?? '0', since };
}

/** True when the owner still runs, false when it is gone, null when it ran on another machine (not checked). */
function ownerAlive(owner: RunOwner): boolean | null {
  if (owner.host !== hostname()) return null;
  return stillRunning(`${owner.pid} ${owner.startTime}`);
}

/** A run's state as a reader is shown it: the stored one, or `interrupted` for a `running` run whose owner is gone. */
export type ShownState = RunRecord['state'] | 'interrupted';

/** A run as it is now: its shown state, and its owner (if it has one) with whether it still runs. */
export interface RunStatus {
  readonly state: ShownState;
  readonly owner?: RunOwner & { readonly alive: boolean | null };
}

/** What is true of `run` now: its owner checked. Reads this machine's process table, nothing else. */
export function runStatus(run: RunRecord): RunStatus {
  if (run.owner === undefined) return { state: run.state };
  const alive = ownerAlive(run.owner);
  const state = run.state === 'running' && alive === false ? 'interrupted' : run.state;
  return { state, owner: { ...run.owner, alive } };
}

/**
 * Throws ConflictError when `run` is `running` and another live process of this machine drives it:
 * a second driver would compute its items twice. One whose owner ran on another machine is not
 * checked (as `runStatus`).
 */
export function refuseDrivenElsewhere(run: RunRecord): void {
  const { owner } = run;
  if (run.state !== 'running' || owner === undefined) return;
  if (owner.pid === process.pid && owner.host === hostname()) return;
  if (ownerAlive(owner) !== true) return;
  throw new ConflictError(
    `run ${run.id} is being driven by pid ${owner.pid} on ${owner.host} (since ${owner.since}): wait for it, or stop that process first`,
  );
}
