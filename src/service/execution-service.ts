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
 * is unreachable: try again later), IdempotencyKeyReusedError 422 (a key sent before with another
 * request).
 *
 * Idempotency (docs/api.md, "Idempotency"): `submit` and `send` take the request's `Idempotency-Key`
 * with the hash of its body. The first request with a key does the work and records the key in the
 * same durable write that acknowledges it; a later one with the same key and the same hash does
 * nothing and resolves to the first one's answer, whatever happened since (the turn ran, the
 * execution ended, the process restarted). An error answer records nothing: a retry after one is
 * served anew.
 */
import { EXIT, HarmflowError } from '../core/errors.js';
import type { Task } from '../core/task.js';
import type { SwitchRequest } from '../execution/control.js';
import type { ExecutionRecord, Store } from '../store/store.js';

/** A follow-up message accepted: its turn id and how many turns wait to run, itself included. */
export interface SentMessage {
  readonly turn: string;
  readonly queued: number;
}

/** A request's `Idempotency-Key` and the hash of its body (src/server/idempotency.ts). */
export interface IdempotentRequest {
  /** The key as the client sent it: 1 to 255 printable ASCII characters. */
  readonly key: string;
  /** SHA-256 of the request's body as canonical JSON, hex. */
  readonly requestHash: string;
}

/** What `submit` and `send` take besides the request. */
export interface WriteOptions {
  /** The request's idempotency key; without it every request does its work. */
  readonly idempotency?: IdempotentRequest;
}

/**
 * A key that came before with another request (another body, so another hash): the draft of the
 * IETF (draft-ietf-httpapi-idempotency-key-header) answers it 422. Nothing is done.
 */
export class IdempotencyKeyReusedError extends HarmflowError {
  constructor(key: string) {
    super(
      `Idempotency-Key ${JSON.stringify(key)} was sent before with another request: send a new key with a new request`,
      EXIT.usage,
    );
  }
}

/** Throws IdempotencyKeyReusedError unless `request` has the hash `first` recorded for its key. */
export function checkSameRequest(request: IdempotentRequest, first: { readonly requestHash: string }): void {
  if (first.requestHash !== request.requestHash) throw new IdempotencyKeyReusedError(request.key);
}

/**
 * The execution a submit with `request.key` created, as it was then (the store records the key with
 * it: Store.insertSubmission), or undefined when none was. Throws IdempotencyKeyReusedError when the
 * key came with another request.
 */
export async function submittedBefore(
  store: Pick<Store, 'getSubmitKey'>,
  request: IdempotentRequest,
): Promise<ExecutionRecord | undefined> {
  const first = await store.getSubmitKey(request.key);
  if (first === undefined) return undefined;
  checkSameRequest(request, first);
  return first.execution;
}

export interface ExecutionService {
  /**
   * Creates an execution of `task`, `queued`, and has it run. Resolves to its record once the
   * request is durable (it runs even if this process stops now). With `options.idempotency`, a key
   * seen before answers the execution it created, as it was then.
   */
  submit(task: Task, options?: WriteOptions): Promise<ExecutionRecord>;
  /**
   * Queues `text` as the next turn of `id`. A succeeded execution is reopened for it where the
   * implementation allows (ConflictError otherwise); one that ended any other way refuses it. With
   * `options.idempotency`, a key seen before for `id` answers the turn it queued, as it was then.
   */
  send(id: string, text: string, options?: WriteOptions): Promise<SentMessage>;
  /** Asks `id` to cancel; it ends `canceled` once its harness stopped. ConflictError once it has ended. */
  cancel(id: string): Promise<ExecutionRecord>;
  /** Ends `id`'s wait for a quota reset now. ConflictError unless it is `waiting`. */
  resume(id: string): Promise<ExecutionRecord>;
  /** Asks `id` to carry on with `request.harness` now. ConflictError unless it is `running` or `waiting`. */
  switch(id: string, request: SwitchRequest): Promise<ExecutionRecord>;
  /**
   * What stopping this process would suspend now: the executions it drives, counted by where each
   * is. Suspended executions are not ended: they carry on at the next start (docs/service.md).
   */
  suspending(): Promise<Suspending>;
}

/**
 * The executions a stop suspends, counted when it is asked (`POST /api/stop` answers with it before
 * the stop is done): `running` a turn or between turns, `waiting` for a quota reset, `queued` for an
 * admission slot. Each carries on at the next start, unless it ends on its own first (a turn that
 * completes before its interrupt lands, with nothing queued behind it).
 */
export interface Suspending {
  readonly running: number;
  readonly waiting: number;
  readonly queued: number;
}
