/**
 * How the lists write what an execution's record and owner file say (issue 26): its pull request
 * and the process that drives it. Shared by `harmflow ls`, the terminal UI and the Workbench;
 * DOM-free and Node-free, so every build compiles it.
 */

/**
 * The process an owner file names, or in cluster mode the worker holding the lease, as
 * `include=owners` and `ls --json` give it (src/execution/owner-file.ts).
 */
export interface OwnerProcess {
  /** Absent only for a cluster worker named by `--worker-id`. */
  readonly pid?: number;
  readonly host?: string;
  /** Cluster mode: the worker's name in the leases. */
  readonly worker?: string;
  /** Whether it still runs; `null`: on another host, not checked; `false`: a stale file. */
  readonly alive: boolean | null;
}

/** A pull request URL: `#42` for one that ends in its number (GitHub's `…/pull/42`), else the URL. */
export function pullRequestCell(url: string): string {
  const number = /\/pull\/(\d+)\/?$/.exec(url)?.[1];
  return number === undefined ? url : `#${number}`;
}

/** The URL as a link's target: only an `http:` or `https:` URL, so what gh printed never becomes a `javascript:` link. */
export function pullRequestHref(url: string): string | undefined {
  return /^https?:\/\/[^\s]+$/i.test(url) ? url : undefined;
}

/**
 * `4242@build-1`; `4242@build-1 (gone)` when that process is gone (a stale owner file); the pid alone
 * without a host; a cluster worker without a pid by its name.
 */
export function ownerCell(owner: OwnerProcess): string {
  const where =
    owner.pid === undefined
      ? (owner.worker ?? '?')
      : owner.host === undefined
        ? String(owner.pid)
        : `${owner.pid}@${owner.host}`;
  return owner.alive === false ? `${where} (gone)` : where;
}
