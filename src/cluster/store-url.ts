/**
 * The URL of the PostgreSQL store of cluster mode (`--store`): `postgres://` or `postgresql://`, as
 * node-postgres takes it. Checked before anything connects, so a typo is one clear line rather than a
 * connection error; the rest of it (host, credentials, parameters) is node-postgres's to read.
 */
import { describeError, HarmflowError, ServiceUnavailableError, UsageError } from '../core/errors.js';

/**
 * Returns `text` when it is a `postgres://` or `postgresql://` URL. Throws a UsageError of one line,
 * the password masked, otherwise.
 */
export function checkStoreUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`store URL ${JSON.stringify(masked(text))} is not a URL (postgres://user@host:5432/database)`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new UsageError(
      `store URL ${JSON.stringify(masked(text))} is refused: the scheme must be postgres:// or postgresql://`,
    );
  }
  return text;
}

/** `text` with the password of its `user:password@` part, if any, replaced by `***`. */
function masked(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, '$1:***@');
}

/**
 * Runs `open`, the first connection to the store at `url`; a failure that is not one of HarmFlow's (a
 * refused connection, a timeout) becomes a ServiceUnavailableError (exit 8) of one line naming the host.
 */
export async function reachStore<T>(url: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (error instanceof HarmflowError) throw error;
    const host = new URL(url).host;
    throw new ServiceUnavailableError(`cannot reach the store at ${host}: ${describeError(error)}`, { cause: error });
  }
}
