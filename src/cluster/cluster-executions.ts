/**
 * ClusterExecutions: the ExecutionService of an API node in cluster mode (issue 9). It drives
 * nothing itself: it records each request in PostgreSQL, the source of truth — the execution's rows
 * (create-records.ts), its turns and commands (inbox.ts) — and then dispatches the execution on BullMQ
 * (dispatch.ts), so that a worker takes it if none holds it; a worker that holds it is woken by the
 * inbox's notification. Any number of API nodes may run it at once: every write it makes is one the
 * inbox and the dispatch queue already make safe under concurrency. It keeps no state of its own.
 *
 * What is checked here and what on the worker: the task's shape (by the route), its git identity
 * (`clusterGitIdentity`), its repository (a URL
 * or an absolute path) and base ref (resolved with `git ls-remote`) here; whether its harness CLIs
 * are installed only on the worker, which has them (an API node need not): a missing one fails the
 * attempt there, as on one machine. A switch's harness likewise. The state checks (409) read the
 * store's record, which a worker may change a moment later: the inbox then refuses what can no
 * longer be done once the execution's queue has closed (409 too), and the worker refuses, with a
 * `warning` record, a command that crossed the execution's end (command-relay.ts).
 *
 * The API node appends nothing to an execution's event log: the worker that holds it writes the log
 * (and its mirror). A message shows on the timeline when the worker starts its turn.
 */
import { ConflictError, describeError, NotFoundError, ServiceUnavailableError, TaskFileError } from '../core/errors.js';
import { FINAL_STATES } from '../core/outcome.js';
import { type GitIdentity, type HarnessSpec, linkLabel, type Task, withGitIdentity } from '../core/task.js';
import type { SwitchRequest } from '../execution/control.js';
import {
  type ExecutionService,
  type IdempotentRequest,
  type SentMessage,
  type Suspending,
  submittedBefore,
  type WriteOptions,
} from '../service/execution-service.js';
import { type ExecutionRecord, type Store, SubmitKeyTakenError } from '../store/store.js';
import { createClusterExecution } from './create-records.js';
import { type DispatchQueue, dispatchExecution } from './dispatch.js';
import type { ExecutionInbox } from './inbox.js';
import type { InboxCommand } from './inbox-commands.js';

export interface ClusterExecutionsOptions {
  /** The shared PostgreSQL store. */
  readonly store: Store;
  /** Where turns and commands go. */
  readonly inbox: Pick<ExecutionInbox, 'enqueueTurn' | 'enqueueFirstTurn' | 'answered' | 'requestCommand'>;
  /** The dispatch queue the workers take executions from. */
  readonly queue: DispatchQueue;
  /**
   * Told of a dispatch that failed after its request was committed (Redis down): the request is not
   * refused for it, since the workers' redispatch sweep (redispatch.ts) dispatches the execution
   * within 30 s, and a client told to retry would send its message or submit its task twice.
   */
  readonly onDispatchError: (error: Error) => void;
}

/** All three are owned by the caller, who closes them after the HTTP server. */
export class ClusterExecutions implements ExecutionService {
  readonly #options: ClusterExecutionsOptions;

  constructor(options: ClusterExecutionsOptions) {
    this.#options = options;
  }

