/**
 * Holder locks in PostgreSQL: how the PostgreSQL effect ledger tells a claim whose holder still runs
 * from one whose holder ended, across processes and machines. Each open ledger holds a session-level
 * advisory lock, keyed by a hash of its holder id, on a connection of its own that it keeps for as
 * long as it is open. PostgreSQL drops a session's locks when the session ends, however it ends: the
 * holder closes it; its process dies (the kernel closes the socket and the server sees it at once);
 * its machine dies or is cut off (the server's TCP keepalive finds out, LOCK_SESSION_SETTINGS); the
 * server restarts. So "is that lock held?" answers "has that holder ended?" with no clock, no
 * heartbeat and no lease to renew, as the SQLite ledger's lock files do on one machine.
 *
 * A checker asks with `pg_try_advisory_xact_lock_shared` (holderIsLive): it fails while the holder's
 * exclusive lock is held; when it succeeds the holder has ended, and the checker's shared lock goes
 * with its transaction. Nobody but the holder takes the lock exclusively, and a holder id is new (a
 * ULID), so an ended holder never comes back.
 *
 * Limits. The key is a 64-bit hash of the id: a new holder whose key is held by a running one fails to
 * open (acquire refuses), and one whose key is that of an ended holder with claims left would make
 * them read as live until it closes (never as ended too early); either needs a collision of two
 * 64-bit hashes. Advisory locks belong to the session, so a pooler that shares sessions between
 * clients (PgBouncer's transaction or statement mode) must not stand between HarmFlow and PostgreSQL.
 */
import pg from 'pg';
import { z } from 'zod';
import { EXIT, HarmflowError } from '../../core/errors.js';
import { CONNECT_TIMEOUT_MS, type SessionSettings, startupOptions } from './pool.js';

/**
 * The lock session's settings. TCP keepalive probes after 10 s idle, 5 s apart, and 3 unanswered end
 * the session: a holder whose machine died or was cut off is found ended ≈25 s later, where Linux's
 * defaults (7,200 s idle, then 9 probes 75 s apart) take 2 h 11 min; a live holder costs one probe
 * and its answer every 10 s. `idle_session_timeout = 0`: the session is idle for the ledger's whole
 * life, and a server set to end idle sessions must not end this one (its holder would read as ended);
 * the setting came with PostgreSQL 14, so the ledger needs 14 or later.
 * Keepalive applies to TCP; over a Unix socket the holder's machine is the server's.
 */
export const LOCK_SESSION_SETTINGS: SessionSettings = {
  tcp_keepalives_idle: 10,
  tcp_keepalives_interval: 5,
  tcp_keepalives_count: 3,
  idle_session_timeout: 0,
};

/** The advisory lock key of the holder id that the SQL text expression `holder` gives. */
function holderLockKey(holder: string): string {
  return `hashtextextended('harmflow effect holder ' || ${holder}, 0)`;
}

/**
 * An SQL expression, true while the holder id that the text expression `holder` gives holds its lock.
 * When the holder has ended it takes a shared lock on the key until the transaction ends (harmless:
 * only the holder, which has ended, ever wanted it exclusively).
 */
export function holderIsLive(holder: string): string {
  return `NOT pg_try_advisory_xact_lock_shared(${holderLockKey(holder)})`;
}

const Locked = z.object({ locked: z.boolean() });

/** The lock one open ledger holds for its holder id, on a connection of its own, until `release()`. */
export class HolderLock {
  readonly #client: pg.Client;
  #released: Promise<void> | undefined;

  private constructor(client: pg.Client) {
    this.#client = client;
  }

  /**
   * Connects to the database at `url` and takes the lock of `holder` (a new id). Rejects when the
   * server does not answer within the connect timeout, or another session holds that lock.
   */
  static async acquire(url: string, holder: string): Promise<HolderLock> {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: 'harmflow',
      options: startupOptions(LOCK_SESSION_SETTINGS),
    });
    // A lost session is found by the ledger's checks (holderIsLive on its own id), not by this
    // client; without a listener its error would end the process.
    client.on('error', () => {});
    try {
      await client.connect();
      const { rows } = await client.query(`SELECT pg_try_advisory_lock(${holderLockKey('$1::text')}) AS "locked"`, [
        holder,
      ]);
      if (!Locked.parse(rows[0]).locked) {
        throw new HarmflowError(`the lock of effect ledger holder ${holder} is held by another session`, EXIT.internal);
      }
    } catch (error) {
      await client.end();
      throw error;
    }
    return new HolderLock(client);
  }

  /** Ends the session, which drops the lock: the holder has ended. Idempotent. */
  async release(): Promise<void> {
    this.#released ??= this.#client.end();
    await this.#released;
  }
}
