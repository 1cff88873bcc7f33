/**
 * ClusterTurnSource: the turns of one execution as the worker holding its lease (lease.ts) drives
 * them, from its PostgreSQL inbox (inbox.ts). It is the cluster's counterpart of the service's
 * DurableQueue (src/service/queue.ts): the engine's TurnSource is synchronous, so the source keeps
 * the execution's undone turns in memory, writes each change to PostgreSQL in the order it was made,
 * and pulls in new turns as they are enqueued on any node (a notification wakes it; it also polls).
 *
 * Durability, with a synchronous `next()`: `next()` and `done()` change memory at once and queue
 * their write; `flush()` resolves once every write queued so far is committed. The engine awaits
 * `flush()` (TurnSource.flush) after `done(turn)` and after `next()`, before a turn reaches the
 * harness, so a turn starts only once the previous one's `done` and its own `running` are durable:
 * a worker that dies mid-turn leaves exactly that turn `running` (redelivered by the next holder) and
 * every earlier one `done` (never run twice). As a guard, `next()` refuses (throws
 * UnflushedInboxError) to hand out a new turn while a write is unconfirmed, rather than let a worker
 * that forgot to flush start a turn whose predecessor may still be redelivered. Handing out the turn
 * in flight again (after a switch) writes nothing and needs no flush.
 *
 * Every write carries the worker's lease token and is refused (LeaseLostError) once a greater token
 * has taken the execution; then, or when PostgreSQL fails a write, the source is failed: `flush()`
 * and `next()` throw that error, and the worker stops driving. Nothing is retried in memory: the next
 * holder rebuilds the source from PostgreSQL, which is the truth.
 *
 * One engine drives a source; its methods are called from one event loop. The opener stops it.
 */
import { EXIT, HarmflowError } from '../core/errors.js';
import { Wakeup } from '../events/wakeup.js';
import type { Turn, TurnSource } from '../execution/turns.js';
import type { TakenCommand } from './inbox-commands.js';

/** A turn not yet done, as the inbox holds it. */
export interface StoredTurn {
  readonly number: number;
  readonly text: string;
  readonly state: 'queued' | 'running' | 'done';
}

/** What a source starts from: the turns not yet done, the last turn's number, and whether it closed. */
export interface LoadedInbox {
  readonly turns: readonly StoredTurn[];
  readonly last: number;
  readonly closed: boolean;
}

/**
 * The inbox's rows as a source reads and writes them (inbox.ts). Writes take the lease token and
 * reject with LeaseLostError when it is not the execution's current one.
 */
export interface InboxRows {
  load(execution: string, token: number): Promise<LoadedInbox>;
  /** The turns numbered after `number`, in order. */
  turnsAfter(execution: string, number: number): Promise<StoredTurn[]>;
  markRunning(execution: string, token: number, number: number): Promise<void>;
  markDone(execution: string, token: number, number: number): Promise<void>;
  /** Closes the inbox if every turn is done: true, or false (nothing changed) when one is not. */
  closeIfDone(execution: string, token: number): Promise<boolean>;
  /** Closes the inbox whatever is queued. */
  end(execution: string, token: number): Promise<void>;
  takeCommands(execution: string, token: number): Promise<TakenCommand[]>;
  /** Wakes `wakeup` on each notification for `execution` until the resolved function is called. */
  subscribe(execution: string, wakeup: Wakeup): Promise<() => void>;
}

/**
 * 2000 ms between a source's reads when no notification wakes it, as the event mirror's followers
 * (events/mirror/event-source.ts, MIRROR_POLL_MS): notifications wake it at once and a lost LISTEN
 * session wakes it too, so the poll only covers a session that went silent; a message is then at
 * most 2 s late, for one index lookup that finds nothing per tick.
 */
export const INBOX_POLL_MS = 2000;

/** How a source is opened. */
export interface TurnSourceOptions {
  /** Milliseconds between reads when nothing wakes it; default `INBOX_POLL_MS`. */
  readonly pollMs?: number;
  /** Given each command the source takes, in order; without it the source takes none. */
  readonly onCommand?: (command: TakenCommand) => void;
  /** Given each failed read (retried at the next wake or poll). */
  readonly onError?: (error: Error) => void;
}

/** `next()` was asked for a new turn while a write of the source was not yet confirmed. */
export class UnflushedInboxError extends HarmflowError {
  constructor(execution: string) {
    super(
      `the inbox of execution ${execution} has writes not yet flushed: await flush() before the next turn`,
      EXIT.internal,
    );
  }
}

function turnOf(stored: StoredTurn, redelivered: boolean): Turn {
  return { id: `t${stored.number}`, text: stored.text, redelivered };
}

export class ClusterTurnSource implements TurnSource {
  readonly execution: string;
  readonly token: number;
  readonly #rows: InboxRows;
  readonly #options: TurnSourceOptions;
  #running: StoredTurn | undefined;
  /** The number of a turn that was running under an earlier holder; cleared once handed out. */
  #interrupted: number | undefined;
  readonly #queued: StoredTurn[] = [];
  /** The number of the last turn read from PostgreSQL: new turns follow it. */
  #last: number;
  #closed: boolean;
  #writes: Promise<void> = Promise.resolve();
  #unconfirmed = 0;
  #failure: Error | undefined;
  /** The last read queued: reads run one at a time, in order. */
  #reads: Promise<void> = Promise.resolve();
  readonly #stopping = new AbortController();
  #unsubscribe: (() => void) | undefined;
  #loop: Promise<void> | undefined;

