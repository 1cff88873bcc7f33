/**
 * The handler a cluster worker runs for each dispatched execution (worker-loop.ts): it drives the
 * execution through the failover engine on this machine while the worker holds its lease, from its
 * PostgreSQL inbox, mirroring its history and its context to PostgreSQL and checkpointing its
 * workspace to the remote, so that any API node streams it and any other worker can carry it on.
 *
 * Per call:
 * 1. The record is loaded, and this process claims the execution's owner file on this machine
 *    (execution/owner-file.ts; a live process of this machine already driving it is a ConflictError),
 *    so that a worker restarted on this state directory knows which harnesses are orphans
 *    (orphans.ts). An execution that has ended only has its inbox settled: `close()` after success
 *    (a follow-up that came in first reopens it, and it is driven), `end()` after a failure, a cancel
 *    or a timeout. This covers a worker lost between recording the end and settling.
 * 2. Its history is put back (restoreHistory): when this machine has no record of it but the mirror
 *    has (another worker drove it before), the mirror's lines are written to `events.jsonl` as they
 *    are, in order, so the engine's recovery (recover.ts) finds the attempts, switches and turns that
 *    worker recorded, and closes the attempt it left open as `crashed`. Its `context.json` likewise
 *    (restoreContext, from contexts.ts): the ended attempts of the earlier worker reach the handoff.
 * 3. Commands (command-relay.ts) are applied from then on: those sent before this worker took the
 *    execution are taken now, before the engine starts a turn. A cancel of an execution no attempt
 *    has started ends it `canceled` here, with no workspace made.
 * 4. Its workspace is made or found here (materialize.ts).
 * 5. The engine carries it on (engine.ts `carryOn`) from the inbox's turn source, canceled by the
 *    relay's signal, steered by its control, suspended when the lease is lost. Each record appended
 *    schedules a catch-up of the mirror at most MIRROR_DEBOUNCE_MS later; each record that follows a
 *    write of `context.json` (`context.written`, `attempt.ended`, `execution.ended`) stores it in
 *    PostgreSQL; each attempt's exit, and every `checkpointEveryMs` while the engine runs, pushes a
 *    checkpoint. Each of the three runs one at a time. (The engine's `onAttemptExited` comes before
 *    it writes the ended attempt into `context.json`, so the context follows the records instead.)
 * 6. After the engine returns: the context stored and a last catch-up, then the inbox is settled as
 *    in 1 and, when it is, a catch-up of what the relay recorded meanwhile. An engine suspended
 *    because the worker is closing (`context.stopping`) leaves the execution open: the context and
 *    the catch-up are still made (the lease is still held), for the worker that takes it next.
 *
 * Every write of the execution's own rows in the store (its state, its attempts), the engine's and
 * this handler's, goes through a view of the store fenced to the lease (postgres-store.ts
 * `fencedTo`), as the inbox's and the contexts' writes carry the token: a write under way when the
 * lease is lost commits before the next holder's acquire or not at all. A write of the engine's the
 * fence refuses is taken as the lease lost: the engine is suspended, as when the lease keeper finds
 * it lost, and the write is dropped (`suspendOnRefusal`).
 *
 * Calls for one execution do not overlap: the worker loop calls it only while holding the lease.
 */
