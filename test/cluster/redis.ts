/**
 * The Redis the cluster tests dispatch through: HARMFLOW_TEST_REDIS_URL, default the local server
 * (`redis://127.0.0.1:6379`). Whether it answers is decided once, when this module loads (one connect
 * of at most 2 s). When it does not, the tests are skipped with one line saying how to enable them;
 * with HARMFLOW_REQUIRE_REDIS=1 (CI) that is a failure, never a skip. Each test's queues live under a
 * key prefix of their own (testPrefixes), whose keys are deleted after it.
 */
import { Redis } from 'ioredis';
import { afterEach } from 'vitest';
import { parseQueueUrl, type RedisConnection } from '../../src/cluster/queue-url.js';

export const TEST_REDIS_URL = process.env.HARMFLOW_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const REQUIRED = process.env.HARMFLOW_REQUIRE_REDIS === '1';

/** The test server's connection options. */
export const TEST_REDIS: RedisConnection = parseQueueUrl(TEST_REDIS_URL);

/** A client of the test server that gives up at once instead of reconnecting; `onError` hears its errors. */
function client(onError: (error: Error) => void = () => {}): Redis {
  const redis = new Redis({
    ...TEST_REDIS,
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', onError);
  return redis;
}

/** Why the server does not answer, or undefined when it does. */
async function unreachable(): Promise<string | undefined> {
  // The socket's error (ECONNREFUSED) says more than the rejection ("Connection is closed.").
  let socketError: Error | undefined;
  const redis = client((error) => {
    socketError ??= error;
  });
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    return socketError?.message ?? (error instanceof Error ? error.message : String(error));
  } finally {
    redis.disconnect();
  }
}

const problem = await unreachable();
if (problem !== undefined) {
  const how = 'start Redis on 127.0.0.1:6379 or set HARMFLOW_TEST_REDIS_URL';
  const where = `${TEST_REDIS.host}:${TEST_REDIS.port}`;
  if (REQUIRED) throw new Error(`HARMFLOW_REQUIRE_REDIS=1 but Redis at ${where} does not answer (${problem}): ${how}`);
  process.stdout.write(`Redis dispatch tests skipped (${where}: ${problem}): ${how}\n`);
}

/** True when the test server answered. */
export const REDIS_AVAILABLE = problem === undefined;

let prefixes = 0;

/**
 * Registers, in the calling describe block, a hook that deletes after each test the keys under the
 * prefixes it asked for (after the test closed its queues and workers); returns the asker.
 */
export function testPrefixes(): { newPrefix(): string } {
  const used: string[] = [];
  afterEach(async () => {
    const redis = client();
    try {
      await redis.connect();
      for (const prefix of used.splice(0)) {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
          if (keys.length > 0) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      }
    } finally {
      redis.disconnect();
    }
  });
  return {
    newPrefix() {
      const prefix = `harmflow-test-${process.pid}-${Date.now().toString(36)}-${++prefixes}`;
      used.push(prefix);
      return prefix;
    },
  };
}
