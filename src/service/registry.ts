/**
 * The Registry: the session service's set of live executions, and its single writer. It admits new
 * executions (submit), hands messages and cancels to their owners, reopens what an earlier process
 * left open (recover), and closes everything within a budget when the service stops. Every change to
 * the set goes through its methods on one event loop, so there is one owner per execution in this
 * process; owner files (execution/owner-file.ts) keep other processes off it.
 */
import { existsSync } from 'node:fs';
import { closeWithin } from '../core/close-budget.js';
import { ConflictError, NotFoundError, ServiceUnavailableError } from '../core/errors.js';
import type { HomePaths } from '../core/home.js';
import { FINAL_STATES, LIVE_STATES } from '../core/outcome.js';
import { type Task, taskFromStore } from '../core/task.js';
import { readEvents } from '../events/log.js';
import type { SwitchRequest } from '../execution/control.js';
import { createExecution, type NewExecution } from '../execution/create.js';
import { DEFAULT_INTERRUPT_BUDGET_MS, harnessPath } from '../execution/engine.js';
import { handLinkOf, specOf } from '../execution/hand-switch.js';
import { claimOwnership, ownedElsewhere } from '../execution/owner-file.js';
import { checkLink, preflight } from '../execution/preflight.js';
import { type ExecutionRecord, type Store, SubmitKeyTakenError } from '../store/store.js';
import type { Admission } from './admission.js';
import {
  type ExecutionService,
  type SentMessage,
  type Suspending,
  submittedBefore,
  type WriteOptions,
} from './execution-service.js';
import { ExecutionOwner, type OwnerDeps } from './owner.js';
import { DurableQueue } from './queue.js';

/**
 * 30 s: how long a stopping service gives its executions to close (interrupted, they save and exit)
 * before it kills what is left. Under systemd's default stop timeout (90 s) with room to spare; the
 * harness CLIs exit within a second of SIGINT in the harness notes' runs.
 */
export const DEFAULT_CLOSE_BUDGET_MS = 30_000;

export interface RegistryOptions {
  readonly home: HomePaths;
  readonly store: Store;
  readonly admission: Admission;
  /** Passed to every drive (see OwnerDeps.engine). */
  readonly engine?: OwnerDeps['engine'];
  /** Default `DEFAULT_CLOSE_BUDGET_MS`. */
  readonly closeBudgetMs?: number;
}

/** The API's view of a queued turn. */
function sent(queued: { readonly turn: { readonly id: string }; readonly queued: number }): SentMessage {
  return { turn: queued.turn.id, queued: queued.queued };
}

/** How many turns the queue file holds (running and waiting); 0 when there is none or it cannot be read. */
function queuedTurns(file: string): number {
  if (!existsSync(file)) return 0;
  try {
    return DurableQueue.load(file).size;
  } catch {
    return 0; // an unreadable queue of an ended execution: nothing it holds can be run
  }
}

export class Registry implements ExecutionService {
  readonly #options: RegistryOptions;
  readonly #owners = new Map<string, ExecutionOwner>();
  readonly #suspend = new AbortController();
  #stopping: Promise<void> | undefined;

  constructor(options: RegistryOptions) {
    this.#options = options;
  }

  /**
   * Checks admission and the task, creates the execution `queued` and hands it to a new owner;
   * returns its record as created. With a key the store recorded before, returns that execution as
   * it was created and does nothing else; of submits racing with one key, the store keeps the first
   * to commit, the others remove what they made (execution/create.ts) and return it too.
   */
  async submit(task: Task, options: WriteOptions = {}): Promise<ExecutionRecord> {
    const { idempotency } = options;
    const { home, store } = this.#options;
    const first = idempotency && (await submittedBefore(store, idempotency));
    if (first !== undefined) return first;
    this.#refuseWhenStopping();
    const refusal = await this.#options.admission.refusal();
    if (refusal !== undefined) throw new ServiceUnavailableError(`admission is held: ${refusal}`);
    const engine = this.#options.engine ?? {};
    const checked = await preflight(task, harnessPath(engine.extraPath, engine.hostEnv), engine.hostEnv);
    this.#refuseWhenStopping();
    let created: NewExecution;
    try {
      created = await createExecution(task, checked, home, store, 'queued', idempotency);
    } catch (error) {
      const winner = error instanceof SubmitKeyTakenError && idempotency && (await submittedBefore(store, idempotency));
      if (winner) return winner;
      throw error;
    }
    this.#adopt(created.id, DurableQueue.create(home.queueFile(created.id), task.prompt));
    return created.record;
  }

