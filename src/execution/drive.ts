/**
 * The failover loop: drives one execution from where it stands to its end. Each attempt is one
 * harness session on one link of the chain; each turn (the task's prompt, then every follow-up
 * message, from a TurnSource) is one prompt delivered to that session — a follow-up resumes the
 * harness's own session (`--resume`, `exec resume`). When a turn ends with an outcome that switches
 * (quota_exhausted, plus the task's `failoverOn`) and the chain, the switch budget and the deadline
 * allow it, the same execution goes on with the next harness: same worktree and branch, one
 * events.jsonl, one deadline, and a handoff (context.json + a summary in the prompt), and the turn
 * that was not finished is delivered to the new attempt. A follow-up for an attempt whose harness
 * reported no session to resume starts a new attempt on the same link, with the handoff.
 *
 * Before each new attempt the quota registry has its say (next-link.ts): a link whose harness is
 * known to be out of quota is skipped, and when every harness is out the execution waits for the
 * first reset (if the task allows it) and carries on there, or ends saying why. A waiting execution
 * gives its admission slot back (`slot`) and takes one again before it carries on. With
 * `switchAtUtilization`, an attempt whose harness reports its limit at or over that share is ended
 * `switched` at the next turn boundary, when a harness to switch to is free, and the next turn goes
 * to the next link with the handoff.
 *
 * Cancel (`signal`) ends the execution `canceled`: a running turn is interrupted (SIGINT, then the
 * interrupt budget, then a kill of its group); between turns it stops at once. Suspend (`suspend`,
 * the service stopping) interrupts the same way but leaves the execution open: no `execution.ended`,
 * the turn stays in flight, and the service carries it on at its next start.
 *
 * The caller owns the store, the turn source and the recorder's log; drive closes nothing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Clock, systemClock } from '../core/clock.js';
import { compact } from '../core/compact.js';
import type { HomePaths } from '../core/home.js';
import { writeJsonAtomic } from '../core/json-file.js';
import type { ExecutionState, Outcome } from '../core/outcome.js';
import type { Task } from '../core/task.js';
import { getAdapter } from '../harnesses/registry.js';
import type { Store } from '../store/store.js';
import { baseBranchOf } from '../workspace/base-branch.js';
import { inspectWorkspace, type WorkspaceSnapshot } from '../workspace/inspect.js';
import { gatesEnabled, writeAttemptGates } from './attempt-gates.js';
import { AttemptObserver } from './attempt-observer.js';
import type { AttemptContext, ExecutionContext } from './context-schema.js';
import type { ExecutionControl } from './control.js';
import { buildHandoffPrompt, type HandledMessage } from './handoff.js';
import { LiveUsage } from './live-usage.js';
import { nextLink } from './next-link.js';
import { overThreshold, QuotaView, quotaRecordOf } from './quota.js';
import type { AttemptRef, Recorder } from './recorder.js';
import { type AttemptResult, runAttempt } from './run-attempt.js';
import type { RunSlot } from './run-slot.js';
import { decideAfterAttempt } from './switch-policy.js';
import { REDELIVERY_PREFIX, type Turn, type TurnSource } from './turns.js';

/** Where an execution stands: empty for a new one, rebuilt from disk for one carried on (recover.ts). */
export interface Progress {
  /** Every ended attempt, as context.json has them. */
  readonly attempts: AttemptContext[];
  /** Follow-up messages (not `t1`) that turns completed, in order. */
  readonly handled: HandledMessage[];
  chainIndex: number;
  switchesMade: number;
  /** The number the next attempt gets. */
  nextNumber: number;
}

/** A new execution's progress. */
export function freshProgress(): Progress {
  return { attempts: [], handled: [], chainIndex: 0, switchesMade: 0, nextNumber: 1 };
}

/** The execution being driven: what it is, and where it stands. */
export interface DriveInput {
  readonly id: string;
  readonly task: Task;
  readonly branch: string;
  readonly baseSha: string;
  readonly worktree: string;
  /** Epoch ms when it first started, and of its one deadline. */
  readonly started: number;
  readonly deadline: number;
  readonly turns: TurnSource;
  readonly progress: Progress;
  readonly recorder: Recorder;
  /**
   * A harness session the first attempt continues (a reopened execution), without a handoff: its id
   * and the attempt that ran it, whose private home holds it.
   */
  readonly resumeSession?: { readonly sessionId: string; readonly attempt: number };
}

