/**
 * What `harmflow serve --store … --queue …` (cluster mode, issue 9) serves from: no executions of its
 * own, no state directory but for the token. Writes go to PostgreSQL and the dispatch queue
 * (ClusterExecutions); reads to PostgreSQL: the store, the event mirror (streamed over SSE), each
 * execution's context and latest `quota.waiting`. Any number of such nodes may serve one cluster.
 */
import { ClusterAdmission } from '../cluster/cluster-admission.js';
import { ClusterExecutions } from '../cluster/cluster-executions.js';
import { openClusterHold } from '../cluster/cluster-hold.js';
import { openExecutionContexts } from '../cluster/contexts.js';
import { openDispatchQueue } from '../cluster/dispatch.js';
import { openExecutionInbox } from '../cluster/inbox.js';
import { openExecutionLeases } from '../cluster/lease.js';
import { leaseOwners } from '../cluster/lease-owners.js';
import { parseQueueUrl } from '../cluster/queue-url.js';
import { checkStoreUrl, reachStore } from '../cluster/store-url.js';
import { openPgEventSource, type PgEventSource } from '../events/mirror/event-source.js';
import { openMirrorLookup } from '../events/mirror/latest-record.js';
import type { ClusterReads } from '../server/routes/executions.js';
import { openPostgresStore } from '../store/postgres/postgres-store.js';
import type { Store } from '../store/store.js';

/** An API node's parts, open. */
export interface ClusterNode {
  readonly store: Store;
  readonly executions: ClusterExecutions;
  readonly admission: ClusterAdmission;
  readonly reads: ClusterReads;
  readonly events: PgEventSource;
  /** Closes every part: the event source's followers and LISTEN session, the queue, the pools. Idempotent. */
  close(): Promise<void>;
}

/** Where a cluster's shared parts are: the workers' `--store`, `--schema`, `--queue`, `--queue-prefix`. */
export interface ClusterLocation {
  /** postgres://… */
  readonly store: string;
  /** The PostgreSQL schema of the cluster's tables. */
  readonly schema: string;
  /** redis://… */
  readonly queue: string;
  /** The dispatch queue's Redis key prefix; default DEFAULT_DISPATCH_PREFIX. */
  readonly queuePrefix?: string;
}

/**
 * Opens the parts of an API node of the cluster at `where`. Throws UsageError for a malformed URL
 * before connecting, ServiceUnavailableError (one line naming the host) when PostgreSQL does not
 * answer; what opened is closed then. Redis is
 * connected in the background: its errors go to `onError` while ioredis reconnects; a request
 * committed meanwhile is answered all the same, and the workers' redispatch sweep dispatches it.
 */
export async function openClusterNode(where: ClusterLocation, onError: (error: Error) => void): Promise<ClusterNode> {
  const url = checkStoreUrl(where.store);
  const options = { schema: where.schema };
  const connection = parseQueueUrl(where.queue);
  const closers: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    for (const closer of closers.splice(0).reverse()) await closer().catch(onError);
  };
  try {
    const store = await reachStore(url, () => openPostgresStore(url, options));
    closers.push(() => store.close());
    const inbox = await openExecutionInbox(url, options);
    closers.push(() => inbox.close());
    const contexts = await openExecutionContexts(url, options);
    closers.push(() => contexts.close());
    const lookup = await openMirrorLookup(url, options);
    closers.push(() => lookup.close());
    const events = await openPgEventSource(url, options);
    closers.push(() => events.close());
    const hold = await openClusterHold(url, options);
    closers.push(() => hold.close());
    const leases = await openExecutionLeases(url, options);
    closers.push(() => leases.close());
    const queue = openDispatchQueue({
      connection,
      ...(where.queuePrefix !== undefined && { prefix: where.queuePrefix }),
      onError,
    });
    closers.push(() => queue.close());
    let closed: Promise<void> | undefined;
    return {
      store,
      executions: new ClusterExecutions({ store, inbox, queue, onDispatchError: onError }),
      admission: new ClusterAdmission(queue, hold),
      reads: {
        readContext: (execution) => contexts.get(execution),
        latestWait: async (execution) => {
          const record = await lookup.latest(execution, 'quota.waiting');
          return record === undefined ? undefined : { ...record.data, since: record.ts };
        },
        owners: async (executions) => leaseOwners(await leases.leaseHolders(executions)),
      },
      events,
      close: () => {
        closed ??= close();
        return closed;
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}
