/**
 * Which link of its chain an execution's next attempt runs on, and everything that decides it
 * between attempts: the quota registry (next-link.ts) passes over links that are out, or near their
 * limit for a task with `switchAtUtilization`; when every link is out, the execution waits for the
 * first reset (giving its admission slot back meanwhile), and a resume, a switch by hand, a cancel
 * or a stop ends the wait; a switch by hand puts the harness asked for into the chain right after
 * the current link (hand-switch.ts). The drive (drive.ts) owns one per drive and asks it before each
 * new attempt; this class writes the records of what it decides and the execution's `waiting` and
 * `queued` states, and changes `progress`'s chain, link and switch count.
 */
import type { Clock } from '../core/clock.js';
import { compact } from '../core/compact.js';
import type { ExecutionState } from '../core/outcome.js';
import type { Task } from '../core/task.js';
import type { Store } from '../store/store.js';
import type { ExecutionControl } from './control.js';
import type { Progress } from './drive.js';
import { handLinkOf, insertAt, specOf } from './hand-switch.js';
import { nextLink } from './next-link.js';
import { QuotaView } from './quota.js';
import type { AttemptRef, Recorder } from './recorder.js';
import type { RunSlot } from './run-slot.js';

/** How the drive ends when no link is chosen: a final state (or `suspended`), and why. */
export interface LinkStop {
  readonly state: ExecutionState | 'suspended';
  readonly message: string;
}

export interface LinkChoiceDeps {
  readonly id: string;
  readonly task: Task;
  /** Epoch ms of the execution's one deadline. */
  readonly deadline: number;
  readonly progress: Progress;
  readonly store: Store;
  readonly recorder: Recorder;
  readonly clock: Clock;
  readonly control?: ExecutionControl;
  readonly signal?: AbortSignal;
  readonly suspend?: AbortSignal;
  readonly slot?: RunSlot;
}

export class LinkChoice {
  readonly #deps: LinkChoiceDeps;

  constructor(deps: LinkChoiceDeps) {
    this.#deps = deps;
  }

  /**
   * The link the next attempt starts on, at or after `from`, after waiting for a reset when every
   * harness is out; `hand` when a switch by hand ended the wait (`switchByHand` carries it out); a
   * LinkStop when the execution ends here or is suspended while it waits.
   */
  async choose(from: number): Promise<number | 'hand' | LinkStop> {
    const { id, task, progress, store, recorder, clock, control, signal, suspend, slot } = this.#deps;
    const next = await this.#next(from, task.waitForReset);
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
    if (next.kind === 'end') return { state: next.state, message: next.why };
    const harness = progress.chain[next.index]?.harness ?? '?';
    const waitMs = Math.max(0, next.out.until - clock.now()) + resetJitterMs();
    recorder.executor('quota.waiting', {
      harness,
      until: new Date(next.out.until).toISOString(),
      known: next.out.known,
      waitMs,
    });
    // Watched before the state says `waiting`, so a resume or a switch asked as soon as it does is not lost.
    const resumed = new AbortController();
    const unwatchResume = control?.watchResume(() => resumed.abort());
    const unwatchSwitch = control?.watchSwitch(() => resumed.abort());
    await store.updateExecution(id, { state: 'waiting' });
    slot?.release();
    await clock.sleep(waitMs, anySignal(signal, suspend, resumed.signal));
    unwatchResume?.();
    unwatchSwitch?.();
    const stopped = this.#stopped();
    if (stopped !== undefined) return stopped;
    const switched = control?.pendingSwitch() !== undefined;
    recorder.executor('wait.ended', {
      harness,
      reason: switched ? 'switched' : resumed.signal.aborted ? 'resumed' : 'reset',
    });
    if (slot !== undefined) {
      // Queued for a slot like a new execution; the attempt that follows sets the state to `running`.
      await store.updateExecution(id, { state: 'queued' });
      await slot.acquire(anySignal(signal, suspend)).catch(() => undefined);
      const late = this.#stopped();
      if (late !== undefined) return late;
    }
    return switched ? 'hand' : next.index;
  }

  /**
   * Carries out the switch asked by hand, when one is pending: its link goes into the chain right
   * after the current one and runs next, whether or not the quota registry thinks it is out (the
   * person asking knows). `from` is the harness that ran last. True when a switch was carried out.
   */
  switchByHand(from: string | undefined, ref?: AttemptRef): boolean {
    const { task, progress, recorder, control } = this.#deps;
    const request = control?.takeSwitch();
    if (request === undefined) return false;
    const hand = handLinkOf(task, request);
    const at = insertAt(progress.chain, progress.chainIndex);
    progress.chain.splice(at, 0, specOf(task, hand));
    progress.chainIndex = at;
    if (task.countManualSwitches) progress.switchesMade += 1;
    recorder.executor(
      'failover',
      {
        from: from ?? '-',
        to: hand.harness,
        reason: 'switched',
        switchNumber: progress.switchesMade,
        maxSwitches: task.maxSwitches,
        toIndex: at,
        hand,
        requestedBy: request.by,
        ...compact({ note: request.reason }),
      },
      ref,
    );
    return true;
  }

  /**
   * At a turn boundary of an attempt at or over `switchAtUtilization`: why it ends `switched`, when a
   * switch is left and a later link is free; otherwise undefined (a warning says it stays).
   */
  async switchBeforeLimit(harness: string, utilization: number): Promise<string | undefined> {
    const { task, progress, recorder } = this.#deps;
    const used = `${harness} reports ${Math.round(utilization * 100)}% of its limit used (switchAtUtilization ${task.switchAtUtilization})`;
    const next = await this.#next(progress.chainIndex + 1, false);
    const switchLeft = progress.switchesMade < task.maxSwitches;
    if (switchLeft && next.kind === 'link') return `${used}: switching before it runs out`;
    const why =
      next.kind === 'link' ? `no switch is left (maxSwitches: ${task.maxSwitches})` : 'no later harness is free';
    recorder.executor('warning', { message: `${used}, but ${why}: it goes on` });
    return undefined;
  }

  async #next(from: number, waitForReset: Task['waitForReset']) {
    const { task, progress, store, clock, deadline } = this.#deps;
    return nextLink({
      chain: progress.chain,
      from,
      view: await QuotaView.load(store, task.quotaCoolDownMs),
      now: clock.now(),
      waitForReset,
      deadline,
      switchAtUtilization: task.switchAtUtilization,
    });
  }

  /** How the drive ends when a cancel or a stop came during a wait; undefined when none did. */
  #stopped(): LinkStop | undefined {
    if (this.#deps.signal?.aborted) return { state: 'canceled', message: 'canceled while waiting for a quota reset' };
    if (this.#deps.suspend?.aborted) return { state: 'suspended', message: '' };
    return undefined;
  }
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
