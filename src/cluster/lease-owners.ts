/**
 * Who drives a cluster's executions, as an API node's `GET /api/executions?include=owners` shows it:
 * the worker holding each one's unexpired lease (lease.ts). The owner files that say it on one
 * machine are on the workers' disks, out of the API node's reach; the leases are in PostgreSQL. A
 * worker named by default (`harmflow worker`: `host:pid`) is given as that process, its pid and host;
 * one named by `--worker-id` by that name alone. `alive` is true: the worker renewed its lease within
 * the lease's time, or it would have expired. Pure.
 */
import type { OwnerProcess } from '../execution/owner-file.js';
import type { LeaseHolder } from './lease.js';

/** Each leased execution's owner, from its lease holder. */
export function leaseOwners(holders: ReadonlyMap<string, LeaseHolder>): Record<string, OwnerProcess> {
  const owners: Record<string, OwnerProcess> = {};
  for (const [execution, { worker }] of holders) owners[execution] = ownerOfWorker(worker);
  return owners;
}

function ownerOfWorker(worker: string): OwnerProcess {
  const named = /^(.+):([1-9]\d*)$/.exec(worker);
  const pid = Number(named?.[2]);
  if (named?.[1] === undefined || !Number.isSafeInteger(pid)) return { worker, alive: true };
  return { pid, host: named[1], worker, alive: true };
}
