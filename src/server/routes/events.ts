/** `GET /api/executions/:id/events`: an execution's event log (`events.jsonl`) as server-sent events. */
import type { Hono } from 'hono';
import type { HomePaths } from '../../core/home.js';
import type { Store } from '../../store/store.js';
import { Feeds } from '../sse/feed.js';
import { eventStreamRoute, HEARTBEAT_MS } from '../sse/route.js';
import { streamEvents } from '../sse/stream.js';

export { MAX_RECORD_BYTES } from '../sse/frames.js';
export { HEARTBEAT_MS } from '../sse/route.js';

/** What the route reads: the state directory (for `events.jsonl`) and the store (does it exist, has it ended). */
export interface EventsRouteOptions {
  readonly home: HomePaths;
  readonly store: Pick<Store, 'getExecution'>;
  /** Milliseconds between heartbeats; default `HEARTBEAT_MS` (tests shorten it). */
  readonly heartbeatMs?: number;
}

/**
 * eventsRoute returns a sub-app serving `GET /api/executions/:id/events`; mount it at the root
 * (`app.route('/', eventsRoute({ home, store }))`) behind the app's token and Host/Origin checks.
 *
 * The stream: first `event: connected` (no id) with `{execution, from}`; then every record after the
 * first `from` as an unnamed event (`data:` = the record's JSON) with `id:` = its position + 1, the
 * number of records read so far, so a client resumes with `?from=<id>` or `Last-Event-ID: <id>`; a
 * heartbeat comment every `heartbeatMs`. Every record is sent, those after an `execution.ended` too
 * (a follow-up reopening a succeeded execution: its `message.queued`, then `execution.reopened`). The
 * stream ends after an `execution.ended` that is the last record it has read. An execution that had
 * ended when the client connected is replayed from disk and the stream ends at the end of the file
 * (a client whose last record is not `execution.ended` then reconnects with Last-Event-ID); for a
 * live one the client first listens to the execution's shared feed (one follower per execution,
 * sse/feed.ts), then replays from disk, then gets the feed, each record once by id (sse/stream.ts). A
 * live client more than the outbox's high water behind is ended, and so are a feed's clients when its
 * follower fails; they resume from disk with Last-Event-ID. Lines that are not records are skipped and
 * take no position (the log's numbering); records over `MAX_RECORD_BYTES` are skipped and keep theirs.
 *
 * Errors (sse/route.ts, JSON `{error:{name,message}}`): a malformed id or position → 400
 * `UsageError`; an execution the store does not know → 404 `NotFoundError`. Each client owns its
 * replay, heartbeat, outbox and feed listener; all are released when the client goes away or the
 * stream ends. Appends by this process (`openEventLog`) reach the feeds at once; other processes'
 * through `fs.watch` (events/tail.ts).
 */
export function eventsRoute(options: EventsRouteOptions): Hono {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const feeds = new Feeds();
  // The engine appends `execution.ended` before it records the final state, so a final state means
  // the file is complete: it is read to its end instead of followed.
  return eventStreamRoute(options.store, (request) =>
    streamEvents({ ...request, path: options.home.eventsFile(request.execution), feeds, heartbeatMs }),
  );
}
