/**
 * A dispatch cluster for one test: a dispatch queue under a key prefix of its own, execution leases
 * in a PostgreSQL schema of its own, and the dispatch workers the test starts, with lock and lease
 * settings short enough that lost workers come back in about a second. Everything is closed after the
 * test, then its keys and schema are dropped.
 */
import { afterEach } from 'vitest';
import { type DispatchLock, type DispatchQueue, openDispatchQueue } from '../../src/cluster/dispatch.js';
import type { LeaseSettings } from '../../src/cluster/kept-lease.js';
import { type ExecutionLeases, openExecutionLeases } from '../../src/cluster/lease.js';
import { type DispatchWorker, type DispatchWorkerOptions, startDispatchWorker } from '../../src/cluster/worker-loop.js';
import { TEST_POSTGRES_URL, testSchemas } from '../store/postgres.js';
import { TEST_REDIS, testPrefixes } from './redis.js';

/** A lost worker's job is moved back within 1.5 s (lock 1 s, then the next check, 0.5 s apart). */
export const FAST_LOCK: DispatchLock = { lockDurationMs: 1000, stalledIntervalMs: 500, maxStalledCount: 2 };
/** A lease lost 1 s after its last renewal; renewed every 250 ms. */
export const FAST_LEASE: LeaseSettings = { ttlMs: 1000, renewEveryMs: 250 };

export interface Cluster {
  readonly prefix: string;
  readonly schema: string;
  readonly queue: DispatchQueue;
  readonly leases: ExecutionLeases;
  /** Every error the queue and the workers reported. */
  readonly errors: Error[];
  /** Starts a worker on the cluster's queue and leases, with FAST_LOCK and FAST_LEASE unless told. */
  startWorker(
    options: Pick<DispatchWorkerOptions, 'workerId' | 'concurrency' | 'handle'> & Partial<DispatchWorkerOptions>,
  ): Promise<DispatchWorker>;
  /** The queue's jobs waiting, active and delayed. */
  pending(): Promise<{ waiting: number; active: number; delayed: number }>;
}

/** Registers the hooks of the calling describe block's clusters; `open()` makes one for a test. */
export function clusters(): { readonly admin: ReturnType<typeof testSchemas>['admin']; open(): Promise<Cluster> } {
  const schemas = testSchemas();
  const prefixes = testPrefixes();
  const closers: (() => Promise<void>)[] = [];
  // Registered after the schemas' and prefixes' hooks, so it runs before them.
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  return {
    get admin() {
      return schemas.admin;
    },
    async open() {
      const prefix = prefixes.newPrefix();
      const schema = schemas.newSchema();
      const errors: Error[] = [];
      const queue = openDispatchQueue({ connection: TEST_REDIS, prefix, onError: (error) => errors.push(error) });
      closers.push(() => queue.close());
      const leases = await openExecutionLeases(TEST_POSTGRES_URL, { schema });
      closers.push(() => leases.close());
      return {
        prefix,
        schema,
        queue,
        leases,
        errors,
        async startWorker(options) {
          const worker = await startDispatchWorker({
            connection: TEST_REDIS,
            prefix,
            leases,
            lock: FAST_LOCK,
            lease: FAST_LEASE,
            onError: (error) => errors.push(error),
            ...options,
          });
          closers.push(() => worker.close());
          return worker;
        },
        async pending() {
          const counts = await queue.getJobCounts('waiting', 'active', 'delayed');
          return { waiting: counts.waiting ?? 0, active: counts.active ?? 0, delayed: counts.delayed ?? 0 };
        },
      };
    },
  };
}

/** Resolves to `probe()`'s first defined value, polling every 20 ms; rejects after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A promise and the function that resolves it. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