export interface DriveOptions {
  readonly home: HomePaths;
  readonly store: Store;
  readonly path: string;
  readonly hostEnv: NodeJS.ProcessEnv;
  readonly interruptBudgetMs: number;
  readonly signal?: AbortSignal;
  readonly suspend?: AbortSignal;
  readonly control?: ExecutionControl;
  readonly onAttemptExited?: (attempt: number) => void;
  readonly onAttemptSpawned?: (attempt: number, pid: number) => void;
  /** The clock of quota decisions and waits for a reset; the system clock by default. */
  readonly clock?: Clock;
  /** The execution's admission slot, given back during a wait for a quota reset (the service's owner). */
  readonly slot?: RunSlot;
}

/** How the drive ended: a final state, or `suspended` (still open, to be carried on). */
export type DriveEnd = { readonly state: ExecutionState } | { readonly state: 'suspended' };

/** How an attempt's turns ended: the last turn's result, and whether more turns wait for a new attempt. */
interface AttemptEnd {
  readonly result: AttemptResult;
  readonly outcome: Outcome;
  readonly message: string | undefined;
  /** True when the attempt ended only because its session cannot be resumed for the next turn. */
  readonly moreTurns: boolean;
}

/** Runs attempts and turns until the execution ends or is suspended. */
export async function drive(input: DriveInput, options: DriveOptions): Promise<DriveEnd> {
  const { id, task, branch, baseSha, worktree, recorder, progress, turns } = input;
  const { home, store } = options;
  const contextFile = home.contextFile(id);
  const context = (): ExecutionContext => ({
    version: 1,
    execution: id,
    task: task.name,
    branch,
    baseRef: task.baseRef,
    baseSha,
    worktree,
    writtenAt: new Date().toISOString(),
    attempts: progress.attempts,
  });

  let end: DriveEnd = { state: 'failed' };
  let endMessage = '';
  let before = await inspect(worktree, baseSha, branch, recorder);
  const gates = gatesEnabled(task.gates) ? task.gates : undefined;
  const baseBranch = gates && (await baseBranchOf(task.repo, task.baseRef));
  /** Turns this drive delivered: one seen again was not finished by an attempt that switched. */
  const delivered = new Set<string>();
  let resumeSession = input.resumeSession;
  /** The running attempt's usage writer; stopped at the attempt's end, or here if the drive throws first. */
  let liveUsage: LiveUsage | undefined;
  const clock = options.clock ?? systemClock;
  /**
   * The link the next attempt starts on (quota registry: next-link.ts), after waiting for a reset when
   * every harness is out; `stop` when the execution ends here (`end` and `endMessage` are set) or is
   * suspended while it waits.
   */
  const linkFrom = async (from: number, waitForReset: Task['waitForReset']) =>
    nextLink({
      chain: task.chain,
      from,
      view: await QuotaView.load(store, task.quotaCoolDownMs),
      now: clock.now(),
      waitForReset,
      deadline: input.deadline,
      switchAtUtilization: task.switchAtUtilization,
    });
  /** Ends the drive here when a cancel or a stop came: true when one did (`end` and `endMessage` are set). */
  const stoppedWhileWaiting = (): boolean => {
    if (options.signal?.aborted) {
      end = { state: 'canceled' };
      endMessage = 'canceled while waiting for a quota reset';
      return true;
    }
    if (options.suspend?.aborted) end = { state: 'suspended' };
    return options.suspend?.aborted === true;
  };
  const chooseLink = async (from: number): Promise<number | 'stop'> => {
    const next = await linkFrom(from, task.waitForReset);
    for (const skip of next.skipped) {
      recorder.executor(
        'harness.skipped',
        skip.out === undefined
          ? {
              harness: skip.spec.harness,
              utilization: skip.utilization,
              ...compact({ threshold: task.switchAtUtilization }),
            }
          : { harness: skip.spec.harness, until: new Date(skip.out.until).toISOString(), known: skip.out.known },
      );
    }
    if (next.kind === 'link') return next.index;
    if (next.kind === 'end') {
      end = { state: next.state };
      endMessage = next.why;
      return 'stop';
    }
    const harness = task.chain[next.index]?.harness ?? '?';
    const waitMs = Math.max(0, next.out.until - clock.now()) + resetJitterMs();
    recorder.executor('quota.waiting', {
      harness,
      until: new Date(next.out.until).toISOString(),
      known: next.out.known,
      waitMs,
    });
    // Watched before the state says `waiting`, so a resume asked as soon as it does is not lost.
    const resumed = new AbortController();
    const unwatch = options.control?.watchResume(() => resumed.abort());
    await store.updateExecution(id, { state: 'waiting' });
    options.slot?.release();
    await clock.sleep(waitMs, anySignal(options.signal, options.suspend, resumed.signal));
    unwatch?.();
    if (stoppedWhileWaiting()) return 'stop';
    recorder.executor('wait.ended', { harness, reason: resumed.signal.aborted ? 'resumed' : 'reset' });
    if (options.slot !== undefined) {
      // Queued for a slot like a new execution; the attempt that follows sets the state to `running`.
      await store.updateExecution(id, { state: 'queued' });
      await options.slot.acquire(anySignal(options.signal, options.suspend)).catch(() => undefined);
      if (stoppedWhileWaiting()) return 'stop';
    }
    return next.index;
  };
  /** True when a switch has just chosen the next attempt's link (the loop does not choose again). */
  let linkChosen = false;
  /** The utilization at which the attempt that just ended was switched before its limit, if it was. */
  let switchedEarly: number | undefined;
  /**
   * At a turn boundary of an attempt at or over `switchAtUtilization`: why it ends `switched`, when a
   * switch is left and a later link is free; otherwise undefined (a warning says it stays).
   */
  const switchBeforeLimit = async (harness: string, utilization: number): Promise<string | undefined> => {
    const used = `${harness} reports ${Math.round(utilization * 100)}% of its limit used (switchAtUtilization ${task.switchAtUtilization})`;
    const next = await linkFrom(progress.chainIndex + 1, false);
    const switchLeft = progress.switchesMade < task.maxSwitches;
    if (switchLeft && next.kind === 'link') return `${used}: switching before it runs out`;
    const why =
      next.kind === 'link' ? `no switch is left (maxSwitches: ${task.maxSwitches})` : 'no later harness is free';
    recorder.executor('warning', { message: `${used}, but ${why}: it goes on` });
    return undefined;
  };
  try {
    for (;;) {
      let turn = turns.next();
      if (turn === undefined) {
        end = { state: 'succeeded' };
        endMessage = 'completed';
        break;
      }
      // Resuming the previous attempt's session needs that attempt's harness: no quota choice then.
      if (resumeSession === undefined && !linkChosen) {
        const chosen = await chooseLink(progress.chainIndex);
        if (chosen === 'stop') break;
        progress.chainIndex = chosen;
      }
      linkChosen = false;
      const spec = task.chain[progress.chainIndex];
      if (!spec) throw new Error(`chain index ${progress.chainIndex} out of range`);
      const adapter = getAdapter(spec.harness);
      const number = progress.nextNumber++;
      const ref: AttemptRef = { number, harness: spec.harness };
      const continued = resumeSession;
      resumeSession = undefined;
      const handoff = progress.attempts.length > 0 && continued === undefined;
      if (handoff) {
        writeJsonAtomic(contextFile, context());
        recorder.executor('context.written', { path: contextFile, attempts: progress.attempts.length }, ref);
      }
      const firstPrompt = withRedelivery(
        turn,
        handoff
          ? buildHandoffPrompt(task.prompt, context(), contextFile, {
              handled: progress.handled,
              ...(turn.id !== 't1' && { now: turn.text }),
            })
          : turn.text,
      );
      await store.insertAttempt({
        execution: id,
        number,
        harness: spec.harness,
        ...(spec.model !== undefined && { model: spec.model }),
        simulated: spec.simulate !== undefined,
        startedAt: new Date().toISOString(),
      });
      await store.updateExecution(id, { state: 'running', attemptCount: number, currentHarness: spec.harness });
      recorder.executor(
        'attempt.started',
        {
          ...(spec.model !== undefined && { model: spec.model }),
          command: spec.simulate === undefined ? adapter.binary : `sim (playing ${spec.harness})`,
          simulated: spec.simulate !== undefined,
          handoff,
          ...(handoff && { contextPath: contextFile }),
          ...(continued !== undefined && { resumedSession: continued.sessionId }),
          timeLeftMs: Math.max(0, input.deadline - Date.now()),
          prompt: firstPrompt,
        },
        ref,
      );

      const attemptGates =
        gates &&
        writeAttemptGates({
          execution: id,
          attempt: number,
          harness: spec.harness,
          attemptDir: home.attemptDir(id, number),
          eventsPath: home.eventsFile(id),
          settings: gates,
          worktree,
          branch,
          baseBranch,
          earlier: progress.attempts,
        });
      const observer = new AttemptObserver(task.name, worktree);
      observer.sessionId = continued?.sessionId;
      liveUsage = new LiveUsage(store, { execution: id, number }, () => observer.usage);
      const homeDir = continued === undefined ? undefined : join(home.attemptDir(id, continued.attempt), 'home');
      const attemptStarted = new Date().toISOString();
      let attemptEnd: AttemptEnd | undefined;
      /** Set once this attempt was found near its limit with nowhere to switch: it is not looked at again. */
      let nearLimitNoted = false;
      switchedEarly = undefined;
      for (let first = true; ; first = false) {
        const delivery = turn.redelivered ? 'redelivered' : delivered.has(turn.id) ? 'handoff' : 'first';
        delivered.add(turn.id);
        const resumeSessionId = first ? continued?.sessionId : observer.sessionId;
        recorder.executor(
          'turn.started',
          { turn: turn.id, text: turn.text, delivery, ...compact({ resumedSession: resumeSessionId }) },
          ref,
        );
        if (turn.redelivered) {
          recorder.executor(
            'turn.redelivered',
            { turn: turn.id, reason: 'HarmFlow restarted while this turn ran' },
            ref,
          );
        }
        const result = await runAttempt({
          ref,
          adapter,
          spec,
          prompt: first ? firstPrompt : withRedelivery(turn, turn.text),
          ...(resumeSessionId !== undefined && { resumeSessionId }),
          worktree,
          attemptDir: home.attemptDir(id, number),
          ...(homeDir !== undefined && { homeDir }),
          deadline: input.deadline,
          interruptBudgetMs: options.interruptBudgetMs,
          path: options.path,
          hostEnv: options.hostEnv,
          recorder,
          observer,
          ...(attemptGates !== undefined && { gates: attemptGates }),
          ...(options.signal && { signal: options.signal }),
          ...(options.suspend && { suspend: options.suspend }),
          ...(options.control && { control: options.control }),
          ...(options.onAttemptSpawned && { onSpawned: (pid: number) => options.onAttemptSpawned?.(number, pid) }),
        });
        options.onAttemptExited?.(number);
        recorder.executor('turn.ended', { turn: turn.id, outcome: result.outcome, durationMs: result.durationMs }, ref);
        if (result.outcome !== 'completed') {
          attemptEnd = { result, outcome: result.outcome, message: result.message, moreTurns: false };
          break;
        }
        turns.done(turn);
        if (turn.id !== 't1') progress.handled.push({ turn: turn.id, text: turn.text });
        // Between turns a cancel or a stop takes effect at once: no next turn starts.
        if (options.signal?.aborted || options.suspend?.aborted) {
          attemptEnd = { result, outcome: 'canceled', message: stopMessage(options), moreTurns: false };
          break;
        }
        const next = turns.next();
        if (next === undefined) {
          attemptEnd = { result, outcome: 'completed', message: result.message, moreTurns: false };
          break;
        }
        if (!nearLimitNoted && overThreshold(observer.rateLimit, task.switchAtUtilization)) {
          const early = await switchBeforeLimit(spec.harness, observer.rateLimit?.utilization ?? 1);
          if (early !== undefined) {
            attemptEnd = { result, outcome: 'switched', message: early, moreTurns: false };
            switchedEarly = observer.rateLimit?.utilization;
            break;
          }
          nearLimitNoted = true;
        }
        turn = next;
        if (observer.sessionId === undefined) {
          recorder.executor(
            'warning',
            { message: `${spec.harness} reported no session to resume: turn ${turn.id} starts a new attempt` },
            ref,
          );
          attemptEnd = { result, outcome: 'completed', message: result.message, moreTurns: true };
          break;
        }
      }
      const { result, outcome, message } = attemptEnd;

      if (outcome === 'quota_exhausted') {
        recorder.executor('quota.exhausted', compact({ message, resetsAt: result.resetsAt }), ref);
      }
      const after = await inspect(worktree, baseSha, branch, recorder, ref);
      progress.attempts.push(
        observer.summarize({
          number,
          harness: spec.harness,
          ...(spec.model !== undefined && { model: spec.model }),
          simulated: spec.simulate !== undefined,
          outcome,
          ...compact({ message, resetsAt: result.resetsAt }),
          startedAt: attemptStarted,
          endedAt: result.endedAt,
          ...(before && { before }),
          ...(after && { after }),
        }),
      );
      before = after;
      // Kept current after every attempt, so a restarted service knows every ended attempt.
      writeJsonAtomic(contextFile, context());
      recorder.executor(
        'attempt.ended',
        {
          outcome,
          exitCode: result.exitCode,
          signal: result.signal,
          ...compact({ message, sessionId: observer.sessionId, resetsAt: result.resetsAt }),
          durationMs: Date.parse(result.endedAt) - Date.parse(attemptStarted),
        },
        ref,
      );
      await liveUsage.stop();
      await store.updateAttempt(id, number, {
        endedAt: result.endedAt,
        outcome,
        exitCode: result.exitCode,
        signal: result.signal,
        ...compact({
          message,
          resetsAt: result.resetsAt,
          sessionId: observer.sessionId,
          model: observer.model,
          ...observer.usage,
        }),
      });

      const quota = quotaRecordOf({
        spec,
        execution: id,
        attempt: number,
        outcome,
        resetsAt: result.resetsAt,
        message,
        rateLimit: observer.rateLimit,
        observedAt: result.endedAt,
      });
      if (quota !== undefined) await store.putQuota(quota);

      if (options.suspend?.aborted && !options.signal?.aborted) {
        end = { state: 'suspended' };
        break;
      }
      if (attemptEnd.moreTurns) continue;
      const decision = decideAfterAttempt({
        outcome,
        switchOn: task.switchOn,
        chainIndex: progress.chainIndex,
        chainLength: task.chain.length,
        switchesMade: progress.switchesMade,
        maxSwitches: task.maxSwitches,
        timeLeftMs: input.deadline - Date.now(),
      });
      // The chain's end after a quota outcome: the next loop looks for a reset to wait for.
      if (decision.kind === 'end' && decision.chainEnd && outcome === 'quota_exhausted') {
        progress.chainIndex = task.chain.length;
        continue;
      }
      if (decision.kind === 'end') {
        end = { state: decision.state };
        endMessage = decision.state === 'succeeded' ? 'completed' : `attempt ${number} ${outcome}; ${decision.why}`;
        break;
      }
      // The switch goes to the link the quota registry allows, so `failover` names the harness that runs.
      const chosen = await chooseLink(decision.nextIndex);
      if (chosen === 'stop') break;
      if (chosen !== progress.chainIndex) {
        progress.switchesMade += 1;
        recorder.executor(
          'failover',
          {
            from: spec.harness,
            to: task.chain[chosen]?.harness ?? '?',
            reason: outcome,
            switchNumber: progress.switchesMade,
            maxSwitches: task.maxSwitches,
            ...compact({
              utilization: switchedEarly,
              threshold: switchedEarly === undefined ? undefined : task.switchAtUtilization,
            }),
          },
          ref,
        );
      }
      progress.chainIndex = chosen;
      linkChosen = true;
    }
  } finally {
    await liveUsage?.stop();
    if (end.state !== 'suspended') {
      const { state } = end;
      writeJsonAtomic(contextFile, context());
      recorder.executor('execution.ended', {
        state,
        attempts: progress.attempts.length,
        durationMs: Date.now() - input.started,
        ...(endMessage && { message: endMessage }),
      });
      if (state !== 'succeeded') writeFileSync(home.endedMarker(id), `${state}\n`);
      await store.updateExecution(id, {
        state,
        endedAt: new Date().toISOString(),
        ...(endMessage && { message: endMessage }),
      });
    }
  }
  return end;
}

/**
 * Up to 10 s after a reset: executions waiting on the same harness do not all start in the same
 * instant, and a reset time given to the second is not started on a hair early.
 */
function resetJitterMs(): number {
  return 1000 + Math.floor(Math.random() * 9000);
}

/** One signal that aborts when any of `signals` does. */
function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const given = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  return given.length === 0 ? undefined : AbortSignal.any(given);
}

/** A turn's prompt, with the redelivery prefix when an earlier process was running it. */
function withRedelivery(turn: Turn, prompt: string): string {
  return turn.redelivered ? `${REDELIVERY_PREFIX}\n\n${prompt}` : prompt;
}

function stopMessage(options: DriveOptions): string {
  return options.signal?.aborted
    ? 'canceled'
    : 'HarmFlow stopped between turns; the execution carries on when it starts again';
}

async function inspect(
  worktree: string,
  baseSha: string,
  branch: string,
  recorder: Recorder,
  ref?: AttemptRef,
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
