/** `GET /api/executions/:id/events`: an execution's event log as server-sent events. */
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import { z } from 'zod';
import type { HomePaths } from '../../core/home.js';
import { isExecutionId } from '../../core/ids.js';
import { FINAL_STATES } from '../../core/outcome.js';
import type { Store } from '../../store/store.js';
import { nodeResponse, readableOf, writeToResponse } from '../sse/body.js';
import { Feeds } from '../sse/feed.js';
import { streamEvents } from '../sse/stream.js';

export { MAX_RECORD_BYTES } from '../sse/stream.js';

/**
 * 15 s between heartbeat comments. Proxies and load balancers close a response that stays silent for
 * a while (nginx `proxy_read_timeout` defaults to 60 s, many cloud balancers to 30–60 s), and a quiet
 * execution (a harness thinking for minutes) sends nothing else; 15 s stays well under those, for one
 * 15-byte write per client.
 */
export const HEARTBEAT_MS = 15_000;

/** What the route reads: the state directory (for `events.jsonl`) and the store (does it exist, has it ended). */
export interface EventsRouteOptions {
  readonly home: HomePaths;
  readonly store: Pick<Store, 'getExecution'>;
  /** Milliseconds between heartbeats; default `HEARTBEAT_MS` (tests shorten it). */
  readonly heartbeatMs?: number;
}

/** A position in the log: how many records to skip. Digits only, so `-1`, `1.5` and `1e3` are refused. */
const Position = z
  .string()
  .regex(/^\d+$/, 'must be a non-negative integer')
  .transform(Number)
  .refine(Number.isSafeInteger, 'must be a safe integer');

/**
 * eventsRoute returns a sub-app serving `GET /api/executions/:id/events`; mount it at the root
 * (`app.route('/', eventsRoute({ home, store }))`) behind the app's token and Host/Origin checks.
 *
 * The stream: first `event: connected` (no id) with `{execution, from}`; then every record after the
 * first `from` as an unnamed event (`data:` = the record's JSON) with `id:` = its position + 1, the
 * number of records read so far, so a client resumes with `?from=<id>` or `Last-Event-ID: <id>`; a
 * heartbeat comment every `heartbeatMs`. It ends after the `execution.ended` record is sent. An
 * execution that had ended when the client connected is replayed from disk and the stream ends at the
 * end of the file; for a live one the client first listens to the execution's shared feed (one
 * follower per execution, sse/feed.ts), then replays from disk, then gets the feed, each record once
 * by id (sse/stream.ts). A live client more than the outbox's high water behind is ended, and so are a
 * feed's clients when its follower fails; they resume from disk with Last-Event-ID. Lines that are not
 * records are skipped and take no position (the log's numbering); records over `MAX_RECORD_BYTES` are
 * skipped and keep theirs.
 *
 * Errors (JSON `{error:{name,message}}`): a malformed id or position → 400 `UsageError`; an execution
 * the store does not know → 404 `NotFoundError`. Each client owns its replay, heartbeat, outbox and feed
 * listener; all are released when the client goes away or the stream ends. Appends by this process
 * (`openEventLog`) reach the feeds at once; other processes' through `fs.watch` (events/tail.ts).
 */
export function eventsRoute(options: EventsRouteOptions): Hono {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const feeds = new Feeds();
  const app = new Hono();
  app.get('/api/executions/:id/events', async (c) => {
    const id = c.req.param('id');
    if (!isExecutionId(id)) return usageError(c, `not an execution id: ${JSON.stringify(id)}`);
    // Last-Event-ID wins: an EventSource reconnects to the same URL, still carrying the `?from` of its
    // first request, and adds the id of the last event it received, which is the newer position.
    const lastEventId = c.req.header('Last-Event-ID');
    const given = lastEventId ?? c.req.query('from');
    const position = Position.safeParse(given ?? '0');
    if (!position.success) {
      const source = lastEventId !== undefined ? 'Last-Event-ID' : 'from';
      return usageError(c, `${source} ${JSON.stringify(given)} ${position.error.issues[0]?.message ?? 'is invalid'}`);
    }
    const from = position.data;
    const execution = await options.store.getExecution(id);
    if (execution === undefined) {
      return c.json({ error: { name: 'NotFoundError', message: `no execution ${id}` } }, 404);
    }
    const path = options.home.eventsFile(id);
    // The engine appends `execution.ended` before it records the final state, so a final state here
    // means the file is complete: read it to its end instead of following it.
    const ended = FINAL_STATES.has(execution.state);
    const outbox = streamEvents({ path, execution: id, from, ended, feeds, heartbeatMs, signal: c.req.raw.signal });
    const res = nodeResponse(c.env);
    if (res !== undefined) {
      // Straight to the socket (sse/body.ts). The head is written here, not through `c.header`: a
      // header set on the context makes hono copy the returned sentinel into a new Response, which
      // @hono/node-server would then write a second head for. (The guards set no headers.)
      res.writeHead(200, SSE_HEADERS);
      writeToResponse(outbox, res);
      return RESPONSE_ALREADY_SENT;
    }
    for (const [name, value] of Object.entries(SSE_HEADERS)) c.header(name, value);
    // Tells @hono/node-server to stream the body at once instead of reading ahead to size it.
    c.header('Transfer-Encoding', 'chunked');
    return c.body(readableOf(outbox));
  });
  return app;
}

/** The stream's head; `X-Accel-Buffering: no` keeps nginx from buffering it. */
const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
} as const;

function usageError(c: { json: (body: unknown, status: 400) => Response }, message: string): Response {
  return c.json({ error: { name: 'UsageError', message } }, 400);
}
