/**
 * What `GET /api/admission` answers on an API node in cluster mode (issue 9). Admission — the cap of
 * executions run at once, the disk floor — is each worker's own, on its machine; an API node has none.
 * It reports what it can see: the dispatch queue's jobs, an execution each, waiting for a worker,
 * being run, or delayed (a job moved back while another worker's lease of its execution runs out),
 * and the cluster's hold (cluster-hold.ts), which it sets and releases: a hold stops every worker
 * from taking new executions within one admission check.
 */
import type { ClusterHold } from './cluster-hold.js';
import type { DispatchQueue } from './dispatch.js';

/** The answer of `GET /api/admission` in cluster mode. */
export interface ClusterAdmissionStatus {
  readonly mode: 'cluster';
  /** True while an operator holds the cluster; `reasons` then says why, else it is empty. */
  readonly held: boolean;
  readonly reasons: readonly string[];
  /** The dispatch queue's jobs by state, as BullMQ counts them. */
  readonly queue: { readonly waiting: number; readonly active: number; readonly delayed: number };
}

/** The AdmissionControl (server/routes/admission.ts) of an API node in cluster mode. */
export class ClusterAdmission {
  readonly #queue: Pick<DispatchQueue, 'getJobCounts'>;
  readonly #hold: ClusterHold;

  /** `queue` and `hold` are the caller's, who closes them. */
  constructor(queue: Pick<DispatchQueue, 'getJobCounts'>, hold: ClusterHold) {
    this.#queue = queue;
    this.#hold = hold;
  }

  async status(): Promise<ClusterAdmissionStatus> {
    const [counts, held] = await Promise.all([
      this.#queue.getJobCounts('waiting', 'active', 'delayed'),
      this.#hold.read(),
    ]);
    return {
      mode: 'cluster',
      held: held !== undefined,
      reasons: held === undefined ? [] : [heldReason(held.reason)],
      queue: { waiting: counts.waiting ?? 0, active: counts.active ?? 0, delayed: counts.delayed ?? 0 },
    };
  }

  hold(reason: string): Promise<void> {
    return this.#hold.hold(reason);
  }

  release(): Promise<void> {
    return this.#hold.release();
  }
}

/** How a cluster hold reads on the API. */
function heldReason(reason: string): string {
  return `the cluster is held by an operator: ${reason}`;
}
