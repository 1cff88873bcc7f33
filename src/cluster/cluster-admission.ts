/**
 * What `GET /api/admission` answers on an API node in cluster mode (issue 9). Admission — the cap of
 * executions run at once, the disk floor, the hold — is each worker's own, on its machine; an API
 * node has none. It reports what it can see honestly instead: the dispatch queue's jobs, an execution
 * each, waiting for a worker, being run, or delayed (a job moved back while another worker's lease of
 * its execution runs out). Hold and release are refused (409): there is nothing here to hold.
 */
import { ConflictError } from '../core/errors.js';
import type { DispatchQueue } from './dispatch.js';

/** The answer of `GET /api/admission` in cluster mode. */
export interface ClusterAdmissionStatus {
  readonly mode: 'cluster';
  /** The dispatch queue's jobs by state, as BullMQ counts them. */
  readonly queue: { readonly waiting: number; readonly active: number; readonly delayed: number };
}

/** The AdmissionControl (server/routes/admission.ts) of an API node in cluster mode. */
export class ClusterAdmission {
  readonly #queue: Pick<DispatchQueue, 'getJobCounts'>;

  /** `queue` is the caller's, who closes it. */
  constructor(queue: Pick<DispatchQueue, 'getJobCounts'>) {
    this.#queue = queue;
  }

  async status(): Promise<ClusterAdmissionStatus> {
    const counts = await this.#queue.getJobCounts('waiting', 'active', 'delayed');
    return {
      mode: 'cluster',
      queue: { waiting: counts.waiting ?? 0, active: counts.active ?? 0, delayed: counts.delayed ?? 0 },
    };
  }

  hold(): void {
    throw notHere();
  }

  release(): void {
    throw notHere();
  }
}

function notHere(): ConflictError {
  return new ConflictError(
    'in cluster mode admission is held on each worker (its cap, its disk floor), not on an API node',
  );
}
