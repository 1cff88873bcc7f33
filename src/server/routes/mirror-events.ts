/**
 * `GET /api/executions/:id/events` in cluster mode (issue 9): an execution's event records as
 * server-sent events, read from the PostgreSQL mirror the workers fill (events/mirror/), so any API
 * node streams any execution. The contract is the events route's (routes/events.ts): `event:
 * connected` with `{execution, from}`, each record with `id:` = position + 1, `?from=N` and
 * `Last-Event-ID: N` (which wins) skipping the first N records, heartbeats, every record sent (those
 * after an `execution.ended` too), the end after an `execution.ended` that is the last record, 400
 * and 404 as there. How the mirror is followed: sse/mirror-stream.ts.
 */
import type { Hono } from 'hono';
import type { PgEventSource } from '../../events/mirror/event-source.js';
import type { Store } from '../../store/store.js';
import { streamMirror } from '../sse/mirror-stream.js';
import { eventStreamRoute, HEARTBEAT_MS } from '../sse/route.js';

export interface MirrorEventsRouteOptions {
  /** The mirror's reading side; owned by the caller, who closes it after the server. */
  readonly source: Pick<PgEventSource, 'read' | 'follow'>;
  /** Does the execution exist, has it ended. */
  readonly store: Pick<Store, 'getExecution'>;
  /** Milliseconds between heartbeats; default `HEARTBEAT_MS` (tests shorten it). */
  readonly heartbeatMs?: number;
  /** How long an ended execution's stream waits for the mirror (sse/mirror-stream.ts); tests shorten it. */
  readonly settleMs?: number;
}

/** Returns the sub-app; mount it at the root (`app.route('/', mirrorEventsRoute(…))`) behind the guards. */
export function mirrorEventsRoute(options: MirrorEventsRouteOptions): Hono {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  return eventStreamRoute(options.store, (request) =>
    streamMirror({
      ...request,
      source: options.source,
      heartbeatMs,
      ...(options.settleMs !== undefined && { settleMs: options.settleMs }),
    }),
  );
}
