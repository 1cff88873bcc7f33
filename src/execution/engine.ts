/**
 * The failover engine's entry points. `runTask` checks a task, creates its execution and drives it
 * to its end with the task's prompt as its one turn (what `harmflow run` does). `carryOn` drives an
 * execution that already exists from a TurnSource (what the session service does): a queued one
 * starts, an open one an earlier process left is recovered (recover.ts) and goes on, and one that
 * succeeded is reopened for a follow-up (a new deadline; the last attempt's harness session is
 * resumed when it has one). The loop itself is drive.ts.
 *
 * Each entry point opens the execution's event log and closes it; the caller owns the store.
 */
import { delimiter } from 'node:path';
import type { Clock } from '../core/clock.js';
import { NotFoundError } from '../core/errors.js';
import type { HomePaths } from '../core/home.js';
import type { ExecutionState } from '../core/outcome.js';
import { type Task, taskFromStore } from '../core/task.js';
import { openEventLog, readEvents } from '../events/log.js';
import type { EventRecord } from '../events/schema.js';
import type { ExecutionRecord, Store } from '../store/store.js';
import type { AttemptContext } from './context-schema.js';
import type { ExecutionControl } from './control.js';
import { createExecution } from './create.js';
import { type DriveInput, drive, freshProgress, type Progress } from './drive.js';
import { followUpRoute } from './follow-up-route.js';
import { releaseOwnership } from './owner-file.js';
import { type Preflight, preflight } from './preflight.js';
import { Recorder } from './recorder.js';
import { endedLast, recoverProgress } from './recover.js';
import { restoreRemovedWorktree } from './restore-worktree.js';
import type { RunSlot } from './run-slot.js';
import { singleTurn, type TurnSource } from './turns.js';

/**
 * 60 s: how long an interrupted harness (cancel, switch, deadline, service stop) may take to exit
 * before its whole process group is killed. The real CLIs exit within a second of SIGINT/SIGTERM in
 * the harness notes' runs; the budget only bounds one that hangs, and is long enough for one that is
 * saving its session or finishing a file write. A task's `interruptBudget` or the service's option
 * replaces it.
 */
export const DEFAULT_INTERRUPT_BUDGET_MS = 60_000;

export interface EngineOptions {
  readonly home: HomePaths;
  readonly store: Store;
  /** Directories put on the harnesses' PATH before the host's (e.g. the fake forge's). */
  readonly extraPath?: readonly string[];
  /** The interrupt budget when the task sets none. Default `DEFAULT_INTERRUPT_BUDGET_MS`. */
  readonly interruptBudgetMs?: number;
  /** Cancels the execution (it ends `canceled`). */
  readonly signal?: AbortSignal;
  /** Stops driving it without ending it (the service is stopping): see drive.ts. */
  readonly suspend?: AbortSignal;
  readonly hostEnv?: NodeJS.ProcessEnv;
  /** Receives every record as it is appended (the CLI prints the live timeline from it). */
  readonly onRecord?: (record: EventRecord) => void;
  /** Measurement points for benchmarks: the end of a turn's process and the next spawn. */
  readonly onAttemptExited?: (attempt: number) => void;
  readonly onAttemptSpawned?: (attempt: number, pid: number) => void;
  /** Steers the execution while it runs (e.g. a switch asked by hand). */
  readonly control?: ExecutionControl;
  /** The task's preflight, when the caller already ran it (to create nothing before it passes). */
  readonly checked?: Preflight;
  /** The clock of quota decisions and waits for a reset (a test moves it by hand); the system's by default. */
  readonly clock?: Clock;
  /** The execution's admission slot, given back while it waits for a quota reset (the service's owner). */
  readonly slot?: RunSlot;
  /** See DriveOptions.maxCrashedInRow (a cluster worker sets it). */
  readonly maxCrashedInRow?: number;
}

/** The PATH harnesses start with: HarmFlow's extra directories, then the host's. */
export function harnessPath(extraPath: readonly string[] = [], hostEnv: NodeJS.ProcessEnv = process.env): string {
  return [...extraPath, hostEnv.PATH ?? '/usr/bin:/bin'].join(delimiter);
}

export interface ExecutionResult {
  readonly id: string;
  /** The final state, or `suspended` when `suspend` stopped the drive with the execution still open. */
  readonly state: ExecutionState | 'suspended';
  readonly attempts: readonly AttemptContext[];
  readonly branch: string;
  readonly baseSha: string;
  readonly worktree: string;
  readonly contextFile: string;
  readonly eventsFile: string;
}

/** Checks the task, creates the execution and runs its prompt to the end. */
export async function runTask(
  task: Task,
  options: EngineOptions,
): Promise<ExecutionResult & { readonly state: ExecutionState }> {
  const hostEnv = options.hostEnv ?? process.env;
  const checked = options.checked ?? (await preflight(task, harnessPath(options.extraPath, hostEnv), hostEnv));
  const created = await createExecution(task, checked, options.home, options.store, 'running');
  const record = await options.store.getExecution(created.id);
  if (record === undefined) throw new Error(`execution ${created.id} vanished after it was created`);
  const result = await carry(record, created.task, singleTurn(task.prompt), options).finally(() =>
    releaseOwnership(options.home.ownerFile(created.id)),
  );
  if (result.state === 'suspended') throw new Error('runTask was suspended, but it takes no suspend signal');
  return { ...result, state: result.state };
}

