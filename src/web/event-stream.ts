/**
 * An execution's event stream (`GET /api/executions/:id/events`, docs/api.md "Events (SSE)") read
 * over fetch — one reader for the CLI (in Node, with the bearer token) and the Workbench (whose
 * browser sends the session cookie) — in place of the browser's EventSource, which can send no
 * `Authorization` and tells no refusal (401, 404) apart from a dropped connection.
 *
 * Contract of `openEventStream`:
 * - each record (an unnamed event) is handed to `onRecord` with its id, once, in order: the stream
 *   remembers the last event id and, when the connection drops before the stream ended (a network
 *   error, an answer that is 5xx, 408 or 429, or the server closing before `execution.ended`), it
 *   reconnects after the reconnection time (`retryMs`, default `DEFAULT_RETRY_MS`; a `retry:` field
 *   from the server replaces it) with `Last-Event-ID`, and the server starts after that record;
 * - `onConnected` is called on every (re)connection with the server's `connected` event;
 * - the stream ends for good, calling `onEnd`, when the server closes after an `execution.ended`
 *   record was delivered (a reopening the server replays before it closes is delivered too); a
 *   stream the server closes without one (a log that lacks it) is reconnected until `close()`;
 * - `onError` receives, as named errors: an `ApiError` for an answer that will not get better by
 *   retrying (401, 403, 404, any other 4xx, or a 2xx that is not an event stream), after which the
 *   stream stops; a `MalformedEventError` for an event whose data is not what the API promises (it is
 *   skipped, the stream goes on); a `ConnectionLostError` before each reconnection;
 * - `close()` aborts the request or the wait for the next one; after it no callback is called.
 *   Idempotent.
 * A callback that throws does not disturb the stream: its error is rethrown on its own (as an
 * uncaught error, like an EventTarget listener's), and the stream goes on.
 *
 * The caller owns the token (if any) and the callbacks; the stream owns its one request at a time, its parser
 * and its reconnection timer. No Node, no DOM: it runs in the browser and in Node.
 */
import { ApiError, apiErrorOf, type Fetch, isObject } from './api.js';
import { type SseEvent, SseParser } from './sse-parser.js';

/**
 * 1 s before reconnecting. The usual drop is the service restarting, and `harmflow serve` answers
 * 0.5–0.6 s after it is started (measured: 484–630 ms over 5 starts with an empty home, from spawn to
 * its "HarmFlow service on" line), so a restart costs the stream one or two attempts; against a
 * service that stays down, it is one small request a second per open stream.
 */
export const DEFAULT_RETRY_MS = 1000;

