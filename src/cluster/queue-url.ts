/**
 * The URL of the Redis that cluster mode dispatches through (BullMQ): `redis://host[:port][/db]`, or
 * `rediss://…` for TLS, with an optional `user:password@` for Redis ACLs. Cluster nodes are remote, so
 * any host is accepted; any other scheme, a path that is not a database number, a query or a fragment
 * is refused, rather than ignored. The result is the connection options BullMQ (ioredis) takes.
 */
import { z } from 'zod';
import { UsageError } from '../core/errors.js';

/** 6379: Redis's own default port, taken when the URL names none. */
export const DEFAULT_REDIS_PORT = 6379;

/**
 * The key prefix of the queue's Redis keys unless told (BullMQ's own default is `bull`). Here, with the
 * URL, so that the command line can name it without loading BullMQ.
 */
export const DEFAULT_DISPATCH_PREFIX = 'harmflow';

/** How to reach the queue's Redis, as ioredis options. */
export interface RedisConnection {
  readonly host: string;
  readonly port: number;
  /** The logical database (SELECT n); 0 unless the URL's path names another. */
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
  /** Present for `rediss://`: connect over TLS with Node's default checks. */
  readonly tls?: Readonly<Record<string, never>>;
}

const Parts = z.object({
  protocol: z.enum(['redis:', 'rediss:'], { error: 'the scheme must be redis:// or rediss://' }),
  hostname: z.string().min(1, { error: 'it names no host' }),
  port: z.string(),
  pathname: z.string().regex(/^(\/(0|[1-9]\d{0,5})?)?$/, { error: 'its path must be a database number, e.g. /0' }),
  search: z.literal('', { error: 'it must have no query' }),
  hash: z.literal('', { error: 'it must have no fragment' }),
});

/**
 * The connection options of the queue URL `text`. Throws a UsageError of one line naming the URL (its
 * password masked) and what is wrong with it.
 */
export function parseQueueUrl(text: string): RedisConnection {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`queue URL ${JSON.stringify(masked(text))} is not a URL (redis://host:port[/db])`);
  }
  const parts = Parts.safeParse(url);
  if (!parts.success) {
    const reason = parts.error.issues[0]?.message ?? 'it is invalid';
    throw new UsageError(`queue URL ${JSON.stringify(masked(text))} is refused: ${reason}`);
  }
  const { protocol, hostname, port, pathname } = parts.data;
  const db = pathname.length > 1 ? Number(pathname.slice(1)) : 0;
  return {
    // WHATWG URLs keep an IPv6 host in brackets; sockets take it bare.
    host: hostname.replace(/^\[(.*)\]$/, '$1'),
    port: port === '' ? DEFAULT_REDIS_PORT : Number(port),
    db,
    ...(url.username !== '' && { username: decodeURIComponent(url.username) }),
    ...(url.password !== '' && { password: decodeURIComponent(url.password) }),
    ...(protocol === 'rediss:' && { tls: {} }),
  };
}

/** `text` with the password of its `user:password@` part, if any, replaced by `***`. */
function masked(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, '$1:***@');
}
