/**
 * The failover loop: drives one execution from where it stands to its end. Each attempt is one
 * harness session on one link of the chain; each turn (the task's prompt, then every follow-up
 * message, from a TurnSource) is one prompt delivered to that session — a follow-up resumes the
 * harness's own session (`--resume`, `exec resume`). When a turn ends with an outcome that switches
 * (quota_exhausted, plus the task's `failoverOn`) and the chain, the switch budget and the deadline
 * allow it, the same execution goes on with the next harness: same worktree and branch, one
 * events.jsonl, one deadline, and a handoff (context.json + a summary in the prompt), and the turn
 * that was not finished is delivered to the new attempt. A follow-up for an attempt whose harness
 * reported no session to resume starts a new attempt on the same link, with the handoff (the rule is
 * follow-up-route.ts, which the views of the routing read too).
 *
 * Before each new attempt the link is chosen (link-choice.ts): the quota registry passes over a link
 * whose harness is known to be out, and when every harness is out the execution waits for the first
 * reset (if the task allows it) and carries on there, or ends saying why. A switch asked by hand
 * (`control`) ends the running attempt `switched` at its safepoint — or a wait at once — and the
 * harness asked for carries on with the handoff. With `switchAtUtilization`, an attempt whose
 * harness reports its limit at or over that share is ended `switched` at the next turn boundary, when
 * a harness to switch to is free, and the next turn goes to the next link with the handoff.
 *
 * Cancel (`signal`) ends the execution `canceled`: a running turn is interrupted (SIGINT, then the
 * interrupt budget, then a kill of its group); between turns it stops at once. Suspend (`suspend`,
 * the service stopping) interrupts the same way but leaves the execution open: no `execution.ended`,
 * the turn stays in flight, and the service carries it on at its next start. An error the drive
 * meets once suspended is still thrown, but leaves the execution open too.
 *
 * The caller owns the store, the turn source and the recorder's log; drive closes nothing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Clock, systemClock } from '../core/clock.js';
import { compact } from '../core/compact.js';
import { type HomePaths, PRIVATE_FILE_MODE } from '../core/home.js';
import { writeJsonAtomic } from '../core/json-file.js';
import type { ExecutionState, Outcome } from '../core/outcome.js';
import type { HarnessSpec, Task } from '../core/task.js';
import { logEnd, readEvents } from '../events/log.js';
import { getAdapter } from '../harnesses/registry.js';
import type { Store } from '../store/store.js';
import { baseBranchOf } from '../workspace/base-branch.js';
import { inspectWorkspace, type WorkspaceSnapshot } from '../workspace/inspect.js';
import { gatesEnabled, writeAttemptGates } from './attempt-gates.js';
import { AttemptObserver } from './attempt-observer.js';
import { executionSandbox } from './attempt-sandbox.js';
import { cachePlan } from './cache-plan.js';
import { type AttemptContext, CONTEXT_VERSION, type ExecutionContext } from './context-schema.js';
import { type ExecutionControl, switchAskedMessage } from './control.js';
import { latestPullRequestUrl, turnsCompletedWith } from './execution-facts.js';
import { followUpRoute } from './follow-up-route.js';
import { noForgeWarning } from './forge-check.js';
import { buildHandoffPrompt, type HandledMessage } from './handoff.js';
import { LinkChoice, type LinkStop } from './link-choice.js';
import { LiveUsage } from './live-usage.js';
import { pushedBranches } from './pushed-branches.js';
import { overThreshold, quotaRecordOf } from './quota.js';
import type { AttemptRef, Recorder } from './recorder.js';
import { type AttemptResult, runAttempt } from './run-attempt.js';
import type { RunSlot } from './run-slot.js';
import { decideAfterAttempt } from './switch-policy.js';
import { REDELIVERY_PREFIX, type Turn, type TurnSource } from './turns.js';
import { commitsFailedWarning, pullRequestFailedWarning, unconfirmedWarnings } from './workspace-warnings.js';

/** Where an execution stands: empty for a new one, rebuilt from disk for one carried on (recover.ts). */
export interface Progress {
  /** The execution's chain: the task's, with the links switches by hand put in (hand-switch.ts). */
  readonly chain: HarnessSpec[];
  /** Every ended attempt, as context.json has them. */
  readonly attempts: AttemptContext[];
  /** Follow-up messages (not `t1`) that turns completed, in order. */
  readonly handled: HandledMessage[];
  /**
   * The turns an earlier process delivered (`turn.started` in the log). A turn that process left in
   * flight is delivered again, marked, only if it is here: one it never started is a first delivery.
   */
  readonly startedTurns: ReadonlySet<string>;
  chainIndex: number;
  switchesMade: number;
  /** The number the next attempt gets. */
  nextNumber: number;
}

