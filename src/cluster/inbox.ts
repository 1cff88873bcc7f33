/**
 * Execution inboxes (cluster mode, issue 9): the follow-up messages and commands sent to an
 * execution, kept in PostgreSQL (migration 6, store/postgres/migrations.ts) so that they reach the
 * worker holding its lease (lease.ts) on whatever machine, and the next holder if that one dies. The
 * store is the source of truth; BullMQ only dispatches (dispatch.ts).
 *
 * What it guarantees, whatever nodes call at once:
 * - an execution's turns are numbered `t1`, `t2`, … with no gap: taking a number locks the inbox row
 *   until the turn's insert commits, so turns also commit in number order;
 * - a turn is acknowledged (`enqueueTurn` resolves) only once committed, with
 *   `synchronous_commit = on`, so a crash of the server keeps it;
 * - closing is atomic with enqueueing: the close locks the same row and looks for undone turns after
 *   it has the lock, so a message is either refused (ConflictError) or seen by the close, which then
 *   refuses to close; no message is acknowledged and then never run;
 * - every write a worker makes (a turn `running` or `done`, a close, commands taken) carries its
 *   lease token and is refused (LeaseLostError) unless that token is the execution's current one; the
 *   lease row is read `FOR SHARE` in the write's statement, so an acquire that would raise the token
 *   waits for the write to commit, and a write after the raise finds it raised;
 * - each commit that adds a turn or a command notifies the schema's inbox channel with the execution
 *   id; a notification only wakes a source (inbox-source.ts), which then reads the table.
 *
 * Commands are handed out once: `takeCommands` marks them taken under the caller's token, and of
 * callers taking at once each command goes to one. A holder that dies after taking one and before
 * acting on it loses it.
 *
 * Idempotency keys (docs/api.md, "Idempotency"): a turn enqueued with a key records it (per
 * execution, with its request's hash and its answer) in the transaction that adds the turn, so the
 * turn is acknowledged if and only if its key is recorded. The same key again adds nothing and
 * answers the first answer, whatever happened since; of enqueues racing with one key, the first to
 * commit adds the turn, and the others answer it.
 */
import type pg from 'pg';
import { z } from 'zod';
import { ConflictError, EXIT, HarmflowError } from '../core/errors.js';
import { MirrorListener } from '../events/mirror/listener.js';
import type { Wakeup } from '../events/wakeup.js';
import { checkSameRequest, type IdempotentRequest } from '../service/execution-service.js';
import { inTransaction } from '../store/postgres/pool.js';
import { openDurableSchemaPool, type PostgresStoreOptions } from '../store/postgres/schema-pool.js';
import { InboxCommand, TakenCommand } from './inbox-commands.js';
import {
  ClusterTurnSource,
  type InboxRows,
  type LoadedInbox,
  type StoredTurn,
  type TurnSourceOptions,
} from './inbox-source.js';
import { LeaseLostError } from './kept-lease.js';

/** A message queued: its turn id and how many turns wait to run, itself included. */
export interface EnqueuedTurn {
  readonly turn: string;
  readonly queued: number;
}

/**
 * ExecutionInbox is one process's handle on the inboxes of a schema: API nodes enqueue turns and
 * request commands; the worker holding an execution opens its turn source and takes its commands.
 * Its calls may run at once. It holds a bounded pool and, once a source is opened, one LISTEN
 * session. The opener owns it and closes it.
 */
