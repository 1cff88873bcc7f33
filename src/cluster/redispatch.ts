/**
 * The redispatch sweep (cluster mode, issue 9): dispatches again the executions that have work to do
 * and nobody to do it. PostgreSQL is the truth and BullMQ only dispatches (dispatch.ts), so a job can
 * be missing while the store says there is work: Redis lost its data (a restart without persistence,
 * a failover, a flush), or an API node committed a turn or a command and then failed to dispatch it
 * (it answers once committed all the same: a retry would duplicate the request). Every worker runs the sweep
 * periodically (`startRedispatching`); it is that next dispatch.
 *
 * An execution needs a worker when it is in a live state (not in FINAL_STATES, core/outcome.ts) — but
 * a `queued` one only once its inbox exists: a submit makes the rows, then enqueues `t1`, then
 * dispatches (cluster-executions.ts), and a worker must never find a dispatched execution without its
 * first turn — or when its inbox is not closed and holds a turn not `done` (`queued`, or `running`
 * under a holder that died) or a command nobody took (inbox.ts). A closed inbox takes nothing more
 * and its ended execution has been settled, so what is left in it is never work: a worker ends an
 * execution's inbox with its turns still queued after a failure or a cancel, and would be dispatched
 * for nothing every sweep otherwise. An execution whose lease is unexpired is never dispatched: its
 * holder is driving it and reads its inbox itself.
 *
 * Of those, an execution whose job is waiting or delayed is left alone (dispatching it
 * would be a no-op: deduplication, dispatch.ts); every other one is dispatched, including one whose job
 * is active (its worker has not acquired the lease yet, or released it and has not finished the job):
 * `keepLastIfActive` then leaves one job to be added when the active one finishes, however many sweeps
 * meet it meanwhile, and that one extra handling finds in the store that nothing is left to do.
 * Whether a job exists is read just before the dispatch, so a dispatch that another node made in
 * between is made again: a no-op, reported as dispatched.
 *
 * An execution that stays live after its job failed (a handler that threw, a job BullMQ failed after
 * DISPATCH_LOCK.maxStalledCount lost workers: DispatchFailedError, worker-loop.ts) is dispatched again
 * by the next sweep, and so again after every failure, unless the worker that hears of the failure
 * records the execution as ended in the store.
 */
import type pg from 'pg';
import { z } from 'zod';
import { isExecutionId } from '../core/execution-id-shape.js';
import { type ExecutionState, LIVE_STATES } from '../core/outcome.js';
import { openSchemaPool, type PostgresStoreOptions } from '../store/postgres/schema-pool.js';
import { type DispatchQueue, dispatchExecution } from './dispatch.js';

/**
 * 500 executions at most looked at by one sweep, in execution id order (ULIDs: oldest first), the
 * next sweep going on after the last one and starting over once a sweep finds fewer. A queued
 * execution whose job waits for a free worker looks, in PostgreSQL, like one whose job was lost, so
 * with a backlog every waiting execution is a candidate: the bound keeps a sweep's cost fixed (one
 * query, and two Redis reads and at most one dispatch per execution, all on the queue's one
 * connection) however long the backlog, and the cursor keeps a long backlog from hiding the newer
 * executions behind the older ones forever: every candidate is looked at within ⌈candidates / 500⌉
 * sweeps (10,000 queued executions, issue 9's plan: 20 sweeps, 10 minutes at REDISPATCH_EVERY_MS).
 */
export const REDISPATCH_BATCH = 500;

/**
 * 30 s between sweeps: an execution left without a job waits up to that (times the batches ahead of
 * it, above) for its dispatch, as long as a dead worker's job takes to come back (25 s,
 * DISPATCH_LOCK, dispatch.ts): both are failures, rare, recovered in the same time. Sooner would buy
 * little for those and cost every worker a query and a batch of Redis reads more often. The sweep
 * causes no churn at any interval: an execution being driven holds its lease (15 s ttl renewed every
 * 5 s, kept-lease.ts) and is skipped; one between two holders has its job delayed (a dispatch adds
 * nothing) or active (however many sweeps meet it, one job is added, once, when it finishes: see
 * above).
 */
const REDISPATCH_EVERY_MS = 30_000;

/** The states an execution leaves: it may need a worker whatever its inbox holds. */

/** The state an execution is created in, before its first turn is enqueued. */
const CREATED_STATE: ExecutionState = 'queued';

/**
 * BullMQ's states of a dispatch job that is yet to run, where a dispatch of its execution adds nothing
 * (dispatches have no priority and no parent, so their jobs are never `prioritized` nor
 * `waiting-children`).
 */
const PENDING_JOB_STATES: ReadonlySet<string> = new Set(['waiting', 'delayed']);

const Candidate = z.object({ id: z.string() });

/**
 * RedispatchSweep finds the executions that need a worker and have none, and dispatches them. Its
 * calls run one at a time (a call made while another runs waits for it). It holds a bounded pool;
 * the opener owns it and closes it.
 */
export interface RedispatchSweep {
  /**
   * Looks at the next REDISPATCH_BATCH executions that need a worker and hold no lease, and
   * dispatches on `queue` those without a pending job; resolves to their ids, oldest first. Rejects
   * when PostgreSQL or Redis fails (some may have been dispatched then; the next sweep looks at the
   * same batch again).
   */
  sweep(queue: DispatchQueue): Promise<string[]>;
  /** Ends its pool, after the sweep under way. Idempotent; sweeps after it reject. */
  close(): Promise<void>;
}