  /**
   * Queues a follow-up message for `id`. An execution that succeeded is reopened for it (see
   * execution/engine.ts); one that ended otherwise refuses it (ConflictError), as does one another
   * process drives. With a key its queue recorded before (queue.ts keeps the latest KEPT_KEYS),
   * returns that message's first answer and queues nothing, whatever the execution did since.
   */
  async send(id: string, text: string, options: WriteOptions = {}): Promise<SentMessage> {
    const { idempotency } = options;
    let live = await this.#accepting(id);
    while (live !== undefined) {
      if (live.accepting) return sent(live.send(text, idempotency));
      live = await this.#accepting(id); // it stopped taking messages meanwhile: wait it out
    }
    const record = await this.#get(id);
    const stored = record.state === 'succeeded' ? await this.#options.store.getTask(record.taskId) : undefined;
    // From here on no await: the check and the adoption happen in one turn of the event loop, so two
    // messages racing to reopen the same execution make one owner.
    const owner = this.#owners.get(id);
    if (owner?.accepting) return sent(owner.send(text, idempotency));
    const { home } = this.#options;
    const first = idempotency && DurableQueue.answered(home.queueFile(id), idempotency, text);
    if (first) return sent(first);
    this.#refuseWhenStopping();
    if (record.state !== 'succeeded' || stored === undefined || existsSync(home.endedMarker(id))) {
      throw new ConflictError(`execution ${id} has ended (${record.state})`);
    }
    if (!claimOwnership(home.ownerFile(id))) {
      throw new ConflictError(
        `execution ${id} is in use: another process drives it (e.g. \`harmflow run\`), or its worktree is being removed (gc); try again`,
      );
    }
    const queue = this.#queueOf(record, taskFromStore(stored.definition));
    return sent(this.#adopt(id, queue).send(text, idempotency));
  }

  /** Asks `id` to cancel (it ends `canceled` once its harness stopped); returns its record now. */
  async cancel(id: string): Promise<ExecutionRecord> {
    const owner = await this.#owner(id);
    const record = await this.#get(id);
    const stored = await this.#options.store.getTask(record.taskId);
    const definition = stored === undefined ? undefined : taskFromStore(stored.definition);
    owner.cancel(
      definition?.interruptBudgetMs ?? this.#options.engine?.interruptBudgetMs ?? DEFAULT_INTERRUPT_BUDGET_MS,
    );
    return record;
  }

  /**
   * Ends `id`'s wait for a quota reset now: it carries on, on the harness it waited for, as a new
   * attempt. Throws ConflictError (409) when it is not waiting. Returns its record as it was.
   */
  async resume(id: string): Promise<ExecutionRecord> {
    const record = await this.#get(id);
    const owner = this.#owners.get(id);
    if (record.state !== 'waiting' || owner === undefined || !owner.resumeNow()) {
      throw new ConflictError(`execution ${id} is ${record.state}, not waiting for a quota reset`);
    }
    return record;
  }

  /**
   * Asks `id` to switch to `request.harness` (and model) now: a running turn is interrupted at its
   * safepoint, a wait for a quota reset ends at once, and the harness carries on with the handoff.
   * Throws ConflictError (409) unless it is running or waiting, HarnessNotInstalledError (409) when
   * that harness cannot start here. Returns its record as it was.
   */
  async switch(id: string, request: SwitchRequest): Promise<ExecutionRecord> {
    const record = await this.#get(id);
    const owner = this.#owners.get(id);
    if ((record.state !== 'running' && record.state !== 'waiting') || owner === undefined || !owner.accepting) {
      throw new ConflictError(`execution ${id} is ${record.state}; only a running or waiting execution can switch`);
    }
    const stored = await this.#options.store.getTask(record.taskId);
    if (stored === undefined) throw new NotFoundError(`execution ${id} has no task record ${record.taskId}`);
    const task = taskFromStore(stored.definition);
    const engine = this.#options.engine;
    checkLink(specOf(task, handLinkOf(task, request)), harnessPath(engine?.extraPath, engine?.hostEnv));
    owner.switchTo(request);
    return record;
  }

  /**
   * Reopens every execution an earlier process left open (no `ended` marker, no live owner, and a
   * live state or — a follow-up acknowledged just before the process died, before the execution
   * left `succeeded` — a succeeded one whose queue holds a turn): those with queued or in-flight
   * turns first, then the rest, oldest first; each waits for admission like a new one. Returns
   * their ids in that order.
   */
  async recover(): Promise<readonly string[]> {
    const { home, store } = this.#options;
    const live = await store.listExecutions({ states: LIVE_STATES });
    const succeeded = await store.listExecutions({ states: ['succeeded'] });
    const open = [...live, ...succeeded.filter((record) => queuedTurns(home.queueFile(record.id)) > 0)].filter(
      (record) =>
        !this.#owners.has(record.id) &&
        !existsSync(home.endedMarker(record.id)) &&
        !ownedElsewhere(home.ownerFile(record.id)),
    );
    const reopened: { record: ExecutionRecord; queue: DurableQueue }[] = [];
    for (const record of open) {
      const stored = await store.getTask(record.taskId);
      if (stored === undefined) continue;
      reopened.push({ record, queue: this.#queueOf(record, taskFromStore(stored.definition)) });
    }
    reopened.sort(
      (a, b) =>
        Number(b.queue.size > 0) - Number(a.queue.size > 0) || a.record.createdAt.localeCompare(b.record.createdAt),
    );
    const ids: string[] = [];
    for (const { record, queue } of reopened) {
      if (!claimOwnership(home.ownerFile(record.id))) continue;
      this.#adopt(record.id, queue);
      ids.push(record.id);
    }
    return ids;
  }

  /**
   * Stops the service's executions without ending them: running turns are interrupted (SIGINT) and
   * everything is left to be carried on at the next start. Waits up to the close budget, then kills
   * the process groups still running. Idempotent; new submits are refused from the first call.
   */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#suspend.abort();
      const all = Promise.all([...this.#owners.values()].map((owner) => owner.finished));
      await closeWithin(all, this.#options.closeBudgetMs ?? DEFAULT_CLOSE_BUDGET_MS, () => {
        for (const owner of this.#owners.values()) owner.kill();
      });
    })();
    return this.#stopping;
  }

  /**
   * The executions whose owners are alive now, by where each is: `queued` while its owner waits for
   * its first slot, else by its stored state — `waiting` for a quota reset, `queued` for a slot again
   * after one, `running` otherwise. The owners are taken at the call; their states read after.
   */
  async suspending(): Promise<Suspending> {
    const owners = [...this.#owners.values()].filter((owner) => owner.phase !== 'done');
    const counts = { running: 0, waiting: 0, queued: 0 };
    for (const owner of owners) {
      const state = owner.phase === 'queued' ? 'queued' : (await this.#options.store.getExecution(owner.id))?.state;
      if (state === 'queued' || state === 'waiting') counts[state] += 1;
      else counts.running += 1;
    }
    return counts;
  }

  /** Resolves when every owner now alive is done (for tests and benchmarks). */
  async settled(): Promise<void> {
    await Promise.all([...this.#owners.values()].map((owner) => owner.finished));
  }

  #adopt(id: string, queue: DurableQueue): ExecutionOwner {
    const owner = new ExecutionOwner(id, queue, {
      home: this.#options.home,
      store: this.#options.store,
      admission: this.#options.admission,
      engine: this.#options.engine ?? {},
      suspend: this.#suspend.signal,
    });
    this.#owners.set(id, owner);
    void owner.finished.then(() => {
      if (this.#owners.get(id) === owner) this.#owners.delete(id);
    });
    return owner;
  }

  /** The owner of `id` if it takes messages; waits out one whose execution is just ending. */
  async #accepting(id: string): Promise<ExecutionOwner | undefined> {
    const owner = this.#owners.get(id);
    if (owner === undefined) return undefined;
    if (owner.accepting) return owner;
    await owner.finished;
    return undefined;
  }

  /** The queue an execution left: its queue.json, or one rebuilt from its log (`harmflow run` keeps none). */
  #queueOf(record: ExecutionRecord, task: Task): DurableQueue {
    const file = this.#options.home.queueFile(record.id);
    if (existsSync(file)) return DurableQueue.load(file);
    const records = readEvents(this.#options.home.eventsFile(record.id));
    const done = records.some((r) => r.type === 'turn.ended' && r.data.turn === 't1' && r.data.outcome === 'completed');
    return DurableQueue.rebuild(file, task.prompt, done ? 'done' : record.attemptCount > 0 ? 'running' : 'pending');
  }

  async #owner(id: string): Promise<ExecutionOwner> {
    const owner = this.#owners.get(id);
    if (owner !== undefined && owner.phase !== 'done') return owner;
    const record = await this.#get(id);
    if (FINAL_STATES.has(record.state)) throw new ConflictError(`execution ${id} has ended (${record.state})`);
    if (this.#stopping !== undefined) throw new ServiceUnavailableError('the service is stopping');
    throw new ConflictError(`execution ${id} is driven by another process (e.g. \`harmflow run\`), not this service`);
  }

  async #get(id: string): Promise<ExecutionRecord> {
    const record = await this.#options.store.getExecution(id);
    if (record === undefined) throw new NotFoundError(`no execution ${id}`);
    return record;
  }

  #refuseWhenStopping(): void {
    if (this.#stopping !== undefined) throw new ServiceUnavailableError('the service is stopping');
  }
}
