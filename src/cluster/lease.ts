/**
 * Execution leases: which worker drives an execution in cluster mode, until when, and under which
 * fencing token. BullMQ gives a job to one worker at a time only while that worker's lock holds; a
 * worker that stalled (its process stopped, its network cut) loses the job to another while it may
 * still be running the execution. The lease is what keeps it from driving on: a worker drives an
 * execution only while it holds its lease, renews it while it drives, and stops when a renewal fails.
 *
 * Contract, per execution, whatever workers call at once from any machines:
 * - at most one lease is unexpired at a time; `acquireLease` succeeds only when none is (the
 *   execution never leased, its lease expired or released), whichever worker asks, the last holder
 *   too: a worker whose own handler is still running must not start it twice;
 * - each acquire that succeeds returns a token greater than every token given before for that
 *   execution (a release keeps the row, so tokens never restart). Renewals keep the token;
 * - `renewLease` and `releaseLease` succeed only for the current token: once another worker acquired
 *   the lease, the old holder's renewals fail, even if it never noticed expiring.
 * Expiry is judged by the server's clock alone (`now()`), so workers' clocks may disagree. Each call
 * is one statement, committed durably (a server crash cannot take back a token handed out, which would
 * let two holders share one). Writes that drive the execution should carry the token, so that a store
 * can refuse those of a holder that has been fenced out.
 */
import type pg from 'pg';
import { z } from 'zod';
import { openDurableSchemaPool, type PostgresStoreOptions } from '../store/postgres/schema-pool.js';

/** The unexpired lease of an execution. */
export interface LeaseHolder {
  readonly worker: string;
  readonly token: number;
  /** How long until it expires unless renewed, by the server's clock at the time of the read. */
  readonly expiresInMs: number;
}

/**
 * ExecutionLeases hands out and checks the leases of executions. Its calls may run at once; the
 * opener owns it and closes it, after the workers using it have closed.
 */
export interface ExecutionLeases {
  /**
   * Takes the lease of `execution` for `worker` for `ttlMs`: resolves to its new fencing token, or to
   * undefined while another lease (any worker's, this one's too) is unexpired.
   */
  acquireLease(execution: string, worker: string, ttlMs: number): Promise<number | undefined>;
  /**
   * Extends the lease `worker` holds under `token` to `ttlMs` from now: true, or false once another
   * acquire has replaced it (nothing is changed then).
   */
  renewLease(execution: string, worker: string, token: number, ttlMs: number): Promise<boolean>;
  /**
   * Ends the lease `worker` holds under `token` now, so another worker may acquire it at once: true,
   * or false when that lease had been replaced already.
   */
  releaseLease(execution: string, worker: string, token: number): Promise<boolean>;
  /** The unexpired lease of `execution`, or undefined when it has none. */
  leaseHolder(execution: string): Promise<LeaseHolder | undefined>;
  /** The unexpired leases of `executions`, in one read: those that have none are left out. */
  leaseHolders(executions: readonly string[]): Promise<ReadonlyMap<string, LeaseHolder>>;
  /** Ends its pool, waiting for the calls under way. Idempotent; calls after it reject. */
  close(): Promise<void>;
}

const Token = z.object({ token: z.int().positive() });
const Holder = z.object({ worker: z.string(), token: z.int().positive(), expiresInMs: z.number() });
const HolderOf = Holder.extend({ execution: z.string() });
const TtlMs = z.int().positive();
const WorkerId = z.string().min(1);

/**
 * openExecutionLeases connects to the PostgreSQL database at `url` and applies the missing migrations
 * to its schema (the Store's; the leases are its table `execution_leases`). Rejects when the server
 * does not answer within the connect timeout, the schema name is not a plain lowercase identifier,
 * or commits would not be durable.
 */
export async function openExecutionLeases(url: string, options: PostgresStoreOptions = {}): Promise<ExecutionLeases> {
  // Durable: a token is returned only once its commit is on disk, so a server crash cannot forget it
  // and hand the same token to a second holder.
  const { pool, schema } = await openDurableSchemaPool(url, options, 'execution leases');
  return new PostgresExecutionLeases(pool, schema);
}

class PostgresExecutionLeases implements ExecutionLeases {
  readonly #pool: pg.Pool;
  #closed: Promise<void> | undefined;
  readonly #acquire: string;
  readonly #renew: string;
  readonly #release: string;
  readonly #holder: string;
  readonly #holders: string;

  constructor(pool: pg.Pool, schema: string) {
    this.#pool = pool;
    const table = `${schema}.execution_leases`;
    const expiry = `now() + $3::double precision * interval '1 millisecond'`;
    // Of acquires racing for one row, the first to lock it updates it; the others then find its new
    // version unexpired (ON CONFLICT DO UPDATE judges its WHERE on the row's latest version).
    this.#acquire = `INSERT INTO ${table} AS lease (execution, worker, token, expires_at)
      VALUES ($1, $2, 1, ${expiry})
      ON CONFLICT (execution) DO UPDATE
        SET worker = excluded.worker, token = lease.token + 1, expires_at = excluded.expires_at
        WHERE lease.expires_at <= now()
      RETURNING token`;
    this.#renew = `UPDATE ${table} SET expires_at = now() + $4::double precision * interval '1 millisecond'
      WHERE execution = $1 AND worker = $2 AND token = $3`;
    this.#release = `UPDATE ${table} SET expires_at = now() WHERE execution = $1 AND worker = $2 AND token = $3`;
    const holderColumns = `worker, token,
        (extract(epoch FROM expires_at - now()) * 1000)::double precision AS "expiresInMs"`;
    this.#holder = `SELECT ${holderColumns} FROM ${table} WHERE execution = $1 AND expires_at > now()`;
    this.#holders = `SELECT execution, ${holderColumns}
      FROM ${table} WHERE execution = ANY($1::text[]) AND expires_at > now()`;
  }

  async acquireLease(execution: string, worker: string, ttlMs: number): Promise<number | undefined> {
    const { rows } = await this.#pool.query(this.#acquire, [execution, WorkerId.parse(worker), TtlMs.parse(ttlMs)]);
    return rows[0] === undefined ? undefined : Token.parse(rows[0]).token;
  }

  async renewLease(execution: string, worker: string, token: number, ttlMs: number): Promise<boolean> {
    const { rowCount } = await this.#pool.query(this.#renew, [execution, worker, token, TtlMs.parse(ttlMs)]);
    return rowCount === 1;
  }

  async releaseLease(execution: string, worker: string, token: number): Promise<boolean> {
    const { rowCount } = await this.#pool.query(this.#release, [execution, worker, token]);
    return rowCount === 1;
  }

  async leaseHolder(execution: string): Promise<LeaseHolder | undefined> {
    const { rows } = await this.#pool.query(this.#holder, [execution]);
    return rows[0] === undefined ? undefined : Holder.parse(rows[0]);
  }

  async leaseHolders(executions: readonly string[]): Promise<ReadonlyMap<string, LeaseHolder>> {
    const { rows } = await this.#pool.query(this.#holders, [executions]);
    return new Map(
      rows.map((row) => {
        const { execution, ...holder } = HolderOf.parse(row);
        return [execution, holder];
      }),
    );
  }

  async close(): Promise<void> {
    this.#closed ??= this.#pool.end();
    await this.#closed;
  }
}