/** A record as delivered: an object with a string `type` (the API's event record; see src/events/schema.ts). */
export interface StreamRecord {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** The `connected` event: the execution, and how many records the server skipped (the resume position). */
export interface Connected {
  readonly execution: string;
  readonly from: number;
}

export interface EventStreamOptions {
  /** The stream's URL, e.g. `/api/executions/<id>/events` (may carry `?from=N`). */
  readonly url: string;
  /** The bearer token; without it, no `Authorization` (a page's same-origin requests carry the session cookie). */
  readonly token?: string;
  readonly onRecord: (record: StreamRecord, id: number) => void;
  readonly onConnected?: (connected: Connected) => void;
  readonly onEnd?: () => void;
  readonly onError?: (error: Error) => void;
  readonly fetch?: Fetch;
  /** Milliseconds before a reconnection; default `DEFAULT_RETRY_MS`. */
  readonly retryMs?: number;
}

export interface EventStream {
  close(): void;
}

/** An event whose data is not what the API sends: not JSON, or not the shape its type promises. */
export class MalformedEventError extends Error {
  override readonly name = 'MalformedEventError';
  /** The event's `data:` as received. */
  readonly data: string;
  constructor(message: string, data: string, options?: { cause?: unknown }) {
    super(message, options);
    this.data = data;
  }
}

/** The connection dropped (or the server answered with a passing error); the stream reconnects in `retryMs`. */
export class ConnectionLostError extends Error {
  override readonly name = 'ConnectionLostError';
  readonly retryMs: number;
  constructor(message: string, retryMs: number, options?: { cause?: unknown }) {
    super(message, options);
    this.retryMs = retryMs;
  }
}

/** How one connection ended. */
type Outcome =
  | { readonly kind: 'ended' }
  | { readonly kind: 'refused'; readonly error: ApiError }
  | { readonly kind: 'lost'; readonly message: string; readonly cause?: unknown };

/** Opens the stream at `options.url`; see the file comment for the contract. */
export function openEventStream(options: EventStreamOptions): EventStream {
  const send: Fetch = options.fetch ?? ((url, init) => fetch(url, init));
  let retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  let lastEventId = '';
  let lastType: string | undefined;
  let closed = false;
  let request: AbortController | undefined;
  let wakeUp: (() => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const call = (callback: () => void): void => {
    if (closed) return;
    try {
      callback();
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  };
  const report = (error: Error): void => call(() => options.onError?.(error));

  const dispatch = (event: SseEvent): void => {
    if (event.type === 'connected') {
      const connected = connectedOf(event.data);
      if (connected instanceof MalformedEventError) report(connected);
      else call(() => options.onConnected?.(connected));
    } else if (event.type === 'message') {
      const record = recordOf(event);
      if (record instanceof MalformedEventError) {
        report(record);
        return;
      }
      lastType = record.type;
      call(() => options.onRecord(record, Number(event.lastEventId)));
    }
  };

  const connect = async (): Promise<Outcome> => {
    const controller = new AbortController();
    request = controller;
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (lastEventId !== '') headers['last-event-id'] = lastEventId;
    let response: Response;
    try {
      response = await send(options.url, { headers, signal: controller.signal });
    } catch (error) {
      return { kind: 'lost', message: 'the request failed', cause: error };
    }
    if (!response.ok) {
      const error = await apiErrorOf(response);
      if (passing(response.status))
        return { kind: 'lost', message: `the server answered ${response.status}`, cause: error };
      return { kind: 'refused', error };
    }
    const type = response.headers.get('content-type') ?? '';
    if (response.body === null || !/^text\/event-stream\b/i.test(type)) {
      await response.body?.cancel().catch(() => {});
      const message = `${options.url} answered ${type || 'no content type'}, not text/event-stream`;
      return { kind: 'refused', error: new ApiError(response.status, 'NotAnEventStream', message) };
    }
    const reader = response.body.getReader();
    const parser = new SseParser(
      {
        event: dispatch,
        retry: (ms) => {
          retryMs = ms;
        },
      },
      lastEventId,
    );
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        return { kind: 'lost', message: 'the connection broke', cause: error };
      }
      if (chunk.done) {
        return lastType === 'execution.ended'
          ? { kind: 'ended' }
          : { kind: 'lost', message: 'the server closed the stream before execution.ended' };
      }
      parser.push(chunk.value);
      lastEventId = parser.lastEventId;
    }
  };

  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      wakeUp = resolve;
      timer = setTimeout(resolve, ms);
    });

  const run = async (): Promise<void> => {
    while (!closed) {
      const outcome = await connect();
      if (closed) return;
      if (outcome.kind === 'ended') {
        call(() => options.onEnd?.());
        return;
      }
      if (outcome.kind === 'refused') {
        report(outcome.error);
        return;
      }
      report(
        new ConnectionLostError(`${outcome.message}; reconnecting in ${retryMs} ms`, retryMs, { cause: outcome.cause }),
      );
      await pause(retryMs);
    }
  };
  void run();

  return {
    close: () => {
      if (closed) return;
      closed = true;
      request?.abort();
      if (timer !== undefined) clearTimeout(timer);
      wakeUp?.();
    },
  };
}

/** An error answer that may pass: the server is starting, stopping or busy, or a proxy timed out. */
function passing(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** The record an unnamed event carries, with its id; or why it is not one. */
function recordOf(event: SseEvent): StreamRecord | MalformedEventError {
  if (!/^\d+$/.test(event.lastEventId)) {
    return new MalformedEventError(
      `a record without a numeric id (id: ${JSON.stringify(event.lastEventId)})`,
      event.data,
    );
  }
  const parsed = parseJson(event.data);
  if (parsed instanceof MalformedEventError) return parsed;
  if (!isObject(parsed) || typeof parsed.type !== 'string') {
    return new MalformedEventError(`record ${event.lastEventId} is not an object with a string type`, event.data);
  }
  return parsed as StreamRecord;
}

/** The `connected` event's `{execution, from}`, or why it is not that. */
function connectedOf(data: string): Connected | MalformedEventError {
  const parsed = parseJson(data);
  if (parsed instanceof MalformedEventError) return parsed;
  if (!isObject(parsed) || typeof parsed.execution !== 'string' || typeof parsed.from !== 'number') {
    return new MalformedEventError('the connected event is not {execution, from}', data);
  }
  return { execution: parsed.execution, from: parsed.from };
}

function parseJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch (error) {
    return new MalformedEventError('an event whose data is not JSON', data, { cause: error });
  }
}
