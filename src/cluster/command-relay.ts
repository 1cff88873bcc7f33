/**
 * CommandRelay turns the commands of an execution's inbox (inbox-commands.ts), sent from any API
 * node, into the engine's inputs on the worker that holds the execution's lease (drive-job.ts), as
 * the service's owner (service/owner.ts) does on one machine:
 * - `cancel`: `cancel.requested` is recorded with the interrupt budget, and `signal` aborts: the
 *   engine (given it as its cancel signal) interrupts the running harness and ends the execution
 *   `canceled`. A second cancel does nothing;
 * - `switch`: when the harness asked for can start on this worker (preflight's checkLink, as the
 *   service's Registry checks), `switch.requested` is recorded and the switch asked of `control`;
 *   otherwise a `warning` says why it was refused;
 * - `resume`: ends the wait for a quota reset under way (`control.resumeNow()`); when none is under
 *   way a `warning` says the resume did nothing.
 * A command taken once the execution has ended is refused with a `warning` (the API refuses those it
 * knows to be late; these crossed the end).
 *
 * Commands delivered before `start` are held and applied, in order, by `start`: the records they
 * make go to the execution's log, which must first hold the history restored from the mirror
 * (drive-job.ts restoreHistory writes only to an empty log). One relay per drive of an execution;
 * called from one event loop.
 */
import { compact } from '../core/compact.js';
import { describeError } from '../core/errors.js';
import type { HomePaths } from '../core/home.js';
import type { Task } from '../core/task.js';
import type { EventRecord } from '../events/schema.js';
import { ExecutionControl, type SwitchRequest, switchAskedMessage } from '../execution/control.js';
import { handLinkOf, specOf } from '../execution/hand-switch.js';
import { appendOwnRecords } from '../execution/own-records.js';
import { checkLink } from '../execution/preflight.js';
import type { Recorder } from '../execution/recorder.js';
import type { InboxCommand } from './inbox-commands.js';

/** What the relay needs to apply commands, known once the drive has loaded the execution. */
export interface RelayTarget {
  readonly task: Task;
  /** The PATH the worker's harnesses start with: a switched-to harness must be found on it. */
  readonly path: string;
  /** The interrupt budget a cancel is recorded with: the task's, else the worker's. */
  readonly budgetMs: number;
  /** True once the execution has ended: later commands are refused. */
  ended(): boolean;
}

export class CommandRelay {
  readonly execution: string;
  /** Steers the engine: switches asked by hand, a wait ended now. Pass it to carryOn. */
  readonly control = new ExecutionControl();
  readonly #home: HomePaths;
  readonly #onRecord: ((record: EventRecord) => void) | undefined;
  readonly #cancel = new AbortController();
  readonly #held: InboxCommand[] = [];
  #target: RelayTarget | undefined;

  constructor(execution: string, home: HomePaths, onRecord?: (record: EventRecord) => void) {
    this.execution = execution;
    this.#home = home;
    this.#onRecord = onRecord;
  }

  /** Aborts once a cancel was applied: the engine's cancel signal. */
  get signal(): AbortSignal {
    return this.#cancel.signal;
  }

  /** Applies `command` now, or holds it until `start` when not started yet. */
  deliver(command: InboxCommand): void {
    if (this.#target === undefined) this.#held.push(command);
    else this.#apply(command, this.#target);
  }

  /** Applies the commands held, in order, and every later one at once. A second call changes the target. */
  start(target: RelayTarget): void {
    this.#target = target;
    for (const command of this.#held.splice(0)) this.#apply(command, target);
  }

  #apply(command: InboxCommand, target: RelayTarget): void {
    if (command.kind === 'cancel') {
      if (this.#cancel.signal.aborted) return;
      if (target.ended()) {
        this.#refuse('a cancel was asked, but the execution had already ended');
        return;
      }
      this.#record((recorder) => recorder.executor('cancel.requested', { budgetMs: target.budgetMs }));
      this.#cancel.abort();
      return;
    }
    if (command.kind === 'resume') {
      if (!this.control.resumeNow()) {
        this.#refuse('a resume was asked, but the execution is not waiting for a quota reset: nothing to resume');
      }
      return;
    }
    const request: SwitchRequest = {
      harness: command.harness,
      by: command.by,
      ...compact({ model: command.model, reason: command.reason }),
    };
    if (target.ended()) {
      this.#refuse(`${switchAskedMessage(request)}, but the execution had already ended`);
      return;
    }
    try {
      checkLink(specOf(target.task, handLinkOf(target.task, request)), target.path);
    } catch (error) {
      this.#refuse(`${switchAskedMessage(request)}, refused on this worker: ${describeError(error)}`);
      return;
    }
    this.#record((recorder) => recorder.executor('switch.requested', { ...request }));
    this.control.requestSwitch(request);
  }

  #refuse(message: string): void {
    this.#record((recorder) => recorder.executor('warning', { message }));
  }

  #record(write: (recorder: Recorder) => void): void {
    appendOwnRecords(this.#home, this.execution, this.#onRecord, write);
  }
}
