/**
 * The failover engine: runs one execution of a task from its first attempt to its end. Attempt 1
 * runs on the chain's primary; when an attempt ends with an outcome that switches (quota_exhausted,
 * plus the task's `failoverOn`) and the chain, the switch budget and the deadline allow it, the same
 * execution goes on with the next harness: same worktree and branch, one events.jsonl, one deadline,
 * and a handoff (context.json + a summary in the prompt) so nothing is done twice.
 *
 * The engine owns the execution's event log and closes it; the caller owns the store.
 */
import { writeFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import { compact } from '../core/compact.js';
import type { HomePaths } from '../core/home.js';
import { writeJsonAtomic } from '../core/json-file.js';
import type { ExecutionState } from '../core/outcome.js';
import type { Task } from '../core/task.js';
import { openEventLog } from '../events/log.js';
import type { EventRecord } from '../events/schema.js';
import { getAdapter } from '../harnesses/registry.js';
import type { Store } from '../store/store.js';
import { inspectWorkspace, type WorkspaceSnapshot } from '../workspace/inspect.js';
import { AttemptObserver } from './attempt-observer.js';
import type { AttemptContext, ExecutionContext } from './context-schema.js';
import type { ExecutionControl } from './control.js';
import { createExecution } from './create.js';
import { buildHandoffPrompt } from './handoff.js';
import { type Preflight, preflight } from './preflight.js';
import { Recorder } from './recorder.js';
import { runAttempt } from './run-attempt.js';
import { decideAfterAttempt } from './switch-policy.js';

/**
 * 5 s: enough for a CLI to flush its session file after SIGTERM (both real CLIs exit within a
 * second of it in the harness notes' runs), short enough that a hung harness is gone quickly.
 */
export const DEFAULT_INTERRUPT_BUDGET_MS = 5_000;

export interface EngineOptions {
  readonly home: HomePaths;
  readonly store: Store;
  /** Directories put on the harnesses' PATH before the host's (e.g. the fake forge's). */
  readonly extraPath?: readonly string[];
  readonly interruptBudgetMs?: number;
  readonly signal?: AbortSignal;
  readonly hostEnv?: NodeJS.ProcessEnv;
  /** Receives every record as it is appended (the CLI prints the live timeline from it). */
  readonly onRecord?: (record: EventRecord) => void;
  /** Measurement points for benchmarks: the end of an attempt's process and the next spawn. */
  readonly onAttemptExited?: (attempt: number) => void;
  readonly onAttemptSpawned?: (attempt: number, pid: number) => void;
  /** Steers the execution while it runs (e.g. a switch asked by hand). */
  readonly control?: ExecutionControl;
  /** The task's preflight, when the caller already ran it (to create nothing before it passes). */
  readonly checked?: Preflight;
}

/** The PATH harnesses start with: HarmFlow's extra directories, then the host's. */
export function harnessPath(extraPath: readonly string[] = [], hostEnv: NodeJS.ProcessEnv = process.env): string {
  return [...extraPath, hostEnv.PATH ?? '/usr/bin:/bin'].join(delimiter);
}

export interface ExecutionResult {
  readonly id: string;
  readonly state: ExecutionState;
  readonly attempts: readonly AttemptContext[];
  readonly branch: string;
  readonly baseSha: string;
  readonly worktree: string;
  readonly contextFile: string;
  readonly eventsFile: string;
}

/** Checks the task, creates the execution and runs it to its end. */
export async function runTask(task: Task, options: EngineOptions): Promise<ExecutionResult> {
  const hostEnv = options.hostEnv ?? process.env;
  const path = harnessPath(options.extraPath, hostEnv);
  const { repoRoot, baseSha } = options.checked ?? (await preflight(task, path));

  const { home, store } = options;
  const { id, branch, worktree, started, deadline } = await createExecution(task, { repoRoot, baseSha }, home, store);
  const log = openEventLog(home.eventsFile(id), { execution: id });
  const recorder = new Recorder(log, id, options.onRecord);
  const contextFile = home.contextFile(id);
  const attempts: AttemptContext[] = [];
  const context = (): ExecutionContext => ({
    version: 1,
    execution: id,
    task: task.name,
    branch,
    baseRef: task.baseRef,
    baseSha,
    worktree,
    writtenAt: new Date().toISOString(),
    attempts,
  });

  recorder.executor('execution.started', {
    task: task.name,
    repo: repoRoot,
    baseRef: task.baseRef,
    baseSha,
    branch,
    worktree,
    deadline: iso(deadline),
    chain: task.chain.map((link) => link.harness),
    maxSwitches: task.maxSwitches,
  });

  let state: ExecutionState = 'failed';
  let endMessage = '';
  let chainIndex = 0;
  let before: WorkspaceSnapshot | undefined = await inspect(worktree, baseSha, branch, recorder);
  try {
    for (let number = 1; ; number++) {
      const spec = task.chain[chainIndex];
      if (!spec) throw new Error(`chain index ${chainIndex} out of range`);
      const adapter = getAdapter(spec.harness);
      const ref = { number, harness: spec.harness };
      let prompt = task.prompt;
      if (attempts.length > 0) {
        writeJsonAtomic(contextFile, context());
        recorder.executor('context.written', { path: contextFile, attempts: attempts.length }, ref);
        prompt = buildHandoffPrompt(task.prompt, context(), contextFile);
      }
      const startedAt = new Date().toISOString();
      await store.insertAttempt({
        execution: id,
        number,
        harness: spec.harness,
        ...(spec.model !== undefined && { model: spec.model }),
        simulated: spec.simulate !== undefined,
        startedAt,
      });
      await store.updateExecution(id, { attemptCount: number, currentHarness: spec.harness });
      recorder.executor(
        'attempt.started',
        {
          ...(spec.model !== undefined && { model: spec.model }),
          command: spec.simulate === undefined ? adapter.binary : `sim (playing ${spec.harness})`,
          simulated: spec.simulate !== undefined,
          handoff: attempts.length > 0,
          ...(attempts.length > 0 && { contextPath: contextFile }),
          timeLeftMs: Math.max(0, deadline - Date.now()),
          prompt,
        },
        ref,
      );

      const observer = new AttemptObserver(task.name, worktree);
      const result = await runAttempt({
        ref,
        adapter,
        spec,
        prompt,
        worktree,
        attemptDir: home.attemptDir(id, number),
        deadline,
        interruptBudgetMs: options.interruptBudgetMs ?? DEFAULT_INTERRUPT_BUDGET_MS,
        path,
        hostEnv,
        recorder,
        observer,
        ...(options.signal && { signal: options.signal }),
        ...(options.control && { control: options.control }),
        ...(options.onAttemptSpawned && { onSpawned: (pid: number) => options.onAttemptSpawned?.(number, pid) }),
      });
      options.onAttemptExited?.(number);

      if (result.outcome === 'quota_exhausted') {
        recorder.executor('quota.exhausted', compact({ message: result.message, resetsAt: result.resetsAt }), ref);
      }
      const after = await inspect(worktree, baseSha, branch, recorder, ref);
      attempts.push(
        observer.summarize({
          number,
          harness: spec.harness,
          ...(spec.model !== undefined && { model: spec.model }),
          simulated: spec.simulate !== undefined,
          outcome: result.outcome,
          ...compact({ message: result.message, resetsAt: result.resetsAt }),
          startedAt: result.startedAt,
          endedAt: result.endedAt,
          ...(before && { before }),
          ...(after && { after }),
        }),
      );
      before = after;
      recorder.executor(
        'attempt.ended',
        {
          outcome: result.outcome,
          exitCode: result.exitCode,
          signal: result.signal,
          ...compact({ message: result.message, sessionId: observer.sessionId, resetsAt: result.resetsAt }),
          durationMs: result.durationMs,
        },
        ref,
      );
      await store.updateAttempt(id, number, {
        endedAt: result.endedAt,
        outcome: result.outcome,
        exitCode: result.exitCode,
        signal: result.signal,
        ...compact({
          message: result.message,
          resetsAt: result.resetsAt,
          sessionId: observer.sessionId,
          model: observer.model,
          ...observer.usage,
        }),
      });

      const decision = decideAfterAttempt({
        outcome: result.outcome,
        switchOn: task.switchOn,
        chainIndex,
        chainLength: task.chain.length,
        switchesMade: number - 1,
        maxSwitches: task.maxSwitches,
        timeLeftMs: deadline - Date.now(),
      });
      if (decision.kind === 'end') {
        state = decision.state;
        endMessage =
          decision.state === 'succeeded' ? 'completed' : `attempt ${number} ${result.outcome}; ${decision.why}`;
        break;
      }
      const next = task.chain[decision.nextIndex];
      recorder.executor(
        'failover',
        {
          from: spec.harness,
          to: next?.harness ?? '?',
          reason: result.outcome,
          switchNumber: number,
          maxSwitches: task.maxSwitches,
        },
        ref,
      );
      chainIndex = decision.nextIndex;
    }
  } finally {
    writeJsonAtomic(contextFile, context());
    const endedAt = Date.now();
    recorder.executor('execution.ended', {
      state,
      attempts: attempts.length,
      durationMs: endedAt - started,
      ...(endMessage && { message: endMessage }),
    });
    log.close();
    if (state !== 'succeeded') writeFileSync(home.endedMarker(id), `${state}\n`);
    await store.updateExecution(id, { state, endedAt: iso(endedAt), ...(endMessage && { message: endMessage }) });
  }
  return { id, state, attempts, branch, baseSha, worktree, contextFile, eventsFile: home.eventsFile(id) };
}

async function inspect(
  worktree: string,
  baseSha: string,
  branch: string,
  recorder: Recorder,
  ref?: { number: number; harness: string },
): Promise<WorkspaceSnapshot | undefined> {
  try {
    const snapshot = await inspectWorkspace({ worktree, baseSha, branch });
    recorder.executor(
      'workspace.inspected',
      {
        head: snapshot.head,
        changedFiles: snapshot.changedFiles,
        commits: snapshot.commits,
        ...(snapshot.remote && { remote: snapshot.remote }),
        durationMs: snapshot.durationMs,
      },
      ref,
    );
    return snapshot;
  } catch (error) {
    recorder.executor('warning', { message: `workspace inspection failed: ${String(error)}` }, ref);
    return undefined;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
