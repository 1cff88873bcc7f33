/**
 * The cluster's admission hold: an operator holds every worker of a cluster from taking new
 * executions (`harmflow admission hold REASON` against any API node) and releases it again. It is one
 * row in PostgreSQL (migration 8, `cluster_hold`), so every API node reports it and every worker sees
 * it at its next admission check (harmflow worker: every 5 s), pausing as it does below its disk floor;
 * executions already running go on. The opener owns the handle and closes it.
 */
import type pg from 'pg';
import { z } from 'zod';
import { HoldReason } from '../core/hold-reason.js';
import { openDurableSchemaPool, type PostgresStoreOptions } from '../store/postgres/schema-pool.js';

/** A hold in place: why, and since when (ISO time). */
export interface HeldCluster {
  readonly reason: string;
  readonly since: string;
}

export interface ClusterHold {
  /** Holds the cluster for `reason` (a later hold replaces the reason). Durable on return. */
  hold(reason: string): Promise<void>;
  /** Releases it; nothing happens when it is not held. */
  release(): Promise<void>;
  /** The hold in place, or undefined. */
  read(): Promise<HeldCluster | undefined>;
  /** Ends its pool. Idempotent. */
  close(): Promise<void>;
}

const Row = z.object({ reason: z.string(), since: z.string() });

/**
 * Connects to the database at `url` and applies the missing migrations to its schema. Rejects as the
 * other PostgreSQL parts do (an unreachable server, a bad schema name, commits that are not durable).
 */
export async function openClusterHold(url: string, options: PostgresStoreOptions = {}): Promise<ClusterHold> {
  const { pool, schema } = await openDurableSchemaPool(url, options, 'cluster holds');
  return new PostgresClusterHold(pool, `${schema}.cluster_hold`);
}

class PostgresClusterHold implements ClusterHold {
  readonly #pool: pg.Pool;
  readonly #table: string;
  #closed: Promise<void> | undefined;

  constructor(pool: pg.Pool, table: string) {
    this.#pool = pool;
    this.#table = table;
  }

  async hold(reason: string): Promise<void> {
    await this.#pool.query(
      `INSERT INTO ${this.#table} (scope, reason, held_at) VALUES ('cluster', $1, now())
        ON CONFLICT (scope) DO UPDATE SET reason = excluded.reason, held_at = excluded.held_at`,
      [HoldReason.parse(reason)],
    );
  }

  async release(): Promise<void> {
    await this.#pool.query(`DELETE FROM ${this.#table} WHERE scope = 'cluster'`);
  }

  async read(): Promise<HeldCluster | undefined> {
    const { rows } = await this.#pool.query(`SELECT reason, held_at AS "since" FROM ${this.#table}`);
    return rows[0] === undefined ? undefined : Row.parse(rows[0]);
  }

  async close(): Promise<void> {
    this.#closed ??= this.#pool.end();
    await this.#closed;
  }
}
