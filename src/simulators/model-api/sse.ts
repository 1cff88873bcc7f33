/**
 * Writing HTTP replies: server-sent events (`event:` and `data:` lines, a blank line after each) and
 * whole JSON bodies. A reply is written at once and ended; a client that went away is ignored.
 */
import type { ServerResponse } from 'node:http';

/** Starts an event stream with status 200 and `headers` added. */
export function openStream(res: ServerResponse, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
}

/** Writes one event: `event: <name>` when named, then `data: <json>` (or a literal string such as `[DONE]`). */
export function sendEvent(res: ServerResponse, data: unknown, event?: string): void {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  res.write(`${event !== undefined ? `event: ${event}\n` : ''}data: ${payload}\n\n`);
}

/** Writes a whole JSON reply and ends it. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}
