/**
 * The connection pool of a PostgreSQL adapter, and its transactions. The pool is bounded, getting a
 * connection and waiting for another session's lock both time out, and rows come back in the shapes
 * the shared row mappings read (../rows.ts, ../resume-rows.ts, ../effect-rows.ts): times as ISO 8601
 * text, jsonb as its text, bigint as a number. The type parsers belong to this pool only; pg's global
 * parsers are left alone.
 */
import pg from 'pg';

/**
 * 5: the most connections one open store holds (the Store, the ResumeStore and the EffectLedger each
 * have a pool; the ledger holds one connection more, for its holder lock). Calls are single statements
 * or short transactions, so a few connections carry a process's executions; five per pool lets about
 * twenty Store-only processes, or six with all three open, share PostgreSQL's default of 100
 * connections.
 */
export const POOL_SIZE = 5;

/**
 * 5000 ms: how long a call waits for a connection (a new one to connect, or one of the pool to come
 * free) before it fails, so an unreachable server is an error, not a hang.
 */
export const CONNECT_TIMEOUT_MS = 5000;

/**
 * 5000 ms: how long a statement waits for a lock another session holds (a row being patched, the
 * migration lock) before failing; as SQLite's busy timeout, it covers writes that hold locks for
 * milliseconds and fails instead of hanging behind a session that holds one for good.
 */
export const LOCK_TIMEOUT_MS = 5000;

const { builtins } = pg.types;
const parseTimestamptz = pg.types.getTypeParser(builtins.TIMESTAMPTZ);

/** The pool's type parsers: timestamptz as `toISOString()` text, jsonb as its text, bigint as a number. */
function rowTypes(): pg.TypeOverrides {
  const types = new pg.TypeOverrides();
  types.setTypeParser(builtins.TIMESTAMPTZ, (value: string) => {
    const parsed: unknown = parseTimestamptz(value);
    return parsed instanceof Date ? parsed.toISOString() : value;
  });
  types.setTypeParser(builtins.JSONB, (value: string) => value);
  // Exact: every bigint here was written from a JS number.
  types.setTypeParser(builtins.INT8, Number);
  return types;
}

/** Server settings a session starts with (`name = value`, as `SET` would make them). */
export type SessionSettings = Readonly<Record<string, string | number>>;

/**
 * The startup `options` that give a session `settings`: `-c name=value …` (the values are HarmFlow's
 * own, with no spaces to escape).
 */
export function startupOptions(settings: SessionSettings): string | undefined {
  const options = Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`);
  return options.length === 0 ? undefined : options.join(' ');
}

/**
 * A pool on the database at `url`, each of its sessions started with `settings`; nothing connects
 * until the first call. The caller ends it.
 */
export function openPool(url: string, settings: SessionSettings = {}): pg.Pool {
  const options = startupOptions(settings);
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    lock_timeout: LOCK_TIMEOUT_MS,
    application_name: 'harmflow',
    types: rowTypes(),
    ...(options !== undefined && { options }),
  });
  // An idle connection that breaks (the server restarted) is dropped by the pool, and the next call
  // connects anew; without a listener its error would end the process.
  pool.on('error', () => {});
  return pool;
}

/** The rows `statement` returns, run with `values` on a connection of `pool`, in a transaction of its own. */
export async function queryRows(pool: pg.Pool, statement: string, values: readonly unknown[] = []): Promise<unknown[]> {
  return (await pool.query(statement, [...values])).rows;
}

/**
 * Runs `work` in one transaction on one connection of `pool`: committed when it resolves, rolled back
 * when it throws (and the error rethrown). A connection lost meanwhile (the server ended the session)
 * fails the query under way, and one that broke or whose rollback failed is discarded.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // The pool listens for the errors of idle connections only: a connection lost while checked out
  // emits one here (its query rejects too), which without a listener would end the process.
  const lost = (error: Error) => {
    broken = error;
  };
  client.on('error', lost);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.off('error', lost);
    client.release(broken);
  }
}
