/**
 * The durable message queue of one execution: `runs/<execution>/queue.json` holds the messages
 * waiting and the text of the turn running. Every change is written atomically (and fsynced) before
 * the call returns, so a message is acknowledged to its sender only once it survives a crash, and a
 * restarted service neither loses, skips nor repeats a message — except the turn that was running,
 * which it hands out again marked `redelivered`. Owned by the execution's one owner; not shared
 * between processes.
 *
 * Once `next()` finds nothing queued, the execution ends: the queue closes, and a later `enqueue`
 * is refused (ConflictError) rather than acknowledged and never run. The owner also closes it when
 * the execution ends any other way.
 *
 * Idempotency keys (docs/api.md, "Idempotency"): a message sent with a key records the key, its
 * request's hash and its answer in the same write that queues it, so a message is acknowledged if
 * and only if its key is recorded. The same key again answers the first answer without queuing,
 * for as long as the file keeps it: the last KEPT_KEYS keys, whether their turns ran or not.
 */
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConflictError } from '../core/errors.js';
import { writeJsonAtomic } from '../core/json-file.js';
import type { Turn, TurnSource } from '../execution/turns.js';
import { checkSameRequest, type IdempotentRequest } from './execution-service.js';

/**
 * 1000: how many idempotency keys a queue keeps, the latest. A key only has to outlive its
 * client's retries (the CLI's last about 10 s; docs/cli.md), during which one execution takes a
 * handful of messages, not a thousand; and the whole file is rewritten and fsynced at each turn's
 * start and end, so the keys bound its size: 1000 keys of 36 characters (a UUID) take 195 KB of
 * it, of 255 characters 414 KB (measured). An older key is forgotten: the same key again queues its
 * message again.
 */
export const KEPT_KEYS = 1000;

const QueuedTurn = z.object({ id: z.string().regex(/^t\d+$/), text: z.string(), queuedAt: z.string() });
type QueuedTurn = z.infer<typeof QueuedTurn>;

/** A message's idempotency key, its request's hash, and the answer it had: its turn and how many waited. */
const KeptKey = z.object({
  key: z.string(),
  requestHash: z.string(),
  turn: z.string().regex(/^t\d+$/),
  queued: z.int().min(1),
});

/**
 * The file's shape: `running` is the turn in flight (null between turns), `pending` the rest in
 * order, `keys` the idempotency keys of the latest messages, oldest first (absent until a message
 * comes with one: files of earlier versions have none).
 */
export const QueueFile = z.object({
  version: z.literal(1),
  nextNumber: z.int().min(1),
  running: QueuedTurn.nullable(),
  pending: z.array(QueuedTurn),
  keys: z.array(KeptKey).optional(),
});
export type QueueFile = z.infer<typeof QueueFile>;

/** A message queued: its turn, how many turns wait to run (itself included), and whether it was queued before. */
export interface Enqueued {
  readonly turn: Turn;
  readonly queued: number;
  /** True when its key was recorded before: nothing was queued now, and this is the first answer. */
  readonly repeated: boolean;
}

/** A queue.json that cannot be read or does not match its schema. */
export class QueueFileError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'QueueFileError';
  }
}

export class DurableQueue implements TurnSource {
  readonly #file: string;
  #state: QueueFile;
  /** The id of a turn that was running under an earlier process; cleared once handed out. */
  #interrupted: string | undefined;
  #closed = false;

  private constructor(file: string, state: QueueFile, interrupted: string | undefined) {
    this.#file = file;
    this.#state = state;
    this.#interrupted = interrupted;
  }

  /** Makes the queue of a new execution, its first turn (`t1`) the task's prompt. */
  static create(file: string, firstText: string): DurableQueue {
    const queue = new DurableQueue(file, { version: 1, nextNumber: 1, running: null, pending: [] }, undefined);
    queue.enqueue(firstText);
    return queue;
  }

