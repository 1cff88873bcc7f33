/**
 * The Store: the one seam between HarmFlow and its database of tasks, executions and attempts.
 * Adapters: sqlite/ (the embedded default; `:memory:` is the fake) and postgres/ (a database several
 * processes and machines share, for cluster mode). Every adapter passes test/store/conformance.ts. Every method returns a Promise, so a
 * networked adapter fits the same interface.
 *
 * Records are exact: a field that was never set is absent (never `undefined` or `null`), except
 * `exitCode` and `signal`, whose `null` is a value (a process killed by a signal has no exit code).
 * Timestamps are ISO 8601 strings (`Date.prototype.toISOString`).
 */
import { ConflictError } from '../core/errors.js';
import type { ExecutionState, Outcome } from '../core/outcome.js';
import type { QuotaState } from '../core/quota.js';

/** A task as it was run: its resolved definition, kept as JSON. */
export interface TaskRecord {
  readonly id: string;
  readonly name: string;
  /** The resolved task, JSON-serializable (a Set becomes an array before it gets here). */
  readonly definition: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
}

/** One execution of a task: its workspace, its state and its one deadline. */
export interface ExecutionRecord {
  readonly id: string;
  readonly taskId: string;
  readonly taskName: string;
  readonly repo: string;
  readonly baseRef: string;
  readonly baseSha: string;
  readonly branch: string;
  readonly worktree: string;
  readonly runDir: string;
  readonly state: ExecutionState;
  readonly createdAt: string;
  readonly startedAt?: string;
  readonly endedAt?: string;
  readonly deadline: string;
  readonly attemptCount: number;
  readonly currentHarness?: string;
  readonly message?: string;
  /**
   * The URL of the latest pull request an attempt of it opened, as observed (`gh pr create` exited 0
   * and printed it: context.json's `pullRequest`); absent while none was, and on records written
   * before HarmFlow kept it.
   */
  readonly pullRequestUrl?: string;
  /**
   * How many of its turns its harnesses completed (the task's prompt and each follow-up message,
   * each counted once however many attempts or deliveries it took); absent on records written before
   * HarmFlow kept it, until their next turn completes.
   */
  readonly turnCount?: number;
}

/**
 * A change to an execution, with JSON Merge Patch meaning (RFC 7396): an absent key keeps the stored
 * value, a present key sets it, and `null` removes an optional field. Identity fields (id, task, repo,
 * baseRef, createdAt) never change.
 */
export interface ExecutionPatch {
  readonly baseSha?: string;
  readonly branch?: string;
  readonly worktree?: string;
  readonly runDir?: string;
  readonly state?: ExecutionState;
  readonly startedAt?: string | null;
  readonly endedAt?: string | null;
  readonly deadline?: string;
  readonly attemptCount?: number;
  readonly currentHarness?: string | null;
  readonly message?: string | null;
  readonly pullRequestUrl?: string | null;
  readonly turnCount?: number | null;
}

/** One harness session inside an execution, numbered from 1. */
export interface AttemptRecord {
  readonly execution: string;
  readonly number: number;
  readonly harness: string;
  readonly model?: string;
  readonly simulated: boolean;
  readonly sessionId?: string;
  readonly startedAt: string;
  readonly endedAt?: string;
  readonly outcome?: Outcome;
  /** The process's exit code; `null` when a signal ended it. */
  readonly exitCode?: number | null;
  /** The signal that ended the process; `null` when it exited by itself. */
  readonly signal?: string | null;
  readonly message?: string;
  readonly resetsAt?: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly costUsd?: number;
}

/**
 * A change to an attempt, with the meaning of `ExecutionPatch`, except that `null` is a value of
 * `exitCode` and `signal` (it sets them to null; they are never removed). Identity fields (execution,
 * number, harness, simulated, startedAt) never change.
 */
export interface AttemptPatch {
  readonly model?: string | null;
  readonly sessionId?: string | null;
  readonly endedAt?: string | null;
  readonly outcome?: Outcome | null;
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly message?: string | null;
  readonly resetsAt?: string | null;
  readonly inputTokens?: number | null;
  readonly outputTokens?: number | null;
  readonly costUsd?: number | null;
}

/**
 * The last word on one harness's quota (one account of it): the quota registry. Written by the engine
 * from what attempts report, read before an attempt starts to skip a harness known to be out.
 */
