/**
 * A fake of the session service's API for the CLI's service verbs: a hono app on 127.0.0.1 (a free
 * port) that checks the bearer token like the real one, records every request, and answers each
 * route from a script the test sets (`answer`). Unscripted routes are 404 NotFound, as on the real
 * service. `close()` is idempotent and also releases requests held by `hang`.
 */

import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { ExecutionState } from '../../src/core/outcome.js';
import type { ExecutionRecord } from '../../src/store/store.js';
import { executionRecord as storedRecord } from '../server/fixture.js';

export const TOKEN = 'fake-service-token-0123456789';
export const ID = '01jf3k9x7q2m4n6p8r0s2t4v6w';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  /** The parsed JSON body; undefined when there was none. */
  readonly body: unknown;
}

/** One scripted answer: a status and a JSON body, or `hang` (never answers until close). */
export type Answer = { readonly status: number; readonly body: unknown } | 'hang';

export interface FakeService {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Scripts `METHOD path`: the answers are given in order; the last one repeats. */
  answer(route: string, ...answers: Answer[]): void;
  close(): Promise<void>;
}

/** An execution record in `state`, as the service would send it (one attempt). */
export function executionRecord(state: ExecutionState, id: string = ID): ExecutionRecord {
  return { ...storedRecord(id, state), taskId: `${id}-task`, attemptCount: 1 };
}

/** An API error body. */
export function apiError(status: number, name: string, message: string): Answer {
  return { status, body: { error: { name, message } } };
}

export async function startFakeService(): Promise<FakeService> {
  const requests: RecordedRequest[] = [];
  const scripts = new Map<string, Answer[]>();
  let release: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    release = resolve;
  });

  const app = new Hono();
  app.all('*', async (c) => {
    const text = await c.req.text();
    const authorization = c.req.header('authorization');
    requests.push({
      method: c.req.method,
      path: c.req.path,
      authorization,
      body: text === '' ? undefined : JSON.parse(text),
    });
    if (authorization !== `Bearer ${TOKEN}`) {
      return c.json({ error: { name: 'Unauthorized', message: 'wrong API token' } }, 401);
    }
    const route = `${c.req.method} ${c.req.path}`;
    const script = scripts.get(route);
    const answer = script && (script.length > 1 ? script.shift() : script[0]);
    if (answer === undefined) return c.json({ error: { name: 'NotFound', message: `no route ${route}` } }, 404);
    if (answer === 'hang') {
      await closed;
      return c.body(null, 503);
    }
    return new Response(JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'content-type': 'application/json' },
    });
  });

  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer(route, ...answers) {
      scripts.set(route, answers);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        release();
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** A URL where nothing listens: a port just bound and released. */
export async function deadUrl(): Promise<string> {
  const fake = await startFakeService();
  await fake.close();
  return fake.url;
}
