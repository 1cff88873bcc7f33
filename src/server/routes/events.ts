/** `GET /api/executions/:id/events`: an execution's event log as server-sent events. */
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { HomePaths } from '../../core/home.js';
import { isExecutionId } from '../../core/ids.js';
import { FINAL_STATES } from '../../core/outcome.js';
import type { EventRecord } from '../../events/schema.js';
import type { Store } from '../../store/store.js';
import { type FeedItem, Feeds } from '../sse/feed.js';
import { Outbox } from '../sse/outbox.js';
import { replayEvents } from '../sse/replay.js';

/**
 * 15 s between heartbeat comments. Proxies and load balancers close a response that stays silent for
 * a while (nginx `proxy_read_timeout` defaults to 60 s, many cloud balancers to 30–60 s), and a quiet
 * execution (a harness thinking for minutes) sends nothing else; 15 s stays well under those, for one
 * 15-byte write per client.
 */
export const HEARTBEAT_MS = 15_000;

/**
 * 1 MiB: the largest record sent. Producers keep records small (tool output is clipped to 4000
 * characters, harnesses/lines.ts), so a bigger one is a damaged or foreign line; sent, it would sit
 * whole in every subscriber's outbox and in every browser's EventSource buffer, one copy per client.
 * It is skipped but keeps its position, so `id:` and `from` still count it (the log numbers it).
 */
export const MAX_RECORD_BYTES = 1024 * 1024;

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
 * `followEvents` per execution, sse/feed.ts), then replays from disk, then gets the feed, each record
 * once by id. A live client more than the outbox's high water behind is ended; it resumes from disk with
 * Last-Event-ID. Lines that are not records are skipped and take no position (the log's numbering);
 * records over `MAX_RECORD_BYTES` are skipped and keep theirs.
 *
 * Errors (JSON `{error:{name,message}}`): a malformed id or position → 400 `UsageError`; an execution
 * the store does not know → 404 `NotFoundError`. Each client owns its replay, heartbeat, outbox and feed
 * listener; all are released by an idempotent `stop()` when the client goes away or the stream ends.
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
    c.header('X-Accel-Buffering', 'no'); // nginx would otherwise buffer the stream.
    return streamSSE(c, async (stream) => {
      const controller = new AbortController();
      let heartbeat: NodeJS.Timeout | undefined;
      const stop = (): void => {
        if (heartbeat !== undefined) clearInterval(heartbeat);
        heartbeat = undefined;
        controller.abort();
      };
      stream.onAbort(stop);
      c.req.raw.signal.addEventListener('abort', stop, { once: true });
      const outbox = new Outbox((chunk) => stream.write(chunk));
      try {
        outbox.push(`event: connected\ndata: ${JSON.stringify({ execution: id, from })}\n\n`);
        heartbeat = setInterval(() => outbox.push(': heartbeat\n\n'), heartbeatMs);
        const { signal } = controller;
        let sent = from; // the id of the last record handled: sent, or skipped for its size
        let finished = false;
        const send = (item: FeedItem): void => {
          if (finished || item.id <= sent) return; // the disk replay already had it
          sent = item.id;
          const frame = frameOf(item);
          if (frame !== undefined) outbox.push(frame);
          if (item.record.type === 'execution.ended') finished = true;
        };
        // Listen before replaying, so a record appended during the replay is either read from disk
        // or queued here (or both: `send` drops the second copy by id), never missed.
        const queued: FeedItem[] = [];
        let live = false;
        let finishedHook = (): void => {};
        const done = new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => resolve(), { once: true });
          const unlisten = ended
            ? () => {}
            : feeds.listen(path, (item) => {
                if (!live) return void queued.push(item);
                send(item);
                // A client this far behind is dropped rather than buffered: it reconnects with
                // Last-Event-ID and catches up from disk.
                if (finished || outbox.full) resolve();
              });
          signal.addEventListener('abort', unlisten, { once: true });
          finishedHook = () => {
            unlisten();
            resolve();
          };
        });
        for await (const record of replayEvents(path, { from, signal })) {
          send({ id: sent + 1, record });
          if (finished) break;
          if (outbox.full) await outbox.drained();
        }
        for (const item of queued) send(item);
        live = true;
        if (finished || ended) finishedHook();
        await done;
        await outbox.drained();
      } finally {
        c.req.raw.signal.removeEventListener('abort', stop);
        stop();
      }
    });
  });
  return app;
}

/** Frames already made: a shared feed's item is serialized once for all its clients. */
const frames = new WeakMap<FeedItem, string | null>();

/** The SSE frame of a record, or undefined for one over `MAX_RECORD_BYTES`. JSON has no raw newline. */
function frameOf(item: FeedItem): string | undefined {
  let frame = frames.get(item);
  if (frame === undefined) {
    frame = recordFrame(item.record, item.id) ?? null;
    frames.set(item, frame);
  }
  return frame ?? undefined;
}

function recordFrame(record: EventRecord, id: number): string | undefined {
  const data = JSON.stringify(record);
  // A UTF-16 unit is at most 3 UTF-8 bytes, so only a long record needs the exact count.
  if (data.length * 3 > MAX_RECORD_BYTES && Buffer.byteLength(data) > MAX_RECORD_BYTES) return undefined;
  return `id: ${id}\ndata: ${data}\n\n`;
}

function usageError(c: { json: (body: unknown, status: 400) => Response }, message: string): Response {
  return c.json({ error: { name: 'UsageError', message } }, 400);
}