import { appendFile, mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConflictError, NotFoundError } from '../core/errors.js';
import type { HomePaths } from '../core/home.js';
import { writeJsonAtomic } from '../core/json-file.js';
import { FINAL_STATES } from '../core/outcome.js';
import { type Task, taskFromStore } from '../core/task.js';
import type { EventMirror } from '../events/mirror/event-mirror.js';
import type { PgEventSource } from '../events/mirror/event-source.js';
import type { EventRecord, EventType } from '../events/schema.js';
import { StoredContext } from '../execution/context-schema.js';
import { carryOn, DEFAULT_INTERRUPT_BUDGET_MS, type EngineOptions, harnessPath } from '../execution/engine.js';
import { endCanceledWhileQueued } from '../execution/own-records.js';
import { claimOwnership, releaseOwnership } from '../execution/owner-file.js';
import type { TurnSource } from '../execution/turns.js';
import { type FenceableStore, LeaseFenceError } from '../store/postgres/postgres-store.js';
import type { ExecutionRecord, Store } from '../store/store.js';
import { pushCheckpoint } from '../workspace/checkpoint.js';
import { CommandRelay } from './command-relay.js';
import type { ExecutionContexts } from './contexts.js';
import { DISPATCH_LOCK } from './dispatch.js';
import type { ExecutionInbox } from './inbox.js';
import type { ClusterTurnSource } from './inbox-source.js';
import { LeaseLostError } from './kept-lease.js';
import { materializeWorkspace } from './materialize.js';
import type { HandlerContext } from './worker-loop.js';

/**
 * 200 ms at most between a record's append and the start of its mirroring: a live view on another
 * node lags by that plus one insert, while a burst of records (a harness streams tens a second)
 * goes in one catch-up statement instead of one flushed commit each (event-mirror.ts).
 */
export const MIRROR_DEBOUNCE_MS = 200;

/**
 * 60 s between checkpoints while the engine runs (besides the one at each attempt's exit). A worker
 * lost mid-attempt loses at most the work of the last interval; its successor restores the rest.
 * What a checkpoint costs when nothing changed is a few local git commands and no push
 * (checkpoint.ts skips a state equal to the last one), so a short interval is cheap for an idle
 * harness; what it costs when files changed is a commit of the worktree's state and a push to the
 * remote, load that a shared git server takes from every running execution at once, so it is not
 * made shorter than a harness's work is worth. A harness turn commonly runs for minutes, so a minute
 * bounds the loss to a fraction of one turn's work.
 */
export const DEFAULT_CHECKPOINT_EVERY_MS = 60_000;

/** The records the engine appends right after it wrote `context.json` (drive.ts). */
const AFTER_CONTEXT_WRITE: ReadonlySet<EventType> = new Set(['context.written', 'attempt.ended', 'execution.ended']);

/**
 * 3: an execution whose last three attempts were each lost with their worker (`crashed`) ends `failed`
 * on the next worker instead of starting a fourth. It matches the dispatch lock's
 * `maxStalledCount` (2: BullMQ fails the job at its third loss), so the redispatch sweep, which
 * dispatches it again, hands it to a worker that ends it rather than to a fourth victim.
 */
const MAX_CRASHED_IN_ROW = DISPATCH_LOCK.maxStalledCount + 1;

/** What the handler drives with; owned by the worker process, which closes them after its worker. */
export interface DriveJobDeps {
  /** The PostgreSQL store of the cluster; each call drives with a view of it fenced to its lease. */
  readonly store: FenceableStore;
  readonly inbox: ExecutionInbox;
  /** The writing side of the event mirror. */
  readonly mirror: EventMirror;
  /** The reading side of the same mirror: an earlier worker's history is read back from it. */
  readonly mirrored: PgEventSource;
  /** Each execution's `context.json`, kept in PostgreSQL for the worker that carries it on next. */
  readonly contexts: ExecutionContexts;
  /** This worker's state directory. */
  readonly home: HomePaths;
  /** This worker's folder of repository mirrors. */
  readonly cacheDir: string;
  readonly engine?: Pick<EngineOptions, 'extraPath' | 'hostEnv' | 'interruptBudgetMs'>;
  /** Milliseconds between checkpoints while the engine runs. Default DEFAULT_CHECKPOINT_EVERY_MS. */
  readonly checkpointEveryMs?: number;
  /**
   * Errors that do not stop the drive: a catch-up, a context write or a checkpoint push that failed
   * while the engine ran (the next one, or the next worker's recovery, makes up for it), an inbox
   * read retried.
   */
  readonly onError?: (error: Error) => void;
}

