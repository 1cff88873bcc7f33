/**
 * Opening a PostgreSQL adapter (the Store, the ResumeStore, the EffectLedger): the schema name is
 * checked, a pool is opened on the database and the schema is brought to the current version
 * (migrations.ts: every adapter applies every migration, so any of them may open a new schema first,
 * and several processes may open it at once).
 */
import type pg from 'pg';
import { z } from 'zod';
import { EXIT, HarmflowError } from '../../core/errors.js';
import { migrate } from './migrations.js';
import { openPool, type SessionSettings } from './pool.js';

/** A schema name that needs no quoting: lowercase letters, digits and `_`, at most 63 (PostgreSQL's limit). */
const SchemaName = z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/);

export interface PostgresStoreOptions {
  /** The PostgreSQL schema that holds the tables, created if missing. Default: `public`. */
  readonly schema?: string;
}

/** An open pool and the checked schema its adapter's statements name. */
export interface SchemaPool {
  readonly pool: pg.Pool;
  readonly schema: string;
}

/**
 * Opens a pool on the database at `url` (its sessions started with `settings`) and applies the
 * missing migrations to the schema. Rejects, ending the pool, when the server does not answer within
 * the connect timeout; rejects before connecting when the schema name is not a plain lowercase
 * identifier. The caller ends the pool.
 */
export async function openSchemaPool(
  url: string,
  options: PostgresStoreOptions,
  settings: SessionSettings = {},
): Promise<SchemaPool> {
  const schema = options.schema ?? 'public';
  if (!SchemaName.safeParse(schema).success) {
    throw new HarmflowError(
      `PostgreSQL schema ${JSON.stringify(schema)} is not a lowercase identifier (a-z, 0-9, _)`,
      EXIT.usage,
    );
  }
  const pool = openPool(url, settings);
  try {
    await migrate(pool, schema);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return { pool, schema };
}

const CommitLevel = z.object({ level: z.string() });

/**
 * As openSchemaPool, its sessions committing durably whatever the server's or the role's default
 * (`synchronous_commit = on`: a COMMIT returns once its WAL is flushed to disk, and to synchronous
 * standbys when there are any), for the parts whose acknowledgements must survive a server crash —
 * the effects ledger, the execution leases, inboxes and contexts. Rejects, ending the pool, when the
 * sessions still run with `off` (a URL's own `options` replaces the setting): `parts` names them in
 * the message, `execution leases need durable commits, but …`.
 */
export async function openDurableSchemaPool(
  url: string,
  options: PostgresStoreOptions,
  parts: string,
): Promise<SchemaPool> {
  const opened = await openSchemaPool(url, options, { synchronous_commit: 'on' });
  try {
    const { rows } = await opened.pool.query(`SELECT current_setting('synchronous_commit') AS "level"`);
    if (CommitLevel.parse(rows[0]).level === 'off') {
      throw new HarmflowError(
        `${parts} need durable commits, but their PostgreSQL sessions run with synchronous_commit = off`,
        EXIT.internal,
      );
    }
  } catch (error) {
    await opened.pool.end();
    throw error;
  }
  return opened;
}
