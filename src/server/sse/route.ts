/**
 * The route of an execution's event stream, `GET /api/executions/:id/events`, whatever log it reads:
 * the request is checked, the execution looked up, and the stream's outbox written to the response.
 * The log is the caller's (routes/events.ts: `events.jsonl`; routes/mirror-events.ts: the
 * PostgreSQL mirror), so both serve one contract.
 */
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import { z } from 'zod';
import { isExecutionId } from '../../core/execution-id-shape.js';
import { FINAL_STATES } from '../../core/outcome.js';
import type { Store } from '../../store/store.js';
import { nodeResponse, readableOf, writeToResponse } from './body.js';
import type { Outbox } from './outbox.js';

/**
 * 15 s between heartbeat comments. Proxies and load balancers close a response that stays silent for
 * a while (nginx `proxy_read_timeout` defaults to 60 s, many cloud balancers to 30–60 s), and a quiet
 * execution (a harness thinking for minutes) sends nothing else; 15 s stays well under those, for one
 * 15-byte write per client.
 */
export const HEARTBEAT_MS = 15_000;

/** One checked request for a stream. */
export interface StreamRequest {
  readonly execution: string;
  /** How many records the client has (`Last-Event-ID`, else `?from`, else 0). */
  readonly from: number;
  /** The execution was in a final state when the client connected. */
  readonly ended: boolean;
  /** Aborts when the client goes away. */
  readonly signal: AbortSignal;
}

/** A position in the log: how many records to skip. Digits only, so `-1`, `1.5` and `1e3` are refused. */
const Position = z
  .string()
  .regex(/^\d+$/, 'must be a non-negative integer')
  .transform(Number)
  .refine(Number.isSafeInteger, 'must be a safe integer');

/**
 * Returns a sub-app serving `GET /api/executions/:id/events` (mount it at the root, behind the app's
 * guards) with the stream `open` starts for each checked request. `Last-Event-ID` wins over `?from`.
 * Errors (JSON `{error:{name,message}}`): a malformed id or position → 400 `UsageError`; an execution
 * the store does not know → 404 `NotFoundError`.
 */
export function eventStreamRoute(store: Pick<Store, 'getExecution'>, open: (request: StreamRequest) => Outbox): Hono {
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
    const execution = await store.getExecution(id);
    if (execution === undefined) {
      return c.json({ error: { name: 'NotFoundError', message: `no execution ${id}` } }, 404);
    }
    const outbox = open({
      execution: id,
      from: position.data,
      ended: FINAL_STATES.has(execution.state),
      signal: c.req.raw.signal,
    });
    const res = nodeResponse(c.env);
    if (res !== undefined) {
      // Straight to the socket (body.ts). The head is written here, not through `c.header`: a header
      // set on the context makes hono copy the returned sentinel into a new Response, which
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