/**
 * Drives `execution` as described above, and resolves once this worker has nothing more to do for it
 * now: it ended (its inbox settled), the worker is closing (`stopping` aborted; it is suspended and
 * left open), or the lease was lost (`signal` aborted; it is left open for the next holder, and the
 * last catch-up is skipped so that nothing this worker appended after losing the lease reaches the
 * mirror after the next holder read it). Rejects with LeaseLostError when a write fenced by the lease
 * (the store's, the inbox's, the contexts') was refused, `signal` aborted or not: the lease was lost
 * (the worker loop takes it so). Rejects with NotFoundError for an unknown execution, ConflictError
 * when another live process of this machine owns it, and with what failed otherwise (materializing,
 * the inbox, the engine, the last context write or catch-up).
 */
export async function driveClusterJob(execution: string, context: HandlerContext, deps: DriveJobDeps): Promise<void> {
  const { home } = deps;
  const store = deps.store.fencedTo({ execution, token: context.token });
  /** Aborted when the fence refused a write of the engine's: another worker holds the lease. */
  const fencedOut = new AbortController();
  let record = await loadRecord(store, execution);
  await mkdir(home.runDir(execution), { recursive: true });
  const ownerFile = home.ownerFile(execution);
  if (!claimOwnership(ownerFile)) {
    throw new ConflictError(`execution ${execution} is driven by another live process on this machine (${ownerFile})`);
  }
  const eventsFile = home.eventsFile(execution);
  const contextFile = home.contextFile(execution);
  const mirroring = serialized(() => deps.mirror.catchUp(execution, eventsFile), deps.onError);
  const contextPuts = serialized(() => putContext(deps.contexts, execution, context.token, contextFile), deps.onError);
  let pending: NodeJS.Timeout | undefined;
  const onRecord = (appended: EventRecord) => {
    pending ??= setTimeout(() => {
      pending = undefined;
      mirroring.run();
    }, MIRROR_DEBOUNCE_MS);
    if (AFTER_CONTEXT_WRITE.has(appended.type)) contextPuts.run();
  };
  const relay = new CommandRelay(execution, home, onRecord);
  let source: ClusterTurnSource | undefined;
  let drove = false;
  try {
    source = await deps.inbox.openTurnSource(execution, context.token, {
      onCommand: (taken) => relay.deliver(taken.command),
      ...(deps.onError !== undefined && { onError: deps.onError }),
    });
    for (;;) {
      if (FINAL_STATES.has(record.state) && (await settleInbox(source, record)) === 'settled') {
        await source.stop();
        // What the relay recorded after the last catch-up (a command that crossed the end).
        if (drove && !context.signal.aborted) await deps.mirror.catchUp(execution, eventsFile);
        return;
      }
      if (context.signal.aborted || context.stopping.aborted) return;
      await restoreHistory(deps.mirrored, execution, eventsFile);
      await restoreContext(deps.contexts, execution, contextFile);
      drove = true;
      const task = await loadTask(store, record);
      let ended = false;
      relay.start({
        task,
        path: harnessPath(deps.engine?.extraPath, deps.engine?.hostEnv),
        budgetMs: task.interruptBudgetMs ?? deps.engine?.interruptBudgetMs ?? DEFAULT_INTERRUPT_BUDGET_MS,
        ended: () => ended,
      });
      for (const taken of await deps.inbox.takeCommands(execution, context.token)) relay.deliver(taken.command);
      if (relay.signal.aborted && record.state === 'queued' && record.attemptCount === 0) {
        await endCanceledWhileQueued(home, store, execution, onRecord);
        ended = true;
        await deps.mirror.catchUp(execution, eventsFile);
        record = await loadRecord(store, execution);
        continue;
      }

      const workspace = await materializeWorkspace({ record, home, cacheDir: deps.cacheDir, store });
      if (context.signal.aborted || context.stopping.aborted) return;
      const checkpoints = serialized(
        () => pushCheckpoint({ worktree: workspace.worktree, remote: 'origin', execution }),
        deps.onError,
      );
      const ticker = setInterval(() => checkpoints.run(), deps.checkpointEveryMs ?? DEFAULT_CHECKPOINT_EVERY_MS);
      ticker.unref();
      const result = await carryOn(execution, suspendOnLeaseLoss(source, fencedOut), {
        ...deps.engine,
        maxCrashedInRow: MAX_CRASHED_IN_ROW,
        home,
        store: suspendOnRefusal(store, fencedOut),
        signal: relay.signal,
        suspend: AbortSignal.any([context.signal, context.stopping, fencedOut.signal]),
        control: relay.control,
        onRecord,
        onAttemptExited: () => checkpoints.run(),
      }).finally(async () => {
        clearInterval(ticker);
        clearTimeout(pending);
        pending = undefined;
        await Promise.all([mirroring.idle(), checkpoints.idle(), contextPuts.idle()]);
      });
      if (context.signal.aborted) return;
      if (fencedOut.signal.aborted) throw fencedOut.signal.reason;
      ended = result.state !== 'suspended';
      await putContext(deps.contexts, execution, context.token, contextFile);
      await deps.mirror.catchUp(execution, eventsFile);
      // Suspended with the lease still held: the worker is closing, and its successor starts from here.
      if (result.state === 'suspended') return;
      record = await loadRecord(store, execution);
    }
  } catch (error) {
    // A write of this handler's own (materializing, a cancel while queued) refused by the fence.
    if (error instanceof LeaseFenceError) throw new LeaseLostError(execution, error.message);
    throw error;
  } finally {
    clearTimeout(pending);
    await source?.stop();
    await Promise.all([mirroring.idle(), contextPuts.idle()]);
    releaseOwnership(ownerFile);
  }
}