/**
 * Drives the stored execution `id` from `turns`: starts it if it is `queued`, else recovers where an
 * earlier process left it and goes on. Throws NotFoundError for an unknown id. The caller must own
 * the execution (owner-file.ts) and releases it.
 */
export async function carryOn(id: string, turns: TurnSource, options: EngineOptions): Promise<ExecutionResult> {
  const record = await options.store.getExecution(id);
  if (record === undefined) throw new NotFoundError(`no execution ${id}`);
  const stored = await options.store.getTask(record.taskId);
  if (stored === undefined) throw new NotFoundError(`execution ${id} has no task record ${record.taskId}`);
  return carry(record, taskFromStore(stored.definition), turns, options);
}

async function carry(
  record: ExecutionRecord,
  task: Task,
  turns: TurnSource,
  options: EngineOptions,
): Promise<ExecutionResult> {
  const { home, store } = options;
  const { id } = record;
  const log = openEventLog(home.eventsFile(id), { execution: id });
  const recorder = new Recorder(log, id, options.onRecord);
  try {
    let progress: Progress = freshProgress(task);
    let started = Date.parse(record.startedAt ?? record.createdAt);
    let deadline = Date.parse(record.deadline);
    let resumeSession: DriveInput['resumeSession'];
    if (record.startedAt === undefined && record.attemptCount === 0) {
      started = Date.now();
      deadline = started + task.timeoutMs;
      await store.updateExecution(id, {
        state: 'running',
        startedAt: new Date(started).toISOString(),
        deadline: new Date(deadline).toISOString(),
      });
    }
    const history = readEvents(home.eventsFile(id), { keep: (r) => r.type.startsWith('execution.') });
    if (record.attemptCount === 0 && !history.some((r) => r.type === 'execution.started')) {
      recorder.executor('execution.started', {
        task: task.name,
        repo: record.repo,
        baseRef: task.baseRef,
        baseSha: record.baseSha,
        branch: record.branch,
        worktree: record.worktree,
        deadline: new Date(deadline).toISOString(),
        chain: task.chain.map((link) => link.harness),
        maxSwitches: task.maxSwitches,
      });
    } else {
      const recovered = await recoverProgress(record, task, home, store, recorder);
      progress = recovered.progress;
      // The store says `succeeded`, or `queued` while the reopened execution waited for its slot.
      if (record.state === 'succeeded' || endedLast(history)) {
        // Reopened by a follow-up: its worktree back if gc removed it, a new deadline, and the last attempt's session goes on.
        const worktreeRestored = await restoreRemovedWorktree(home, record);
        deadline = Date.now() + task.timeoutMs;
        // Its session lives in the private home it ran with: its own, or the one it resumed in turn.
        const route = followUpRoute(progress.attempts.at(-1));
        if (route.kind === 'resume') resumeSession = { sessionId: route.sessionId, attempt: route.home };
        await store.updateExecution(id, {
          state: 'running',
          endedAt: null,
          message: null,
          deadline: new Date(deadline).toISOString(),
        });
        recorder.executor('execution.reopened', {
          deadline: new Date(deadline).toISOString(),
          ...(resumeSession !== undefined && { resumedSession: resumeSession.sessionId }),
          ...(worktreeRestored && { worktreeRestored }),
        });
      } else {
        recorder.executor('execution.resumed', {
          reason: 'restart',
          ...(recovered.openAttempt !== undefined && { openAttempt: recovered.openAttempt }),
        });
      }
    }
    const input: DriveInput = {
      id,
      task,
      branch: record.branch,
      baseSha: record.baseSha,
      worktree: record.worktree,
      started,
      deadline,
      turns,
      progress,
      recorder,
      ...(resumeSession !== undefined && { resumeSession }),
    };
    const hostEnv = options.hostEnv ?? process.env;
    const end = await drive(input, {
      home,
      store,
      path: harnessPath(options.extraPath, hostEnv),
      hostEnv,
      interruptBudgetMs: task.interruptBudgetMs ?? options.interruptBudgetMs ?? DEFAULT_INTERRUPT_BUDGET_MS,
      ...(options.signal && { signal: options.signal }),
      ...(options.suspend && { suspend: options.suspend }),
      ...(options.control && { control: options.control }),
      ...(options.onAttemptExited && { onAttemptExited: options.onAttemptExited }),
      ...(options.onAttemptSpawned && { onAttemptSpawned: options.onAttemptSpawned }),
      ...(options.clock && { clock: options.clock }),
      ...(options.slot && { slot: options.slot }),
      ...(options.maxCrashedInRow !== undefined && { maxCrashedInRow: options.maxCrashedInRow }),
    });
    return {
      id,
      state: end.state,
      attempts: progress.attempts,
      branch: record.branch,
      baseSha: record.baseSha,
      worktree: record.worktree,
      contextFile: home.contextFile(id),
      eventsFile: home.eventsFile(id),
    };
  } finally {
    log.close();
  }
}