/** A new execution's progress. */
export function freshProgress(task: Task): Progress {
  return {
    chain: [...task.chain],
    attempts: [],
    handled: [],
    startedTurns: new Set(),
    chainIndex: 0,
    switchesMade: 0,
    nextNumber: 1,
  };
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
  /**
   * When the execution's last attempts, this many in a row, were lost with the process that drove
   * them (`crashed`, closed by recovery), it ends `failed` instead of starting another: something in
   * it takes its drivers down (a cluster worker: out of memory, a harness that kills its host).
   * Unset: no limit (a single machine's restarts are the person's to judge).
   */
  readonly maxCrashedInRow?: number;
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
    version: CONTEXT_VERSION,
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
  const sandbox = await executionSandbox({
    choice: task.sandbox,
    execution: id,
    worktree,
    home,
    hostEnv: options.hostEnv,
    recorder,
    firstDrive: progress.nextNumber === 1,
  });
  const noForge = progress.nextNumber === 1 ? noForgeWarning(task, options.path) : undefined;
  if (noForge !== undefined) recorder.executor('workspace.warning', noForge);
  /** Turns this drive delivered: one seen again was not finished by an attempt that switched. */
  const delivered = new Set<string>();
  let resumeSession = input.resumeSession;
  /** The running attempt's usage writer; stopped at the attempt's end, or here if the drive throws first. */
  let liveUsage: LiveUsage | undefined;
  const links = new LinkChoice({
    id,
    task,
    deadline: input.deadline,
    progress,
    store,
    recorder,
    clock: options.clock ?? systemClock,
    ...compact({ control: options.control, signal: options.signal, suspend: options.suspend, slot: options.slot }),
  });
  /** Takes the drive's end from the link choice that stopped it. */
  const stopAt = (stop: LinkStop): void => {
    end = { state: stop.state };
    endMessage = stop.message;
  };
  /** True when a switch has just chosen the next attempt's link (the loop does not choose again). */
  let linkChosen = false;
  /** The utilization at which the attempt that just ended was switched before its limit, if it was. */
  let switchedEarly: number | undefined;
  const crashedInRow = trailingCrashes(progress.attempts);
  try {
    for (;;) {
      if (options.maxCrashedInRow !== undefined && crashedInRow >= options.maxCrashedInRow) {
        stopAt({
          state: 'failed',
          message: `its last ${crashedInRow} attempts were lost with the processes that drove them (crashed): failed rather than take down another`,
        });
        break;
      }
      let turn = deliveredBefore(turns.next(), progress.startedTurns);
      await turns.flush?.();
      if (turn === undefined) {
        end = { state: 'succeeded' };
        endMessage = 'completed';
        break;
      }
      // A switch asked while no attempt ran goes first; it needs no session of the last harness.
      if (links.switchByHand(progress.attempts.at(-1)?.harness)) {
        resumeSession = undefined;
        linkChosen = true;
      }
      // Resuming the previous attempt's session needs that attempt's harness: no quota choice then.
      if (resumeSession === undefined && !linkChosen) {
        const chosen = await links.choose(progress.chainIndex);
        if (typeof chosen === 'object') {
          stopAt(chosen);
          break;
        }
        if (chosen === 'hand') links.switchByHand(progress.attempts.at(-1)?.harness);
        else progress.chainIndex = chosen;
      }
      linkChosen = false;
      const spec = progress.chain[progress.chainIndex];
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
      // The attempt's records (the engine's and its gates') all come after this byte of the log.
      const logStart = logEnd(home.eventsFile(id));
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
          sandboxed: sandbox !== undefined,
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
          stateDir: home.root,
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
      /** The session the next turn of this attempt resumes, as followUpRoute gave it. */
      let routedSession: string | undefined;
      /** The turns delivered to this attempt, for its context.json entry. */
      const attemptTurns: string[] = [];
      for (let first = true; ; first = false) {
        const delivery = turn.redelivered ? 'redelivered' : delivered.has(turn.id) ? 'handoff' : 'first';
        delivered.add(turn.id);
        attemptTurns.push(turn.id);
        const resumeSessionId = first ? continued?.sessionId : routedSession;
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
          ...(task.gitIdentity !== undefined && { gitIdentity: task.gitIdentity }),
          recorder,
          observer,
          ...(attemptGates !== undefined && { gates: attemptGates }),
          ...(sandbox !== undefined && { sandbox }),
          forgeDir: home.forge,
          ...compact({ caches: cachePlan(task.caches, home, id) }),
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
        await turns.flush?.();
        await store.updateExecution(id, { turnCount: turnsCompletedWith(turn) });
        if (turn.id !== 't1') progress.handled.push({ turn: turn.id, text: turn.text });
        // Between turns a cancel or a stop takes effect at once: no next turn starts.
        if (options.signal?.aborted || options.suspend?.aborted) {
          attemptEnd = { result, outcome: 'canceled', message: stopMessage(options), moreTurns: false };
          break;
        }
        const next = turns.next();
        await turns.flush?.();
        if (next === undefined) {
          attemptEnd = { result, outcome: 'completed', message: result.message, moreTurns: false };
          break;
        }
        const asked = options.control?.pendingSwitch();
        if (asked !== undefined) {
          attemptEnd = { result, outcome: 'switched', message: switchAskedMessage(asked), moreTurns: false };
          break;
        }
        if (!nearLimitNoted && overThreshold(observer.rateLimit, task.switchAtUtilization)) {
          const early = await links.switchBeforeLimit(spec.harness, observer.rateLimit?.utilization ?? 1);
          if (early !== undefined) {
            attemptEnd = { result, outcome: 'switched', message: early, moreTurns: false };
            switchedEarly = observer.rateLimit?.utilization;
            break;
          }
          nearLimitNoted = true;
        }
        turn = next;
        const route = followUpRoute({
          number,
          harness: spec.harness,
          outcome: result.outcome,
          sessionId: observer.sessionId,
          sessionHome: continued?.attempt,
        });
        if (route.kind === 'fresh') {
          recorder.executor('warning', { message: `${route.reason}: turn ${turn.id} starts a new attempt` }, ref);
          attemptEnd = { result, outcome: 'completed', message: result.message, moreTurns: true };
          break;
        }
        routedSession = route.sessionId;
      }
      const { result, outcome, message } = attemptEnd;

      if (outcome === 'quota_exhausted') {
        recorder.executor('quota.exhausted', compact({ message, resetsAt: result.resetsAt }), ref);
      }
      const after = await inspect(worktree, baseSha, branch, recorder, ref);
      // Only what the summary reads (plans and operations): an attempt may have printed a gigabyte.
      const records = readEvents(home.eventsFile(id), {
        fromByte: logStart,
        keep: (record) => record.attempt === number && (record.type === 'plan' || record.type === 'operation'),
      });
      const summary = observer.summarize(
        {
          number,
          harness: spec.harness,
          ...(spec.model !== undefined && { model: spec.model }),
          simulated: spec.simulate !== undefined,
          outcome,
          ...compact({
            message,
            resetsAt: result.resetsAt,
            resumedSession: continued?.sessionId,
            sessionHome: continued?.attempt,
          }),
          turns: attemptTurns,
          startedAt: attemptStarted,
          endedAt: result.endedAt,
          ...(before && { before }),
          ...(after && { after }),
          branch,
          pushedBranches: await pushedBranches(worktree, branch, records, after),
        },
        records,
      );
      progress.attempts.push(summary);
      for (const warning of unconfirmedWarnings(summary)) recorder.executor('workspace.warning', warning, ref);
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
      const pullRequestUrl = latestPullRequestUrl(progress.attempts);
      if (pullRequestUrl !== undefined) await store.updateExecution(id, { pullRequestUrl });
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
      if (outcome === 'switched' && options.control?.pendingSwitch() !== undefined) {
        if (input.deadline <= Date.now()) {
          end = { state: 'timed_out' };
          endMessage = `attempt ${number} switched; the deadline has passed`;
          break;
        }
        links.switchByHand(spec.harness, ref);
        linkChosen = true;
        continue;
      }
      const decision = decideAfterAttempt({
        outcome,
        switchOn: task.switchOn,
        chainIndex: progress.chainIndex,
        chainLength: progress.chain.length,
        switchesMade: progress.switchesMade,
        maxSwitches: task.maxSwitches,
        timeLeftMs: input.deadline - Date.now(),
      });
      // The chain's end after a quota outcome: the next loop looks for a reset to wait for.
      if (decision.kind === 'end' && decision.chainEnd && outcome === 'quota_exhausted') {
        progress.chainIndex = progress.chain.length;
        continue;
      }
      if (decision.kind === 'end') {
        end = { state: decision.state };
        endMessage = decision.state === 'succeeded' ? 'completed' : `attempt ${number} ${outcome}; ${decision.why}`;
        break;
      }
      // The switch goes to the link the quota registry allows, so `failover` names the harness that runs.
      const chosen = await links.choose(decision.nextIndex);
      if (typeof chosen === 'object') {
        stopAt(chosen);
        break;
      }
      if (chosen === 'hand') {
        links.switchByHand(spec.harness, ref);
        linkChosen = true;
        continue;
      }
      if (chosen !== progress.chainIndex) {
        progress.switchesMade += 1;
        recorder.executor(
          'failover',
          {
            from: spec.harness,
            to: progress.chain[chosen]?.harness ?? '?',
            reason: outcome,
            switchNumber: progress.switchesMade,
            maxSwitches: task.maxSwitches,
            toIndex: chosen,
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
  } catch (error) {
    // What fails once the drive is suspended (a cluster worker that lost its lease: its writes are
    // refused) is part of the suspension: the execution is left open for whoever carries it on.
    if (options.suspend?.aborted) end = { state: 'suspended' };
    throw error;
  } finally {
    await liveUsage?.stop();
    if (end.state !== 'suspended') {
      const { state } = end;
      const late = options.control?.takeSwitch();
      if (late !== undefined) {
        recorder.executor('warning', { message: `${switchAskedMessage(late)}, but the execution ended first` });
      }
      writeJsonAtomic(contextFile, context());
      const commitsFailed = commitsFailedWarning(progress.attempts);
      if (commitsFailed !== undefined) {
        recorder.executor('workspace.warning', commitsFailed);
        endMessage = `${endMessage || state}, but ${commitsFailed.message}`;
      }
      // Not when the drive began by saying no gh can open one: that said why already.
      const pullRequestFailed = noForge === undefined ? pullRequestFailedWarning(progress.attempts) : undefined;
      if (pullRequestFailed !== undefined) recorder.executor('workspace.warning', pullRequestFailed);
      recorder.executor('execution.ended', {
        state,
        attempts: progress.attempts.length,
        durationMs: Date.now() - input.started,
        ...(endMessage && { message: endMessage }),
      });
      if (state !== 'succeeded') writeFileSync(home.endedMarker(id), `${state}\n`, { mode: PRIVATE_FILE_MODE });
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
 * `turn` as it is delivered now: one the queue hands out again after a restart stays marked
 * `redelivered` only when an earlier process started it; the kill may have fallen after the queue
 * took it and before it reached a harness.
 */
function deliveredBefore(turn: Turn | undefined, started: ReadonlySet<string>): Turn | undefined {
  return turn?.redelivered && !started.has(turn.id) ? { ...turn, redelivered: false } : turn;
}

/** How many of the last attempts, in a row, ended `crashed`. */
function trailingCrashes(attempts: readonly { readonly outcome: string }[]): number {
  let count = 0;
  for (let at = attempts.length - 1; at >= 0 && attempts[at]?.outcome === 'crashed'; at -= 1) count += 1;
  return count;
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