async function loadRecord(store: Store, execution: string): Promise<ExecutionRecord> {
  const record = await store.getExecution(execution);
  if (record === undefined) throw new NotFoundError(`no execution ${execution}`);
  return record;
}

async function loadTask(store: Store, record: ExecutionRecord): Promise<Task> {
  const stored = await store.getTask(record.taskId);
  if (stored === undefined) throw new NotFoundError(`execution ${record.id} has no task record ${record.taskId}`);
  return taskFromStore(stored.definition);
}

/**
 * The engine's view of `store`, a view fenced to the lease: a write the fence refuses aborts
 * `fencedOut` with a LeaseLostError and resolves, changing nothing, instead of rejecting. The engine,
 * whose `suspend` signal that is, then ends `suspended`, as when the lease keeper finds the lease lost
 * (typically the refused write is the one recording the attempt it was interrupting for that very
 * loss). A rejection would end it otherwise: drive.ts records a final state (`failed`, in this
 * machine's log and marker) whenever a write throws. The rows are the next holder's to write.
 */
function suspendOnRefusal(store: Store, fencedOut: AbortController): Store {
  const refusable = async (write: Promise<void>): Promise<void> => {
    try {
      await write;
    } catch (error) {
      if (!(error instanceof LeaseFenceError)) throw error;
      fencedOut.abort(new LeaseLostError(error.execution, error.message));
    }
  };
  return {
    insertTask: (task) => store.insertTask(task),
    getTask: (id) => store.getTask(id),
    insertExecution: (created) => store.insertExecution(created),
    insertSubmission: (records, key) => store.insertSubmission(records, key),
    getSubmitKey: (key) => store.getSubmitKey(key),
    updateExecution: (id, patch) => refusable(store.updateExecution(id, patch)),
    getExecution: (id) => store.getExecution(id),
    findExecutions: (query) => store.findExecutions(query),
    listExecutions: (query) => store.listExecutions(query),
    insertAttempt: (attempt) => refusable(store.insertAttempt(attempt)),
    updateAttempt: (id, number, patch) => refusable(store.updateAttempt(id, number, patch)),
    listAttempts: (id) => store.listAttempts(id),
    putQuota: (quota) => store.putQuota(quota),
    listQuotas: () => store.listQuotas(),
    close: () => store.close(),
  };
}