export interface ExecutionInbox {
  /**
   * Queues `text` as the next turn of `execution` (the first makes its inbox: `t1` is the task's
   * prompt) and notifies its holder. Durable on return, with `request`'s key when given. Rejects
   * with ConflictError once the execution's queue has closed. A key recorded before for `execution`
   * queues nothing: the first answer comes back (even once the queue closed), or
   * IdempotencyKeyReusedError when the key came with another request.
   */
  enqueueTurn(execution: string, text: string, request?: IdempotentRequest): Promise<EnqueuedTurn>;
  /** The first answer to the turn enqueued with `request.key` for `execution`, or undefined; as `enqueueTurn`. */
  answered(execution: string, request: IdempotentRequest): Promise<EnqueuedTurn | undefined>;
  /**
   * Makes the inbox of a new execution with `text` as `t1`, and notifies, unless the execution has
   * an inbox already (a submit sent again made it): `made`, `existed`; or `refused`, changing
   * nothing, when it has none and its record in the store is no longer `queued` (the submit that
   * made it failed it: ClusterExecutions.submit). A message that came before the first turn would
   * have made the inbox; none can, as no client knows the execution's id before its submit answers.
   */
  enqueueFirstTurn(execution: string, text: string): Promise<'made' | 'existed' | 'refused'>;
  /**
   * Records `command` for the holder of `execution` and notifies it; resolves to the command's id.
   * Rejects with ConflictError once the execution's queue has closed.
   */
  requestCommand(execution: string, command: InboxCommand): Promise<number>;
  /**
   * Takes the commands of `execution` nobody has taken, in the order requested, for the holder of its
   * lease under `token`. Rejects with LeaseLostError when `token` is not the current one.
   */
  takeCommands(execution: string, token: number): Promise<TakenCommand[]>;
  /** Opens the turn source of `execution` for the holder of its lease under `token` (inbox-source.ts). */
  openTurnSource(execution: string, token: number, options?: TurnSourceOptions): Promise<ClusterTurnSource>;
  /** Stops its sources, then ends its LISTEN session and its pool. Idempotent. */
  close(): Promise<void>;
}

/** 63: PostgreSQL's longest identifier; `pg_notify` refuses a longer channel. */
const MAX_CHANNEL_LENGTH = 63;

/**
 * The channel that announces new turns and commands in the inboxes of `schema`, its payload the
 * execution id. Cut as the mirror's (events/mirror/table.ts): a cut name shared by two schemas only
 * wakes their sources for nothing.
 */
function inboxChannel(schema: string): string {
  return `harmflow_inbox_${schema}`.slice(0, MAX_CHANNEL_LENGTH);
}

const Enqueued = z.object({ number: z.number().int().positive() });
const Queued = z.object({ queued: z.number().int().positive() });
const CommandId = z.object({ id: z.number().int().positive() });
const StoredTurnRow = z.object({
  number: z.number().int().positive(),
  text: z.string(),
  state: z.enum(['queued', 'running', 'done']),
});
const Loaded = z.object({
  held: z.boolean(),
  last: z.number().int().nonnegative(),
  closed: z.boolean(),
  turns: z.array(StoredTurnRow),
});
const Fenced = z.object({ held: z.boolean(), changed: z.boolean() });
const KeptKey = z.object({
  number: z.number().int().positive(),
  queued: z.number().int().positive(),
  requestHash: z.string(),
});
const Taken = z.object({ held: z.boolean(), commands: z.array(z.unknown()) });

/** Thrown inside `enqueueTurn`'s transaction to roll it back: another enqueue recorded the key. */
class KeyTakenMeanwhile extends Error {}

/**
 * openExecutionInbox connects to the PostgreSQL database at `url` and applies the missing migrations
 * to its schema. Rejects when the server does not answer within the connect timeout, the schema name
 * is not a plain lowercase identifier, or commits would not be durable.
 */
export async function openExecutionInbox(url: string, options: PostgresStoreOptions = {}): Promise<ExecutionInbox> {
  // Durable: a turn is acknowledged, and a `done` confirmed, only once its commit is on disk.
  const { pool, schema } = await openDurableSchemaPool(url, options, 'execution inboxes');
  return new PostgresExecutionInbox(url, pool, schema);
}

function closedError(execution: string): ConflictError {
  return new ConflictError(`execution ${execution} has ended: it takes no more messages`);
}

function fencedError(execution: string, token: number): LeaseLostError {
  return new LeaseLostError(
    execution,
    `the lease of execution ${execution} is no longer held under token ${token}: another worker has taken it`,
  );
}

class PostgresExecutionInbox implements ExecutionInbox, InboxRows {
  readonly #url: string;
  readonly #pool: pg.Pool;
  readonly #channel: string;
  readonly #sources = new Set<ClusterTurnSource>();
  #listener: Promise<MirrorListener> | undefined;
  #closed: Promise<void> | undefined;
  readonly #sql: ReturnType<typeof statements>;