  /**
   * Makes the queue of an execution that was started without one (by `harmflow run`, whose one turn
   * lives in memory): `t1`, the task's prompt, is `done`, was `running` (it will be redelivered) or
   * still `pending`.
   */
  static rebuild(file: string, firstText: string, first: 'done' | 'running' | 'pending'): DurableQueue {
    const t1 = { id: 't1', text: firstText, queuedAt: new Date().toISOString() };
    const state: QueueFile = {
      version: 1,
      nextNumber: 2,
      running: first === 'running' ? t1 : null,
      pending: first === 'pending' ? [t1] : [],
    };
    writeJsonAtomic(file, state);
    return new DurableQueue(file, state, first === 'running' ? 't1' : undefined);
  }

  /** Reads the queue an earlier process left; its running turn, if any, will be redelivered. */
  static load(file: string): DurableQueue {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new QueueFileError(`cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
    const state = QueueFile.safeParse(parsed);
    if (!state.success) throw new QueueFileError(`${file} is not a queue file: ${z.prettifyError(state.error)}`);
    return new DurableQueue(file, state.data, state.data.running?.id);
  }

  /**
   * The first answer to the message sent with `request.key`, or undefined when the file at `file`
   * keeps no such key (or there is no file). Throws IdempotencyKeyReusedError when the key came with
   * another request, QueueFileError when the file cannot be read.
   */
  static answered(file: string, request: IdempotentRequest, text: string): Enqueued | undefined {
    if (!existsSync(file)) return undefined;
    return DurableQueue.load(file).#answered(request, text);
  }

  /**
   * Appends a message; returns its turn and how many turns wait to run (itself included). Durable on
   * return, with `request`'s key when given. A key recorded before queues nothing: the first answer
   * comes back (`repeated`), even once the queue has closed; IdempotencyKeyReusedError when it came
   * with another request.
   */
  enqueue(text: string, request?: IdempotentRequest): Enqueued {
    const first = request === undefined ? undefined : this.#answered(request, text);
    if (first !== undefined) return first;
    if (this.#closed) throw new ConflictError('the execution has ended: it takes no more messages');
    const queued: QueuedTurn = { id: `t${this.#state.nextNumber}`, text, queuedAt: new Date().toISOString() };
    const pending = [...this.#state.pending, queued];
    const answer = { turn: queued.id, queued: pending.length };
    const kept = request === undefined ? [] : [{ key: request.key, requestHash: request.requestHash, ...answer }];
    const keys = [...(this.#state.keys ?? []), ...kept].slice(-KEPT_KEYS);
    this.#write({ ...this.#state, nextNumber: this.#state.nextNumber + 1, pending, ...(keys.length > 0 && { keys }) });
    return { turn: { id: queued.id, text, redelivered: false }, queued: answer.queued, repeated: false };
  }

  next(): Turn | undefined {
    const running = this.#state.running;
    if (running !== null) {
      const redelivered = this.#interrupted === running.id;
      this.#interrupted = undefined;
      return { id: running.id, text: running.text, redelivered };
    }
    const [head, ...rest] = this.#state.pending;
    if (head === undefined) {
      this.#closed = true;
      return undefined;
    }
    this.#write({ ...this.#state, running: head, pending: rest });
    return { id: head.id, text: head.text, redelivered: false };
  }

  done(turn: Turn): void {
    if (this.#state.running?.id !== turn.id) return;
    this.#write({ ...this.#state, running: null });
  }

  /** True once the execution has ended: `enqueue` refuses. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Refuses every later message: the execution has ended. */
  close(): void {
    this.#closed = true;
  }

  /** Turns not yet done: the one running (if any) and those waiting. */
  get size(): number {
    return this.#state.pending.length + (this.#state.running === null ? 0 : 1);
  }

  /** The first answer to `request.key`, if the queue keeps it (see `answered`). */
  #answered(request: IdempotentRequest, text: string): Enqueued | undefined {
    const first = this.#state.keys?.find((kept) => kept.key === request.key);
    if (first === undefined) return undefined;
    checkSameRequest(request, first);
    return { turn: { id: first.turn, text, redelivered: false }, queued: first.queued, repeated: true };
  }

  #write(state: QueueFile): void {
    writeJsonAtomic(this.#file, state);
    this.#state = state;
  }
}