/**
 * `source` for the engine, except that a write the inbox refused because another worker holds the
 * lease now (LeaseLostError from `flush`) also aborts `fencedOut`, so the engine treats it as the
 * suspension it is rather than as the execution failing.
 */
function suspendOnLeaseLoss(source: ClusterTurnSource, fencedOut: AbortController): TurnSource {
  return {
    next: () => source.next(),
    done: (turn) => source.done(turn),
    flush: async () => {
      try {
        await source.flush();
      } catch (error) {
        if (error instanceof LeaseLostError) fencedOut.abort(error);
        throw error;
      }
    },
  };
}

/**
 * Closes the inbox of an ended execution: `end()` unless it succeeded; after success `close()`,
 * which refuses (`reopened`) when a follow-up was enqueued first, and the source then hands it out.
 */
async function settleInbox(source: ClusterTurnSource, record: ExecutionRecord): Promise<'settled' | 'reopened'> {
  if (record.state !== 'succeeded') {
    await source.end();
    return 'settled';
  }
  return (await source.close()) ? 'settled' : 'reopened';
}

/**
 * Stores this machine's `context.json` of `execution` in PostgreSQL under the lease's `token`; does
 * nothing while there is none (no attempt has ended yet).
 */
async function putContext(contexts: ExecutionContexts, execution: string, token: number, file: string): Promise<void> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (text === undefined) return;
  await contexts.put(execution, token, StoredContext.parse(JSON.parse(text)));
}

/**
 * Writes the stored context of `execution` to `file` when this machine has none: an earlier worker on
 * another machine ended attempts of it. A `context.json` this machine has is its own and left alone:
 * a machine whose copy is older than another worker's carry-on also has an older worktree, which
 * materializing refuses (materialize.ts).
 */
async function restoreContext(contexts: ExecutionContexts, execution: string, file: string): Promise<void> {
  const found = await stat(file).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
  if (found) return;
  const stored = await contexts.get(execution);
  if (stored === undefined) return;
  await mkdir(dirname(file), { recursive: true });
  writeJsonAtomic(file, stored);
}

/**
 * Writes the mirror's records of `execution` to `eventsFile` when that file holds none (missing or
 * empty): the exact lines, in position order. A log with records is this machine's own, newer than or
 * equal to what it mirrored, and is left alone (a catch-up finds any disagreement).
 */
async function restoreHistory(mirrored: PgEventSource, execution: string, eventsFile: string): Promise<void> {
  const size = await stat(eventsFile).then(
    (found) => found.size,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return 0;
      throw error;
    },
  );
  if (size > 0) return;
  const lines: string[] = [];
  for (;;) {
    const read = await mirrored.read(execution, lines.length);
    if (read.length === 0) break;
    for (const { position, line } of read) {
      // The source skips a stored line it cannot parse: the lines after it would move up a position.
      if (position !== lines.length) {
        throw new Error(`the mirror of execution ${execution} has no readable record at position ${lines.length}`);
      }
      lines.push(line);
    }
  }
  if (lines.length === 0) return;
  await mkdir(dirname(eventsFile), { recursive: true });
  await appendFile(eventsFile, `${lines.join('\n')}\n`, { flag: 'a' });
}

/** A task run one call at a time: `run()` while one runs queues one more run after it (not more). */
interface Serialized {
  run(): void;
  /** Resolves once no run is under way or queued. */
  idle(): Promise<void>;
}

function serialized(task: () => Promise<unknown>, onError: ((error: Error) => void) | undefined): Serialized {
  let running: Promise<void> | undefined;
  let again = false;
  const loop = async (): Promise<void> => {
    do {
      again = false;
      try {
        await task();
      } catch (error) {
        onError?.(error instanceof Error ? error : new Error(String(error)));
      }
    } while (again);
    running = undefined;
  };
  return {
    run() {
      if (running !== undefined) again = true;
      else running = loop();
    },
    async idle() {
      await running;
    },
  };
}