export interface QuotaRecord {
  readonly harness: string;
  /** The account of the harness a task's link names (`account:`); `''` for its default; `sim:…` for a simulated link. */
  readonly account: string;
  readonly state: QuotaState;
  /** When the limit (for `warning`, the window reported) resets, ISO 8601, when the harness said so; absent when unknown. */
  readonly resetsAt?: string;
  /** The share of the limit used (0–1), when the harness reported it. */
  readonly utilization?: number;
  /** The event type that told: `quota.exhausted`, `rate_limit`, `attempt.ended`. */
  readonly source: string;
  /** The harness's own words, when it gave some. */
  readonly message?: string;
  /** The execution and attempt that observed it, when one did. */
  readonly execution?: string;
  readonly attempt?: number;
  readonly observedAt: string;
}

/** A submit's idempotency key (docs/api.md, "Idempotency"): the key and the hash of its request. */
export interface SubmitKey {
  /** The `Idempotency-Key` as the client sent it; unique in the store. */
  readonly key: string;
  /** SHA-256 of the request's body as canonical JSON, hex. */
  readonly requestHash: string;
}

/** A submit's key as recorded with the execution it created. */
export interface SubmitKeyRecord extends SubmitKey {
  /** The execution as it was inserted: the submit's answer. */
  readonly execution: ExecutionRecord;
  readonly createdAt: string;
}

/** `insertSubmission` refused: another execution is recorded under the key. Nothing was inserted. */
export class SubmitKeyTakenError extends ConflictError {
  readonly key: string;
  constructor(key: string) {
    super(`another execution was submitted with Idempotency-Key ${JSON.stringify(key)}`);
    this.key = key;
  }
}

/** Which executions to list. */
export interface ExecutionQuery {
  /** Only executions in one of these states; an empty list matches none. Default: every state. */
  readonly states?: readonly ExecutionState[];
  /** At most this many. Default: all. */
  readonly limit?: number;
}

/**
 * Store keeps tasks, executions and attempts. The opener owns it and closes it; `close()` is
 * idempotent, and any other call after it rejects. Each method is atomic; calls may overlap, and
 * several processes may open the same database.
 */
export interface Store {
  /** Adds a task; rejects if its id exists. */
  insertTask(task: TaskRecord): Promise<void>;
  /** Returns the task, or undefined if there is none with this id. */
  getTask(id: string): Promise<TaskRecord | undefined>;
  /** Adds an execution; rejects if its id exists or its task does not. */
  insertExecution(execution: ExecutionRecord): Promise<void>;
  /**
   * Adds a new execution and its task (`execution.taskId` is `task.id`) in one transaction, with
   * `key` recorded for it when given: all of them or none. Rejects with SubmitKeyTakenError when
   * an execution is recorded under `key.key` already (of submits racing with one key, the first to
   * commit wins; the others wait for it, then are refused); rejects as `insertTask` and
   * `insertExecution` do otherwise.
   */
  insertSubmission(
    records: { readonly task: TaskRecord; readonly execution: ExecutionRecord },
    key?: SubmitKey,
  ): Promise<void>;
  /** The submit recorded under `key`, or undefined. Kept as long as its execution. */
  getSubmitKey(key: string): Promise<SubmitKeyRecord | undefined>;
  /** Applies a patch to an execution; rejects with NotFoundError if there is none with this id. */
  updateExecution(id: string, patch: ExecutionPatch): Promise<void>;
  /** Returns the execution, or undefined if there is none with this id. */
  getExecution(id: string): Promise<ExecutionRecord | undefined>;
  /** Returns the executions whose id starts with `prefix` (exact, case-sensitive), newest first. */
  findExecutions(query: { readonly prefix: string }): Promise<ExecutionRecord[]>;
  /** Returns executions newest first (by createdAt, then id). */
  listExecutions(query?: ExecutionQuery): Promise<ExecutionRecord[]>;
  /** Adds an attempt; rejects if (execution, number) exists or the execution does not. */
  insertAttempt(attempt: AttemptRecord): Promise<void>;
  /** Applies a patch to an attempt; rejects with NotFoundError if there is no such attempt. */
  updateAttempt(execution: string, number: number, patch: AttemptPatch): Promise<void>;
  /** Returns an execution's attempts ordered by number; none for an unknown execution. */
  listAttempts(execution: string): Promise<AttemptRecord[]>;
  /**
   * Records what is known of one harness's quota, replacing the record of the same harness and
   * account unless that one was observed later (`observedAt`): of two executions reporting at once,
   * the newer observation wins, whichever writes last.
   */
  putQuota(record: QuotaRecord): Promise<void>;
  /** Every quota record, ordered by harness, then account. */
  listQuotas(): Promise<QuotaRecord[]>;
  /** Releases the database. Idempotent. */
  close(): Promise<void>;
}