  constructor(url: string, pool: pg.Pool, schema: string) {
    this.#url = url;
    this.#pool = pool;
    this.#channel = inboxChannel(schema);
    this.#sql = statements(schema);
  }

  async enqueueTurn(execution: string, text: string, request?: IdempotentRequest): Promise<EnqueuedTurn> {
    try {
      return await inTransaction(this.#pool, async (client) => {
        const first = request === undefined ? undefined : await this.#answered(client, execution, request);
        if (first !== undefined) return first;
        const taken = await client.query(this.#sql.takeNumber, [execution]);
        if (taken.rows[0] === undefined) throw closedError(execution);
        const { number } = Enqueued.parse(taken.rows[0]);
        // A statement of its own, after the row lock: its snapshot sees every turn committed before.
        const queued = await client.query(this.#sql.insertTurn, [execution, number, text, this.#channel]);
        const answer = { turn: `t${number}`, queued: Queued.parse(queued.rows[0]).queued };
        if (request === undefined) return answer;
        const kept = await client.query(this.#sql.insertKey, [
          execution,
          request.key,
          request.requestHash,
          number,
          answer.queued,
        ]);
        // Taken by an enqueue that committed after this one looked: roll this turn back, answer that one.
        if (kept.rowCount === 0) throw new KeyTakenMeanwhile();
        return answer;
      });
    } catch (error) {
      if (!(error instanceof KeyTakenMeanwhile) || request === undefined) throw error;
      const first = await this.answered(execution, request);
      if (first === undefined) {
        throw new HarmflowError(
          `Idempotency-Key ${JSON.stringify(request.key)} of execution ${execution} was taken, then not found`,
          EXIT.internal,
        );
      }
      return first;
    }
  }

  async answered(execution: string, request: IdempotentRequest): Promise<EnqueuedTurn | undefined> {
    return this.#answered(this.#pool, execution, request);
  }

  async enqueueFirstTurn(execution: string, text: string): Promise<'made' | 'existed' | 'refused'> {
    return inTransaction(this.#pool, async (client) => {
      const made = await client.query(this.#sql.makeInbox, [execution]);
      if (made.rowCount === 0) {
        // A statement of its own: it sees an inbox whose insert this one waited for.
        const found = await client.query(this.#sql.inboxExists, [execution]);
        return found.rowCount === 0 ? 'refused' : 'existed';
      }
      await client.query(this.#sql.insertTurn, [execution, 1, text, this.#channel]);
      return 'made';
    });
  }

  async requestCommand(execution: string, command: InboxCommand): Promise<number> {
    const checked = InboxCommand.parse(command);
    const { rows } = await this.#pool.query(this.#sql.insertCommand, [
      execution,
      JSON.stringify(checked),
      this.#channel,
    ]);
    if (rows[0] === undefined) throw closedError(execution);
    return CommandId.parse(rows[0]).id;
  }

  async takeCommands(execution: string, token: number): Promise<TakenCommand[]> {
    const { rows } = await this.#pool.query(this.#sql.takeCommands, [execution, token]);
    const taken = Taken.parse(rows[0]);
    if (!taken.held) throw fencedError(execution, token);
    return taken.commands.map((command) => TakenCommand.parse(command)).sort((a, b) => a.id - b.id);
  }

