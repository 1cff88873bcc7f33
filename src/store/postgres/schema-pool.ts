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
