/**
 * Admission and service routes: `GET /api/admission` (cap, running, queued, held and why),
 * `POST /api/admission/hold` with `{reason}`, `POST /api/admission/release`, and `POST /api/stop`,
 * which answers 202, with how many executions the stop suspends (counted as it answers), and then
 * stops the service (its executions are suspended, not ended: they carry on at its next start). In
 * cluster mode admission is each worker's; an API node serves the dispatch queue's counts and the
 * cluster's hold instead (src/cluster/cluster-admission.ts), which every worker obeys.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { UsageError } from '../../core/errors.js';
import { HoldReason } from '../../core/hold-reason.js';
import { describeIssue } from '../../core/task-file.js';
import type { Suspending } from '../../service/execution-service.js';
import { jsonBody } from './executions.js';

const HoldBody = z.strictObject({ reason: HoldReason });

/**
 * What the routes ask of admission: the service's Admission (src/service/admission.ts), or cluster
 * mode's view of the dispatch queue. `hold` and `release` may throw a HarmflowError (e.g. 409).
 */
export interface AdmissionControl {
  /** The status as the API answers it (JSON). */
  status(): Promise<object>;
  hold(reason: string): void | Promise<void>;
  release(): void | Promise<void>;
}

export interface AdmissionRoutesOptions {
  readonly admission: AdmissionControl;
  /** Stops the service; called after the 202 is on its way. */
  readonly stop: () => void;
  /** What the stop suspends, counted before the answer (ExecutionService.suspending). */
  readonly suspending: () => Promise<Suspending>;
}

/** Returns the sub-app; mount it at `/api`. */
export function admissionRoutes({ admission, stop, suspending }: AdmissionRoutesOptions): Hono {
  const routes = new Hono();
  routes.get('/admission', async (c) => c.json(await admission.status()));
  routes.post('/admission/hold', async (c) => {
    const body = HoldBody.safeParse(await jsonBody(c));
    if (!body.success) throw new UsageError(`bad body: ${describeIssue(body.error)}`);
    await admission.hold(body.data.reason);
    return c.json(await admission.status());
  });
  routes.post('/admission/release', async (c) => {
    await admission.release();
    return c.json(await admission.status());
  });
  routes.post('/stop', async (c) => {
    const counted = await suspending();
    setImmediate(stop);
    return c.json({ stopping: true, suspending: counted }, 202);
  });
  return routes;
}
