/**
 * ExecutionService: what the HTTP API's write routes ask of whoever runs executions. Two implement
 * it: the session service's Registry (one machine: it drives the executions itself) and, in cluster
 * mode, ClusterExecutions (src/cluster/cluster-executions.ts: it records the request in PostgreSQL and
 * dispatches it to a worker). The routes (src/server/routes/executions.ts) know only this.
 *
 * The errors are part of the contract; the API maps them to statuses (src/server/errors.ts):
 * NotFoundError 404 (no such execution, or no task record), UsageError / TaskFileError /
 * RepositoryError 400 (a request that can never succeed), ConflictError 409 (the execution's state
 * does not allow it now, or it has ended), HarnessNotInstalledError 409 (checked where the harness
 * runs), ServiceUnavailableError 503 (admission is held, the service is stopping, or a part it needs
 * is unreachable: try again later).
 */
import type { Task } from '../core/task.js';
import type { SwitchRequest } from '../execution/control.js';
import type { ExecutionRecord } from '../store/store.js';

/** A follow-up message accepted: its turn id and how many turns wait to run, itself included. */
export interface SentMessage {
  readonly turn: string;
  readonly queued: number;
}

export interface ExecutionService {
  /**
   * Creates an execution of `task`, `queued`, and has it run. Resolves to its record once the
   * request is durable (it runs even if this process stops now).
   */
  submit(task: Task): Promise<ExecutionRecord>;
  /**
   * Queues `text` as the next turn of `id`. A succeeded execution is reopened for it where the
   * implementation allows (ConflictError otherwise); one that ended any other way refuses it.
   */
  send(id: string, text: string): Promise<SentMessage>;
  /** Asks `id` to cancel; it ends `canceled` once its harness stopped. ConflictError once it has ended. */
  cancel(id: string): Promise<ExecutionRecord>;
  /** Ends `id`'s wait for a quota reset now. ConflictError unless it is `waiting`. */
  resume(id: string): Promise<ExecutionRecord>;
  /** Asks `id` to carry on with `request.harness` now. ConflictError unless it is `running` or `waiting`. */
  switch(id: string, request: SwitchRequest): Promise<ExecutionRecord>;
}