/**
 * openRedispatchSweep connects to the PostgreSQL database at `url` and applies the missing migrations
 * to its schema (store/postgres/schema-pool.ts). Rejects when the server does not answer within the
 * connect timeout or the schema name is not a plain lowercase identifier.
 */
export async function openRedispatchSweep(url: string, options: PostgresStoreOptions = {}): Promise<RedispatchSweep> {
  const { pool, schema } = await openSchemaPool(url, options);
  return new PostgresRedispatchSweep(pool, schema);
}

class PostgresRedispatchSweep implements RedispatchSweep {
  readonly #pool: pg.Pool;
  readonly #select: string;
  /** The last execution id the previous sweep looked at; '' to start from the oldest. */
  #after = '';
  #running: Promise<unknown> = Promise.resolve();
  #ended: Promise<void> | undefined;

  constructor(pool: pg.Pool, schema: string) {
    this.#pool = pool;
    const inbox = `SELECT 1 FROM ${schema}.execution_inboxes i WHERE i.execution = e.id`;
    // $1 after this id, $2 the live states, $3 the created state, $4 the batch. The primary key serves
    // the cursor and the order; turns and commands have partial indexes of the undone and the untaken.
    this.#select = `SELECT e.id AS "id" FROM ${schema}.executions e
      WHERE e.id > $1
        AND NOT EXISTS (SELECT 1 FROM ${schema}.execution_leases l WHERE l.execution = e.id AND l.expires_at > now())
        AND (
          (e.state = ANY ($2::text[]) AND (e.state <> $3 OR EXISTS (${inbox})))
          OR (NOT EXISTS (${inbox} AND i.closed) AND (
            EXISTS (SELECT 1 FROM ${schema}.execution_turns t WHERE t.execution = e.id AND t.state <> 'done')
            OR EXISTS (SELECT 1 FROM ${schema}.execution_commands c WHERE c.execution = e.id AND c.taken_at IS NULL)
          ))
        )
      ORDER BY e.id
      LIMIT $4`;
  }

  sweep(queue: DispatchQueue): Promise<string[]> {
    const run = this.#running.then(() => this.#sweep(queue));
    this.#running = run.catch(() => {});
    return run;
  }

  async #sweep(queue: DispatchQueue): Promise<string[]> {
    if (this.#ended !== undefined) throw new Error('the redispatch sweep is closed');
    const { rows } = await this.#pool.query(this.#select, [this.#after, LIVE_STATES, CREATED_STATE, REDISPATCH_BATCH]);
    const ids = rows.map((row) => Candidate.parse(row).id);
    // A row whose id is no execution id cannot be dispatched (dispatchExecution refuses it); it is
    // passed over rather than stop every sweep at it.
    const looked = await Promise.all(
      ids.filter(isExecutionId).map(async (id) => ((await hasPendingJob(queue, id)) ? undefined : id)),
    );
    const orphans = looked.filter((id) => id !== undefined);
    await Promise.all(orphans.map((id) => dispatchExecution(queue, id)));
    this.#after = ids.length < REDISPATCH_BATCH ? '' : (ids.at(-1) ?? '');
    return orphans;
  }

  async close(): Promise<void> {
    this.#ended ??= this.#running.then(() => this.#pool.end());
    await this.#ended;
  }
}

/** True when the job that deduplicates `execution`'s dispatches exists and is yet to run. */
async function hasPendingJob(queue: DispatchQueue, execution: string): Promise<boolean> {
  const job = await queue.getDeduplicationJobId(execution);
  return job !== null && PENDING_JOB_STATES.has(await queue.getJobState(job));
}

export interface RedispatchingOptions {
  readonly sweep: RedispatchSweep;
  readonly queue: DispatchQueue;
  /** The time from the end of one sweep to the start of the next; the first starts at once. Default REDISPATCH_EVERY_MS. */
  readonly everyMs?: number;
  /** A sweep that failed; the next one is made on time all the same. */
  readonly onError: (error: Error) => void;
  /** The executions a sweep dispatched, when it dispatched any. */
  readonly onDispatched?: (executions: readonly string[]) => void;
}

/** Sweeps being made. */
export interface Redispatching {
  /** Makes no more sweeps, waiting for the one under way. Idempotent. Does not close the sweep. */
  stop(): Promise<void>;
}

/**
 * Sweeps at once, then `everyMs` after the end of each sweep, one at a time, until `stop()`. The
 * caller owns the sweep and the queue and closes them after stopping. Its timer does not keep the
 * process alive.
 */
export function startRedispatching(options: RedispatchingOptions): Redispatching {
  const { sweep, queue, everyMs = REDISPATCH_EVERY_MS, onError, onDispatched } = options;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const tick = () => {
    timer = undefined;
    running = (async () => {
      try {
        const dispatched = await sweep.sweep(queue);
        if (dispatched.length > 0) onDispatched?.(dispatched);
      } catch (error) {
        onError(error instanceof Error ? error : new Error(String(error)));
      }
    })().finally(() => {
      running = undefined;
      if (stopped) return;
      timer = setTimeout(tick, everyMs);
      timer.unref();
    });
  };
  tick();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
