/**
 * The handler a cluster worker runs for each dispatched execution (worker-loop.ts): it drives the
 * execution through the failover engine on this machine while the worker holds its lease, from its
 * PostgreSQL inbox, mirroring its history to PostgreSQL and checkpointing its workspace to the
 * remote, so that any API node streams it and any other worker can carry it on.
 *
 * Per call:
 * 1. The record is loaded. An execution that has ended only has its inbox settled: `close()` after
 *    success (a follow-up that came in first reopens it, and it is driven), `end()` after a failure,
 *    a cancel or a timeout. This covers a worker lost between recording the end and settling.
 * 2. Its workspace is made or found here (materialize.ts).
 * 3. Its history is put back (restoreHistory): when this machine has no record of it but the mirror
 *    has (another worker drove it before), the mirror's lines are written to `events.jsonl` as they
 *    are, in order, so the engine's recovery (recover.ts) finds the attempts, switches and turns that
 *    worker recorded, and closes the attempt it left open as `crashed`.
 * 4. The engine carries it on (engine.ts `carryOn`) from the inbox's turn source, suspended when the
 *    lease is lost. Each record appended schedules a catch-up of the mirror at most
 *    MIRROR_DEBOUNCE_MS later; each attempt's exit pushes a checkpoint. Both run one at a time.
 * 5. After the engine returns: a last catch-up, then the inbox is settled as in 1.
 *
 * Known gap: `context.json` (what each ended attempt did, read by recovery for the handoff) is not
 * mirrored. A worker that takes over an execution whose earlier worker ended attempts (switched,
 * quota) rebuilds only the attempt that worker left open (from its records); the ended attempts are
 * missing from the next handoff's summaries. The history itself (events.jsonl) is whole.
 *
 * Calls for one execution do not overlap: the worker loop calls it only while holding the lease.
 */
import { appendFile, mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { NotFoundError } from '../core/errors.js';
import type { HomePaths } from '../core/home.js';
import { FINAL_STATES } from '../core/outcome.js';
import type { EventMirror } from '../events/mirror/event-mirror.js';
import type { PgEventSource } from '../events/mirror/event-source.js';
import { carryOn, type EngineOptions } from '../execution/engine.js';
import type { ExecutionRecord, Store } from '../store/store.js';
import { pushCheckpoint } from '../workspace/checkpoint.js';
import type { ExecutionInbox } from './inbox.js';
import type { ClusterTurnSource } from './inbox-source.js';
import { materializeWorkspace } from './materialize.js';
import type { HandlerContext } from './worker-loop.js';

/**
 * 200 ms at most between a record's append and the start of its mirroring: a live view on another
 * node lags by that plus one insert, while a burst of records (a harness streams tens a second)
 * goes in one catch-up statement instead of one flushed commit each (event-mirror.ts).
 */
export const MIRROR_DEBOUNCE_MS = 200;

/** What the handler drives with; owned by the worker process, which closes them after its worker. */
export interface DriveJobDeps {
  /** The PostgreSQL store of the cluster. */
  readonly store: Store;
  readonly inbox: ExecutionInbox;
  /** The writing side of the event mirror. */
  readonly mirror: EventMirror;
  /** The reading side of the same mirror: an earlier worker's history is read back from it. */
  readonly mirrored: PgEventSource;
  /** This worker's state directory. */
  readonly home: HomePaths;
  /** This worker's folder of repository mirrors. */
  readonly cacheDir: string;
  readonly engine?: Pick<EngineOptions, 'extraPath' | 'hostEnv' | 'interruptBudgetMs'>;
  /**
   * Errors that do not stop the drive: a catch-up or a checkpoint push that failed while the engine
   * ran (the next one, or the next worker's recovery, makes up for it), an inbox read retried.
   */
  readonly onError?: (error: Error) => void;
}

/**
 * Drives `execution` as described above, and resolves once this worker has nothing more to do for it
 * now: it ended (its inbox settled), or the lease was lost (`signal` aborted; it is left open for the
 * next holder, and the last catch-up is skipped so that nothing this worker appended after losing the
 * lease reaches the mirror after the next holder read it). Rejects with NotFoundError for an unknown
 * execution, and with what failed otherwise (materializing, the inbox, the engine, the last catch-up).
 */
export async function driveClusterJob(execution: string, context: HandlerContext, deps: DriveJobDeps): Promise<void> {
  const { store, home } = deps;
  let record = await loadRecord(store, execution);
  const source = await deps.inbox.openTurnSource(execution, context.token, {
    ...(deps.onError !== undefined && { onError: deps.onError }),
  });
  try {
    for (;;) {
      if (FINAL_STATES.has(record.state) && (await settleInbox(source, record)) === 'settled') return;
      if (context.signal.aborted) return;
      const workspace = await materializeWorkspace({ record, home, cacheDir: deps.cacheDir, store });
      const eventsFile = home.eventsFile(execution);
      await restoreHistory(deps.mirrored, execution, eventsFile);
      const mirroring = serialized(() => deps.mirror.catchUp(execution, eventsFile), deps.onError);
      const checkpoints = serialized(
        () => pushCheckpoint({ worktree: workspace.worktree, remote: 'origin', execution }),
        deps.onError,
      );
      let pending: NodeJS.Timeout | undefined;
      const result = await carryOn(execution, source, {
        ...deps.engine,
        home,
        store,
        suspend: context.signal,
        onRecord: () => {
          pending ??= setTimeout(() => {
            pending = undefined;
            mirroring.run();
          }, MIRROR_DEBOUNCE_MS);
        },
        onAttemptExited: () => checkpoints.run(),
      }).finally(async () => {
        clearTimeout(pending);
        await Promise.all([mirroring.idle(), checkpoints.idle()]);
      });
      if (context.signal.aborted || result.state === 'suspended') return;
      await deps.mirror.catchUp(execution, eventsFile);
      record = await loadRecord(store, execution);
    }
  } finally {
    await source.stop();
  }
}

async function loadRecord(store: Store, execution: string): Promise<ExecutionRecord> {
  const record = await store.getExecution(execution);
  if (record === undefined) throw new NotFoundError(`no execution ${execution}`);
  return record;
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