  async openTurnSource(execution: string, token: number, options: TurnSourceOptions = {}): Promise<ClusterTurnSource> {
    if (this.#closed !== undefined) throw new Error('the execution inbox is closed');
    const source = await ClusterTurnSource.open(this, execution, token, options);
    this.#sources.add(source);
    return source;
  }

  async close(): Promise<void> {
    this.#closed ??= (async () => {
      await Promise.all([...this.#sources].map((source) => source.stop()));
      const listener = await this.#listener?.catch(() => undefined);
      await listener?.close();
      await this.#pool.end();
    })();
    await this.#closed;
  }

  // InboxRows: what the sources read and write.

  async load(execution: string, token: number): Promise<LoadedInbox> {
    const { rows } = await this.#pool.query(this.#sql.load, [execution, token]);
    const loaded = Loaded.parse(rows[0]);
    if (!loaded.held) throw fencedError(execution, token);
    return loaded;
  }

  async turnsAfter(execution: string, number: number): Promise<StoredTurn[]> {
    const { rows } = await this.#pool.query(this.#sql.turnsAfter, [execution, number]);
    return rows.map((row) => StoredTurnRow.parse(row));
  }

  async markRunning(execution: string, token: number, number: number): Promise<void> {
    await this.#fencedChange(this.#sql.markRunning, execution, token, number, 'queued');
  }

  async markDone(execution: string, token: number, number: number): Promise<void> {
    await this.#fencedChange(this.#sql.markDone, execution, token, number, 'running');
  }

  async closeIfDone(execution: string, token: number): Promise<boolean> {
    return this.#close(execution, token, false);
  }

  async end(execution: string, token: number): Promise<void> {
    await this.#close(execution, token, true);
  }

  async subscribe(execution: string, wakeup: Wakeup): Promise<() => void> {
    this.#listener ??= MirrorListener.open(this.#url, this.#channel);
    try {
      return (await this.#listener).subscribe(execution, wakeup);
    } catch (error) {
      this.#listener = undefined;
      throw error;
    }
  }

  /** The first answer to `request.key` for `execution`, read through `client`; as `answered`. */
  async #answered(
    client: pg.Pool | pg.PoolClient,
    execution: string,
    request: IdempotentRequest,
  ): Promise<EnqueuedTurn | undefined> {
    const { rows } = await client.query(this.#sql.findKey, [execution, request.key]);
    if (rows[0] === undefined) return undefined;
    const first = KeptKey.parse(rows[0]);
    checkSameRequest(request, first);
    return { turn: `t${first.number}`, queued: first.queued };
  }

  /** Runs a fenced change of turn `number`, which must be in state `from`. */
  async #fencedChange(statement: string, execution: string, token: number, number: number, from: string) {
    const { rows } = await this.#pool.query(statement, [execution, token, number]);
    const result = Fenced.parse(rows[0]);
    if (!result.held) throw fencedError(execution, token);
    if (!result.changed) {
      throw new HarmflowError(`turn t${number} of execution ${execution} is not ${from} in its inbox`, EXIT.internal);
    }
  }

  /**
   * Closes the inbox of `execution`: always when `force`, else only when every turn is done. One
   * transaction: the lease row is read FOR SHARE and the inbox row locked FOR UPDATE (an enqueue
   * under way holds it until it commits) before the undone turns are counted, in a statement of its
   * own whose snapshot sees every turn committed before the lock was granted.
   */
  async #close(execution: string, token: number, force: boolean): Promise<boolean> {
    return inTransaction(this.#pool, async (client) => {
      const fenced = await client.query(this.#sql.fenceClose, [execution, token]);
      if (fenced.rows[0] === undefined) throw fencedError(execution, token);
      await client.query(this.#sql.lockInbox, [execution]);
      if (!force) {
        const undone = await client.query(this.#sql.undone, [execution]);
        if (undone.rows[0] !== undefined) return false;
      }
      await client.query(this.#sql.markClosed, [execution]);
      return true;
    });
  }
}

/** The inboxes' statements in `schema` (a checked identifier). */
function statements(schema: string) {
  const inboxes = `${schema}.execution_inboxes`;
  const turns = `${schema}.execution_turns`;
  const commands = `${schema}.execution_commands`;
  const leases = `${schema}.execution_leases`;
  const keys = `${schema}.execution_turn_keys`;
  /** $1 execution, $2 token: one row, locked FOR SHARE, while that token is the execution's current one. */
  const lease = `lease AS (SELECT 1 FROM ${leases} WHERE execution = $1 AND token = $2 FOR SHARE)`;
  const held = 'EXISTS (SELECT 1 FROM lease)';
  const fencedTurn = (set: string, from: string) => `WITH ${lease},
    changed AS (
      UPDATE ${turns} SET ${set} WHERE execution = $1 AND number = $3 AND state = '${from}' AND ${held} RETURNING 1
    )
    SELECT ${held} AS "held", EXISTS (SELECT 1 FROM changed) AS "changed"`;
  return {
    // The first turn makes the inbox; later ones take the next number under the row's lock, unless
    // the inbox is closed (then no row comes back). An ON CONFLICT DO UPDATE judges its WHERE on the
    // row's latest version, so one waiting for a close finds it closed.
    takeNumber: `INSERT INTO ${inboxes} AS inbox (execution, next_number, closed) VALUES ($1, 2, false)
      ON CONFLICT (execution) DO UPDATE SET next_number = inbox.next_number + 1 WHERE NOT inbox.closed
      RETURNING next_number - 1 AS "number"`,
    insertTurn: `WITH turn AS (
        INSERT INTO ${turns} (execution, number, text, state, queued_at) VALUES ($1, $2, $3, 'queued', now())
      )
      SELECT (SELECT count(*)::int FROM ${turns} WHERE execution = $1 AND state = 'queued') + 1 AS "queued",
        pg_notify($4, $1)`,
    findKey: `SELECT number AS "number", queued AS "queued", request_hash AS "requestHash" FROM ${keys}
      WHERE execution = $1 AND key = $2`,
    // DO NOTHING: a key an enqueue racing with this one recorded (it waits for that one's commit).
    insertKey: `INSERT INTO ${keys} (execution, key, request_hash, number, queued, created_at)
      VALUES ($1, $2, $3, $4, $5, now()) ON CONFLICT (execution, key) DO NOTHING RETURNING 1`,
    // The inbox of a new execution, while its record is still `queued` (the store's table, same schema).
    makeInbox: `INSERT INTO ${inboxes} (execution, next_number, closed)
      SELECT $1, 2, false WHERE EXISTS (SELECT 1 FROM ${schema}.executions WHERE id = $1 AND state = 'queued')
      ON CONFLICT (execution) DO NOTHING RETURNING 1`,
    inboxExists: `SELECT 1 FROM ${inboxes} WHERE execution = $1`,
    insertCommand: `WITH inserted AS (
        INSERT INTO ${commands} (execution, command, requested_at)
        SELECT $1, $2::jsonb, now()
        WHERE NOT EXISTS (SELECT 1 FROM ${inboxes} WHERE execution = $1 AND closed)
        RETURNING id
      )
      SELECT id AS "id", pg_notify($3, $1) FROM inserted`,
    takeCommands: `WITH ${lease},
      taken AS (
        UPDATE ${commands} SET taken_at = now(), taken_token = $2
        WHERE execution = $1 AND taken_at IS NULL AND ${held}
        RETURNING id, command, requested_at
      )
      SELECT ${held} AS "held", coalesce(
        (SELECT json_agg(json_build_object('id', id, 'command', command,
          'requestedAt', to_char(requested_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY id) FROM taken),
        '[]'::json) AS "commands"`,
    // One statement, one snapshot: the undone turns, the last number and the close agree.
    load: `SELECT EXISTS (SELECT 1 FROM ${leases} WHERE execution = $1 AND token = $2) AS "held",
        coalesce((SELECT next_number - 1 FROM ${inboxes} WHERE execution = $1), 0) AS "last",
        coalesce((SELECT closed FROM ${inboxes} WHERE execution = $1), false) AS "closed",
        coalesce((SELECT json_agg(json_build_object('number', number, 'text', text, 'state', state) ORDER BY number)
          FROM ${turns} WHERE execution = $1 AND state <> 'done'), '[]'::json) AS "turns"`,
    turnsAfter: `SELECT number AS "number", text AS "text", state AS "state" FROM ${turns}
      WHERE execution = $1 AND number > $2 ORDER BY number`,
    markRunning: fencedTurn(`state = 'running', started_at = now()`, 'queued'),
    markDone: fencedTurn(`state = 'done', done_at = now()`, 'running'),
    // The lease checked (and kept FOR SHARE to the commit), and an inbox nobody enqueued to yet made,
    // so that the close has a row to mark.
    fenceClose: `WITH ${lease},
      made AS (
        INSERT INTO ${inboxes} (execution, next_number, closed) SELECT $1, 1, false WHERE ${held}
        ON CONFLICT (execution) DO NOTHING
      )
      SELECT 1 FROM lease`,
    lockInbox: `SELECT 1 FROM ${inboxes} WHERE execution = $1 FOR UPDATE`,
    undone: `SELECT 1 FROM ${turns} WHERE execution = $1 AND state <> 'done' LIMIT 1`,
    markClosed: `UPDATE ${inboxes} SET closed = true WHERE execution = $1`,
  };
}
