/**
 * The first contact with the queue's Redis, for the commands that dispatch through it (`harmflow
 * worker`, `harmflow workflow run|resume --queue …`): one PING on a connection of its own, closed
 * after, so a Redis that is down is one clear line and exit 8 instead of a wait in BullMQ's reconnects.
 */
import { Redis } from 'ioredis';
import type { RedisConnection } from '../cluster/queue-url.js';
import { ServiceUnavailableError } from '../core/errors.js';

/**
 * 5 s for the queue's Redis to answer, as PostgreSQL's connect timeout (store/postgres/pool.ts
 * CONNECT_TIMEOUT_MS). Once started, a command rides out Redis outages (BullMQ reconnects).
 */
const QUEUE_CONNECT_TIMEOUT_MS = 5_000;

/** Resolves once the queue's Redis answers a PING; ServiceUnavailableError (exit 8) when it does not. */
export async function reachQueue(connection: RedisConnection): Promise<void> {
  const redis = new Redis({
    ...connection,
    lazyConnect: true,
    connectTimeout: QUEUE_CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // The connection's own error (ECONNREFUSED, a timeout) says more than the rejection ("closed").
  let failure: Error | undefined;
  redis.on('error', (error: Error) => {
    failure ??= error;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new ServiceUnavailableError(`cannot reach the queue at ${connection.host}:${connection.port}`, {
      cause: failure ?? error,
    });
  } finally {
    redis.disconnect();
  }
}
