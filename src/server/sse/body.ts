/**
 * The two response bodies an outbox can feed: the Node response itself, or a web ReadableStream.
 *
 * Writing to the Node `ServerResponse` (@hono/node-server hands it to handlers as `c.env.outgoing`,
 * when the server's fetch callback passes its env on) is the fast path: a chunk is one `res.write`.
 * Through a ReadableStream each chunk also costs a read request, its promise and @hono/node-server's
 * copy loop: over the same 100-subscriber runs the daemon used ~15% more CPU (2.2 s against
 * 1.8–1.9 s) and the median latency was 0.1–0.2 ms higher (bench/event-latency.mjs). The web body
 * serves every other case (`app.request()`, other runtimes, HTTP/2) with the same outbox and frames.
 */
import { ServerResponse } from 'node:http';
import type { Outbox } from './outbox.js';

/** The Node response under a hono context's `env`, when the app is served by @hono/node-server over HTTP/1. */
export function nodeResponse(env: unknown): ServerResponse | undefined {
  if (typeof env !== 'object' || env === null || !('outgoing' in env)) return undefined;
  return env.outgoing instanceof ServerResponse ? env.outgoing : undefined;
}

/**
 * Feeds `outbox` into `res`, whose head the caller has written: a chunk per `write`, the next when the
 * socket drains; the client going away (`close` before the end) is the outbox's `gone`.
 */
export function writeToResponse(outbox: Outbox, res: ServerResponse): void {
  res.on('drain', () => outbox.ready());
  res.on('close', () => outbox.gone());
  outbox.attach(
    {
      write: (chunk) => res.write(chunk),
      end: () => res.end(),
      fail: (error) => res.destroy(error instanceof Error ? error : new Error(String(error))),
    },
    true,
  );
}

/**
 * A ReadableStream fed by `outbox`: a chunk each time the reader asks for one (no high-water mark, so
 * what the reader has not asked for waits in the outbox, coalesced); the reader cancelling is `gone`.
 */
export function readableOf(outbox: Outbox): ReadableStream<Uint8Array> {
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const readable = new ReadableStream<Uint8Array>(
    {
      start: (started) => {
        controller = started;
      },
      pull: () => outbox.ready(),
      cancel: () => outbox.gone(),
    },
    { highWaterMark: 0 },
  );
  outbox.attach(
    {
      write: (chunk) => {
        controller?.enqueue(chunk);
        return false; // the next `pull` asks for more
      },
      end: () => controller?.close(),
      fail: (error) => controller?.error(error),
    },
    false,
  );
  return readable;
}