  /**
   * Creates the execution's rows (`queued`, no workspace yet), enqueues its prompt as turn `t1` and
   * dispatches it, in that order: a worker never finds a dispatched execution without its first turn.
   * Throws TaskFileError (400) for a link that gives no git identity (`clusterGitIdentity`), and
   * RepositoryError (400) for a repository that is not a URL or absolute path, cannot be
   * reached, or lacks the base ref; nothing is created then. When the first turn cannot be enqueued
   * after the rows exist, the execution is marked `failed` with the reason as its message (when it is
   * still `queued`), so that the user sees it ended rather than queued with nothing to run, and
   * ServiceUnavailableError (503) names it: submit again. Once the turn is enqueued the execution is
   * accepted: a failed dispatch is reported to `onDispatchError`, and the sweep dispatches it.
   *
   * With `options.idempotency`, the key is recorded with the rows (one transaction; of submits
   * racing with one key, the first to commit makes the execution and the others take it). A key
   * recorded before makes nothing: the submit goes on from where that one got to, so a retry of one
   * cut off between the rows and `t1` finishes it, and answers the execution as it was created —
   * or, when that one's first turn failed and it is `failed`, the same 503.
   */
  async submit(submitted: Task, options: WriteOptions = {}): Promise<ExecutionRecord> {
    const { store, inbox } = this.#options;
    const { idempotency } = options;
    const task = clusterGitIdentity(submitted);
    const first = idempotency && (await submittedBefore(store, idempotency));
    const created = first || (await this.#create(task, idempotency));
    let queued: Awaited<ReturnType<typeof inbox.enqueueFirstTurn>>;
    try {
      queued = await inbox.enqueueFirstTurn(created.id, task.prompt);
    } catch (error) {
      const reason = `it could not be queued: ${describeError(error)}`;
      const record = await store.getExecution(created.id).catch(() => undefined);
      if (record?.state === 'queued') {
        await store
          .updateExecution(created.id, { state: 'failed', endedAt: new Date().toISOString(), message: reason })
          .catch(() => {});
      }
      throw notQueued(created.id, reason, error);
    }
    if (queued === 'refused') {
      const record = await store.getExecution(created.id);
      throw notQueued(created.id, record?.message ?? `it is ${record?.state ?? 'gone'}`);
    }
    await this.#dispatch(created.id, 'the submit');
    return created;
  }

  /**
   * Enqueues `text` as the next turn of `id` and dispatches it. A succeeded execution takes it while
   * its queue is open (its worker reopens it); once the worker closed the queue, and for an execution
   * that ended any other way, ConflictError (409). The turn is durable before the dispatch, and a
   * failed dispatch only goes to `onDispatchError`: the sweep dispatches it. With
   * `options.idempotency`, a key the inbox recorded for `id` before answers that turn as it was
   * then, whatever the execution did since, and adds nothing (the dispatch is done again).
   */
  async send(id: string, text: string, options: WriteOptions = {}): Promise<SentMessage> {
    const { inbox } = this.#options;
    const { idempotency } = options;
    const record = await this.#get(id);
    const first = idempotency && (await inbox.answered(id, idempotency));
    if (!first && FINAL_STATES.has(record.state) && record.state !== 'succeeded') {
      throw new ConflictError(`execution ${id} has ended (${record.state})`);
    }
    const sent = first || (await inbox.enqueueTurn(id, text, idempotency));
    await this.#dispatch(id, `message ${sent.turn}`);
    return sent;
  }

  /**
   * Creates the execution's rows with `key`; of submits racing with the key, the one whose rows
   * were committed first is returned to the others (checked against their request).
   */
  async #create(task: Task, key: IdempotentRequest | undefined): Promise<ExecutionRecord> {
    try {
      return await createClusterExecution(task, this.#options.store, key);
    } catch (error) {
      const winner = error instanceof SubmitKeyTakenError && key && (await submittedBefore(this.#options.store, key));
      if (winner) return winner;
      throw error;
    }
  }

  /** Requests a cancel of `id` and dispatches it; ConflictError once it has ended. Returns its record as it was. */
  async cancel(id: string): Promise<ExecutionRecord> {
    const record = await this.#get(id);
    if (FINAL_STATES.has(record.state)) throw new ConflictError(`execution ${id} has ended (${record.state})`);
    return this.#command(record, { kind: 'cancel' });
  }

  /** Requests the end of `id`'s wait for a quota reset; ConflictError unless it is `waiting`. */
  async resume(id: string): Promise<ExecutionRecord> {
    const record = await this.#get(id);
    if (record.state !== 'waiting') {
      throw new ConflictError(`execution ${id} is ${record.state}, not waiting for a quota reset`);
    }
    return this.#command(record, { kind: 'resume' });
  }

  /**
   * Requests a switch of `id` to `request.harness`; ConflictError unless it is `running` or
   * `waiting`, NotFoundError when its task record is missing. Whether that harness can start is
   * checked by the worker, where it would run.
   */
  async switch(id: string, request: SwitchRequest): Promise<ExecutionRecord> {
    const record = await this.#get(id);
    if (record.state !== 'running' && record.state !== 'waiting') {
      throw new ConflictError(`execution ${id} is ${record.state}; only a running or waiting execution can switch`);
    }
    if ((await this.#options.store.getTask(record.taskId)) === undefined) {
      throw new NotFoundError(`execution ${id} has no task record ${record.taskId}`);
    }
    const { harness, by, model, reason } = request;
    return this.#command(record, {
      kind: 'switch',
      harness,
      by,
      ...(model !== undefined && { model }),
      ...(reason !== undefined && { reason }),
    });
  }

  /** An API node drives no execution: stopping it suspends none (the workers drive them). */
  async suspending(): Promise<Suspending> {
    return { running: 0, waiting: 0, queued: 0 };
  }

  /** Records `command` in the inbox (ConflictError once the queue closed), then dispatches. */
  async #command(record: ExecutionRecord, command: InboxCommand): Promise<ExecutionRecord> {
    await this.#options.inbox.requestCommand(record.id, command);
    await this.#dispatch(record.id, `the ${command.kind}`);
    return record;
  }

  /** Dispatches `id`; a failure goes to `onDispatchError`, saying that `what` is recorded nonetheless. */
  async #dispatch(id: string, what: string): Promise<void> {
    try {
      await dispatchExecution(this.#options.queue, id);
    } catch (error) {
      this.#options.onDispatchError(
        new ServiceUnavailableError(
          `${what} of execution ${id} is recorded, but the execution could not be dispatched (${describeError(error)}); the workers' sweep dispatches it`,
          { cause: error },
        ),
      );
    }
  }

