/**
 * ExecutionOwner: the one thing in the service that drives one execution. It waits for an admission
 * slot, then carries the execution on from its durable queue (execution/engine.ts `carryOn`) until it
 * ends or the service stops; it queues follow-up messages and turns a cancel into the engine's
 * signal. Created and forgotten only by the Registry (the single writer of the set of owners); the
 * owner is the only writer of its execution's store rows and queue while it lives.
 */
import type { HomePaths } from '../core/home.js';
import { taskFromStore } from '../core/task.js';
import { openEventLog } from '../events/log.js';
import { ExecutionControl, type SwitchRequest } from '../execution/control.js';
import { carryOn, type EngineOptions, type ExecutionResult } from '../execution/engine.js';
import { appendOwnRecords, endCanceledWhileQueued } from '../execution/own-records.js';
import { releaseOwnership } from '../execution/owner-file.js';
import { Recorder } from '../execution/recorder.js';
import { parkForAdmission } from '../execution/recover.js';
import type { RunSlot } from '../execution/run-slot.js';
import type { Store } from '../store/store.js';
import type { Admission, Slot } from './admission.js';
import type { IdempotentRequest } from './execution-service.js';
import type { DurableQueue, Enqueued } from './queue.js';

export interface OwnerDeps {
  readonly home: HomePaths;
  readonly store: Store;
  readonly admission: Admission;
  /** What every drive gets: PATH additions, host environment, interrupt budget, record listener. */
  readonly engine: Omit<EngineOptions, 'home' | 'store' | 'signal' | 'suspend' | 'checked' | 'slot'>;
  /** Aborted when the service stops: drives are suspended, not ended. */
  readonly suspend: AbortSignal;
}

/** Where an owner is: waiting for a slot, driving, or done (ended or suspended). */
export type OwnerPhase = 'queued' | 'running' | 'done';

export class ExecutionOwner {
  readonly id: string;
  readonly #deps: OwnerDeps;
  readonly #queue: DurableQueue;
  readonly #cancel = new AbortController();
  readonly #control = new ExecutionControl();
  #phase: OwnerPhase = 'queued';
  /** The process group of the turn running now, for a kill when the close budget runs out. */
  #pgid: number | undefined;
  /** Settles when the owner is done; never rejects (a failure is logged to the execution's events). */
  readonly finished: Promise<ExecutionResult | undefined>;

  constructor(id: string, queue: DurableQueue, deps: OwnerDeps) {
    this.id = id;
    this.#queue = queue;
    this.#deps = deps;
    this.finished = this.#run();
  }

  get phase(): OwnerPhase {
    return this.#phase;
  }

  /** True while `send` may queue: the owner is not done and its execution has not ended. */
  get accepting(): boolean {
    return this.#phase !== 'done' && !this.#queue.closed;
  }

  /**
   * Queues a follow-up message durably; returns its turn and how many wait (it included). A key
   * the queue recorded before queues and records nothing: the first answer (DurableQueue.enqueue).
   */
  send(text: string, request?: IdempotentRequest): Enqueued {
    const queued = this.#queue.enqueue(text, request);
    if (queued.repeated) return queued;
    this.#record((recorder) =>
      recorder.executor('message.queued', { turn: queued.turn.id, text, queued: queued.queued }),
    );
    return queued;
  }

  /** Cancels the execution: at once while it waits for a slot or between turns, else at the turn's safepoint. */
  cancel(budgetMs: number): void {
    if (this.#cancel.signal.aborted || this.#phase === 'done') return;
    this.#record((recorder) => recorder.executor('cancel.requested', { budgetMs }));
    this.#cancel.abort();
  }

  /** Asks for a switch by hand (recorded as `switch.requested`): at the turn's safepoint, or at once while it waits. */
  switchTo(request: SwitchRequest): void {
    this.#record((recorder) => recorder.executor('switch.requested', { ...request }));
    this.#control.requestSwitch(request);
  }

  /** Ends the execution's wait for a quota reset now; false when it is not waiting. */
  resumeNow(): boolean {
    return this.#control.resumeNow();
  }

  /** Kills the running turn's process group now (the service's close budget ran out). */
  kill(): void {
    if (this.#pgid === undefined) return;
    try {
      process.kill(-this.#pgid, 'SIGKILL');
    } catch {
      // The group is already gone.
    }
  }

  async #run(): Promise<ExecutionResult | undefined> {
    const { admission, home, store } = this.#deps;
    let slot: Slot | undefined;
    try {
      await this.#park();
    } catch (error) {
      this.#record((recorder) =>
        recorder.executor('warning', { message: `could not close what an earlier process left: ${String(error)}` }),
      );
    }
    try {
      slot = await admission.acquire(AbortSignal.any([this.#cancel.signal, this.#deps.suspend]));
    } catch {
      // Aborted while queued: a cancel ends it here; a stop leaves it queued for the next start.
    }
    /** Given back while the execution waits for a quota reset, taken again before it carries on. */
    const runSlot: RunSlot = {
      release: () => {
        slot?.release();
        slot = undefined;
      },
      acquire: async (signal) => {
        slot = await admission.acquire(signal);
      },
    };
    try {
      if (slot === undefined || this.#cancel.signal.aborted) {
        if (this.#cancel.signal.aborted) await this.#endQueued();
        return undefined;
      }
      this.#phase = 'running';
      const result = await carryOn(this.id, this.#queue, {
        ...this.#deps.engine,
        home,
        store,
        signal: this.#cancel.signal,
        suspend: this.#deps.suspend,
        control: this.#control,
        slot: runSlot,
        onAttemptSpawned: (attempt, pid) => {
          this.#pgid = pid;
          this.#deps.engine.onAttemptSpawned?.(attempt, pid);
        },
        onAttemptExited: (attempt) => {
          this.#pgid = undefined;
          this.#deps.engine.onAttemptExited?.(attempt);
        },
      });
      if (result.state !== 'suspended') this.#queue.close();
      return result;
    } catch (error) {
      this.#record((recorder) =>
        recorder.executor('warning', { message: `the service could not drive it: ${String(error)}` }),
      );
      return undefined;
    } finally {
      slot?.release();
      this.#phase = 'done';
      releaseOwnership(home.ownerFile(this.id));
    }
  }

  /**
   * Before the wait for a slot: an attempt an earlier process left open is closed, and the store
   * says `queued` (execution/recover.ts `parkForAdmission`) — not `running` while nothing runs.
   */
  async #park(): Promise<void> {
    const { home, store } = this.#deps;
    const record = await store.getExecution(this.id);
    const stored = record && (await store.getTask(record.taskId));
    if (record === undefined || stored === undefined) return;
    const task = taskFromStore(stored.definition);
    const log = openEventLog(home.eventsFile(this.id), { execution: this.id });
    try {
      await parkForAdmission(record, task, home, store, new Recorder(log, this.id, this.#deps.engine.onRecord));
    } finally {
      log.close();
    }
  }

  /** Ends an execution canceled before it started: no attempt ran. */
  async #endQueued(): Promise<void> {
    this.#queue.close();
    await endCanceledWhileQueued(this.#deps.home, this.#deps.store, this.id, this.#deps.engine.onRecord);
  }

  /** Appends records of the owner's own (the engine writes the rest through its own handle). */
  #record(write: (recorder: Recorder) => void): void {
    appendOwnRecords(this.#deps.home, this.id, this.#deps.engine.onRecord, write);
  }
}
