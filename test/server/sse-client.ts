/** Test helpers for the event stream: a loopback server and a streaming SSE frame reader. */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';

/** One SSE frame as received: its fields, or the text of a comment line. */
export interface SseFrame {
  readonly event?: string;
  readonly id?: string;
  readonly data?: string;
  readonly comment?: string;
}

/** Serves `app` on 127.0.0.1 on a free port; `close` ends every connection and the server. */
export async function listen(app: Hono): Promise<{ url: string; close: () => Promise<void> }> {
  let server: ReturnType<typeof serve> | undefined;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => resolve(info.port));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        if (server === undefined) return resolve();
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Yields the frames of an SSE response body as they arrive; returns when the server ends it. */
export async function* sseFrames(response: Response): AsyncGenerator<SseFrame, void, undefined> {
  if (response.body === null) throw new Error('response has no body');
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of response.body) {
    text += decoder.decode(chunk as Uint8Array, { stream: true });
    for (let end = text.indexOf('\n\n'); end !== -1; end = text.indexOf('\n\n')) {
      yield parseFrame(text.slice(0, end));
      text = text.slice(end + 2);
    }
  }
}

function parseFrame(block: string): SseFrame {
  const frame: Record<string, string> = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim();
    const colon = line.indexOf(': ');
    if (colon > 0) frame[line.slice(0, colon)] = line.slice(colon + 2);
  }
  return frame;
}