  async #get(id: string): Promise<ExecutionRecord> {
    const record = await this.#options.store.getExecution(id);
    if (record === undefined) throw new NotFoundError(`no execution ${id}`);
    return record;
  }
}

/**
 * `task` with the git identity its commits carry on a cluster, or TaskFileError when a link gives
 * none. A worker runs each harness with a private HOME, and the API node has neither the workspace
 * nor the workers' git config, so the identity must travel with the task: every link's `env` gives
 * GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL (`passEnv` would read the worker's environment, which nothing
 * here can check). Each link's GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL, when it gives none,
 * default to its author; Task.gitIdentity is the primary link's, for a link added by a switch by
 * hand that copies none. Pure. `harmflow submit` fills the user's own identity into each link's
 * `env` (cli/submit.ts), so a task submitted with it passes.
 */
export function clusterGitIdentity(task: Task): Task {
  const missing = task.chain.flatMap((link, index) =>
    nonEmpty(link.env.GIT_AUTHOR_NAME) && nonEmpty(link.env.GIT_AUTHOR_EMAIL) ? [] : [linkLabel(task.chain, index)],
  );
  if (missing.length > 0) {
    throw new TaskFileError(
      `no git identity for the agent's commits: on a cluster each harness's env must give GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL (GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL default to them), and ${missing.join(' and ')} ${missing.length === 1 ? 'does' : 'do'} not: add them, or submit with \`harmflow submit\`, which adds the identity your git config gives (git config --global user.name "Your Name" && git config --global user.email "you@example.com")`,
    );
  }
  const chain = task.chain.map((link): HarnessSpec => {
    const { authorName, authorEmail } = authorOf(link);
    return {
      ...link,
      env: {
        ...link.env,
        GIT_COMMITTER_NAME: nonEmpty(link.env.GIT_COMMITTER_NAME) ? link.env.GIT_COMMITTER_NAME : authorName,
        GIT_COMMITTER_EMAIL: nonEmpty(link.env.GIT_COMMITTER_EMAIL) ? link.env.GIT_COMMITTER_EMAIL : authorEmail,
      },
    };
  });
  const [primary] = chain;
  if (primary === undefined) return task;
  const identity: GitIdentity = {
    ...authorOf(primary),
    committerName: primary.env.GIT_COMMITTER_NAME ?? '',
    committerEmail: primary.env.GIT_COMMITTER_EMAIL ?? '',
  };
  return withGitIdentity({ ...task, chain }, identity);
}

/** The 503 of a submit whose first turn was not enqueued: the execution failed, submit again. */
function notQueued(execution: string, reason: string, cause?: unknown): ServiceUnavailableError {
  return new ServiceUnavailableError(`execution ${execution} failed: ${reason}; submit the task again`, { cause });
}

function authorOf(link: HarnessSpec): { authorName: string; authorEmail: string } {
  return { authorName: link.env.GIT_AUTHOR_NAME ?? '', authorEmail: link.env.GIT_AUTHOR_EMAIL ?? '' };
}

function nonEmpty(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}
