/**
 * The API's records as the Workbench reads them: the fields of an execution, an attempt and an event
 * record it shows (docs/api.md). The service validates everything it writes with zod; the browser
 * is its own API's client and takes these shapes as given, reading optional fields as optional.
 */
import type { OwnerProcess } from './execution-cells.js';
import type { Wait } from './wait.js';

export interface ExecutionRecord {
  readonly id: string;
  readonly taskName: string;
  readonly repo: string;
  readonly baseRef: string;
  readonly baseSha: string;
  readonly branch: string;
  readonly worktree: string;
  readonly state: string;
  readonly createdAt: string;
  readonly startedAt?: string;
  readonly endedAt?: string;
  readonly deadline: string;
  readonly attemptCount: number;
  readonly currentHarness?: string;
  readonly message?: string;
  readonly pullRequestUrl?: string;
  readonly turnCount?: number;
}

export interface AttemptRecord {
  readonly number: number;
  readonly harness: string;
  readonly model?: string;
  readonly simulated: boolean;
  readonly startedAt: string;
  readonly endedAt?: string;
  readonly outcome?: string;
  readonly message?: string;
  readonly resetsAt?: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly costUsd?: number;
}

/** What an execution takes on disk (`include=disk`, `GET /api/executions/:id/disk`). */
export interface ExecutionDisk {
  readonly worktreeBytes: number;
  readonly runBytes: number;
  /** When `harmflow gc` removed the worktree. */
  readonly worktreeRemovedAt?: string;
}

/** `GET /api/executions?include=attempts` (and `waits`, `disk`, `owners`, with `include=attempts,waits,disk,owners`). */
export interface ExecutionList {
  readonly executions: readonly ExecutionRecord[];
  readonly attempts: Readonly<Record<string, readonly AttemptRecord[]>>;
  readonly waits?: Readonly<Record<string, Wait>>;
  readonly disk?: Readonly<Record<string, ExecutionDisk>>;
  readonly owners?: Readonly<Record<string, OwnerProcess>>;
}

/** One line of `events.jsonl`. */
export interface EventRecord {
  readonly ts: string;
  readonly execution: string;
  readonly attempt?: number;
  readonly harness?: string;
  readonly source: string;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * A listed execution with its attempts, the wait it is in, what it takes on disk and the process
 * that drives it when the answer has them, as the list screens show it.
 */
export type ExecutionRow = ExecutionRecord & {
  readonly attemptsList: readonly AttemptRecord[];
  readonly wait?: Wait;
  readonly disk?: ExecutionDisk;
  readonly owner?: OwnerProcess;
};

/** The list's executions, each with its attempts (none when the answer lists none for it), its wait, its disk and its owner. */
export function withAttempts(list: ExecutionList): ExecutionRow[] {
  return list.executions.map((execution) => {
    const wait = list.waits?.[execution.id];
    const disk = list.disk?.[execution.id];
    const owner = list.owners?.[execution.id];
    return {
      ...execution,
      attemptsList: list.attempts[execution.id] ?? [],
      ...(wait !== undefined && { wait }),
      ...(disk !== undefined && { disk }),
      ...(owner !== undefined && { owner }),
    };
  });
}

/** Tokens (in + out) and cost over attempts; undefined when no attempt reported any. */
export function totals(attempts: readonly AttemptRecord[]): { tokens?: number; usd?: number } {
  let tokens: number | undefined;
  let usd: number | undefined;
  for (const attempt of attempts) {
    if (attempt.inputTokens !== undefined || attempt.outputTokens !== undefined) {
      tokens = (tokens ?? 0) + (attempt.inputTokens ?? 0) + (attempt.outputTokens ?? 0);
    }
    if (attempt.costUsd !== undefined) usd = (usd ?? 0) + attempt.costUsd;
  }
  return { ...(tokens !== undefined && { tokens }), ...(usd !== undefined && { usd }) };
}
