/**
 * The LISTEN session of a PgEventSource (event-source.ts): one connection, shared by all of the
 * source's followers, that hears the mirror's commits (event-mirror.ts notifies the schema's channel
 * with the execution id) and wakes the followers of that execution. A notification only wakes; the
 * follower then reads the table, so a notification lost, doubled or early costs a read, never a record.
 */
import pg from 'pg';
import { LOCK_SESSION_SETTINGS } from '../../store/postgres/holder-lock.js';
import { CONNECT_TIMEOUT_MS, startupOptions } from '../../store/postgres/pool.js';
import type { Wakeup } from '../wakeup.js';

/**
 * 1000 ms between attempts to open the session again once it is lost (the server restarted, the
 * network cut). Followers poll meanwhile (event-source.ts), so the delay bounds only how often a
 * process retries a server that is down, not how late a record is.
 */
export const RELISTEN_MS = 1000;

/**
 * MirrorListener holds the LISTEN session on one channel and wakes the subscribers of the execution
 * each notification names. When the session is lost it wakes every subscriber (notifications may
 * have been missed) and opens it again every `RELISTEN_MS` until it is back, then wakes them all once
 * more. Owned by one event source; single-threaded.
 *
 * The session runs with the holder lock's settings (store/postgres/holder-lock.ts), for the same
 * reason: it is idle for its whole life, so a server's `idle_session_timeout` must not end it (which
 * needs PostgreSQL 14 or later), and the server finds a listener whose machine died within ≈25 s.
 * A server that goes silent without closing the connection is not noticed here: the followers' poll
 * covers that.
 */
export class MirrorListener {
  readonly #url: string;
  readonly #channel: string;
  readonly #subscribers = new Map<string, Set<Wakeup>>();
  #client: pg.Client | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(url: string, channel: string) {
    this.#url = url;
    this.#channel = channel;
  }

  /** Opens the session on the database at `url` and listens on `channel`; rejects if that fails. */
  static async open(url: string, channel: string): Promise<MirrorListener> {
    const listener = new MirrorListener(url, channel);
    listener.#client = await listener.#listen();
    return listener;
  }

  /** Wakes `wakeup` on each notification for `execution` until the returned function is called. */
  subscribe(execution: string, wakeup: Wakeup): () => void {
    const wakeups = this.#subscribers.get(execution) ?? new Set<Wakeup>();
    this.#subscribers.set(execution, wakeups);
    wakeups.add(wakeup);
    return () => {
      wakeups.delete(wakeup);
      if (wakeups.size === 0 && this.#subscribers.get(execution) === wakeups) this.#subscribers.delete(execution);
    };
  }

  /** Ends the session and stops reopening it. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#retry = undefined;
    const client = this.#client;
    this.#client = undefined;
    await client?.end();
  }

  /** A connected client listening on the channel, watched for its loss. */
  async #listen(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.#url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: 'harmflow',
      options: startupOptions(LOCK_SESSION_SETTINGS),
      keepAlive: true,
    });
    // The loss is handled on `end`; without a listener an error would end the process.
    client.on('error', () => {});
    client.on('notification', (message) => {
      if (message.payload !== undefined) this.#wake(this.#subscribers.get(message.payload));
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.#channel}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    client.on('end', () => this.#lost(client));
    return client;
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return; // closed
    this.#client = undefined;
    this.#wakeAll();
    this.#relisten();
  }

  #relisten(): void {
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#listen().then(
        async (client) => {
          if (this.#closed) {
            await client.end();
            return;
          }
          this.#client = client;
          this.#wakeAll();
        },
        () => {
          if (!this.#closed) this.#relisten();
        },
      );
    }, RELISTEN_MS);
  }

  #wakeAll(): void {
    for (const wakeups of this.#subscribers.values()) this.#wake(wakeups);
  }

  #wake(wakeups: Set<Wakeup> | undefined): void {
    if (wakeups !== undefined) for (const wakeup of wakeups) wakeup.notify();
  }
}