  private constructor(
    execution: string,
    token: number,
    rows: InboxRows,
    loaded: LoadedInbox,
    options: TurnSourceOptions,
  ) {
    this.execution = execution;
    this.token = token;
    this.#rows = rows;
    this.#options = options;
    this.#last = loaded.last;
    this.#closed = loaded.closed;
    for (const turn of loaded.turns) {
      if (turn.state === 'running' && this.#running === undefined) this.#running = turn;
      else if (turn.state !== 'done') this.#queued.push(turn);
    }
    this.#interrupted = this.#running?.number;
  }

  /**
   * Opens the source of `execution` for the worker holding its lease under `token`: subscribes to its
   * notifications, then loads its undone turns (a `running` one is handed out first, marked
   * `redelivered`), then follows new ones. Rejects with LeaseLostError when `token` is not the
   * execution's current lease token.
   */
  static async open(
    rows: InboxRows,
    execution: string,
    token: number,
    options: TurnSourceOptions = {},
  ): Promise<ClusterTurnSource> {
    const wakeup = new Wakeup();
    const unsubscribe = await rows.subscribe(execution, wakeup);
    let source: ClusterTurnSource;
    try {
      source = new ClusterTurnSource(execution, token, rows, await rows.load(execution, token), options);
    } catch (error) {
      unsubscribe();
      throw error;
    }
    source.#unsubscribe = unsubscribe;
    // Notifications that came during the load are kept by the wakeup the source listens with.
    wakeup.notify();
    source.#loop = source.#follow(wakeup);
    return source;
  }

  next(): Turn | undefined {
    if (this.#failure !== undefined) throw this.#failure;
    const running = this.#running;
    if (running !== undefined) {
      const redelivered = this.#interrupted === running.number;
      this.#interrupted = undefined;
      return turnOf(running, redelivered);
    }
    const head = this.#queued[0];
    if (this.#closed || head === undefined) return undefined;
    if (this.#unconfirmed > 0) throw new UnflushedInboxError(this.execution);
    this.#queued.shift();
    this.#running = head;
    this.#write(() => this.#rows.markRunning(this.execution, this.token, head.number));
    return turnOf(head, false);
  }

  done(turn: Turn): void {
    const running = this.#running;
    if (running === undefined || turnOf(running, false).id !== turn.id) return;
    this.#running = undefined;
    this.#write(() => this.#rows.markDone(this.execution, this.token, running.number));
  }

  /** Resolves once every change made so far is committed; rejects with the error of one that failed. */
  async flush(): Promise<void> {
    await this.#writes;
    if (this.#failure !== undefined) throw this.#failure;
  }

  /**
   * Ends the execution's queue if every turn is done, after flushing: resolves true, and the inbox
   * refuses every later message (atomically: a message is either refused or seen here). Resolves
   * false when a turn is not done (one sent since the last read): it is read in, and `next()` hands
   * it out. `next()` returning undefined does not close: only this does.
   */
  async close(): Promise<boolean> {
    await this.flush();
    if (this.#closed) return true;
    if (this.#running === undefined && this.#queued.length === 0) {
      this.#closed = await this.#rows.closeIfDone(this.execution, this.token);
      if (this.#closed) return true;
    }
    await this.#read();
    return false;
  }

  /**
   * Ends the execution's queue whatever is queued (the execution was canceled or failed): the inbox
   * refuses every later message, and turns still queued are never run. After flushing.
   */
  async end(): Promise<void> {
    await this.flush();
    await this.#rows.end(this.execution, this.token);
    this.#closed = true;
  }

  /** True once the queue is closed: `next()` hands out no new turn. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Turns not yet done: the one in flight (if any) and those waiting, as far as this source has read. */
  get size(): number {
    return this.#queued.length + (this.#running === undefined ? 0 : 1);
  }

  /**
   * Stops following the inbox, waiting for a read under way; writes nothing more (a worker that lost
   * its lease or stops). Changes already queued are still written: `flush()` to wait for them.
   * Idempotent.
   */
  async stop(): Promise<void> {
    this.#stopping.abort();
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    await this.#loop;
  }

  #write(work: () => Promise<void>): void {
    this.#unconfirmed += 1;
    this.#writes = this.#writes.then(async () => {
      try {
        if (this.#failure === undefined) await work();
      } catch (error) {
        this.#failure ??= error instanceof Error ? error : new Error(String(error));
      } finally {
        this.#unconfirmed -= 1;
      }
    });
  }

  /**
   * Reads the turns sent since the last read, and takes the commands when asked to. Reads run one at
   * a time; each starts after the call that asked for it, so it sees every turn committed before.
   */
  #read(): Promise<void> {
    const read = this.#reads.catch(() => {}).then(() => this.#readOnce());
    this.#reads = read;
    return read;
  }

  async #readOnce(): Promise<void> {
    const turns = await this.#rows.turnsAfter(this.execution, this.#last);
    // Numbers commit in order (inbox.ts); a gap would be a turn not yet visible, read next time.
    for (const turn of turns) {
      if (turn.number !== this.#last + 1) break;
      this.#last = turn.number;
      if (turn.state === 'queued') this.#queued.push(turn);
    }
    const onCommand = this.#options.onCommand;
    if (onCommand === undefined || this.#stopping.signal.aborted) return;
    for (const command of await this.#rows.takeCommands(this.execution, this.token)) onCommand(command);
  }

  async #follow(wakeup: Wakeup): Promise<void> {
    const pollMs = this.#options.pollMs ?? INBOX_POLL_MS;
    while (!this.#stopping.signal.aborted && this.#failure === undefined && !this.#closed) {
      await wakeup.wait(pollMs, this.#stopping.signal);
      if (this.#stopping.signal.aborted) return;
      try {
        await this.#read();
      } catch (error) {
        this.#options.onError?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
}
