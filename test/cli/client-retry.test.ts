/**
 * The CLI client's keyed writes against a real HTTP server on 127.0.0.1 that plays a restarting
 * service: it drops connections after reading the request, or answers 503 "stopping". `submit` and
 * `send` carry one `Idempotency-Key` per call and send the same request again with it; other
 * failures, and other routes, are not retried.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/cli/client.js';
import { RESTART_RETRY, retryDelays } from '../../src/cli/retry.js';
import { ServiceUnavailableError, UsageError } from '../../src/core/errors.js';
import { executionRecord, ID } from './fake-service.js';

const TOKEN = 'retry-test-token';
/** Short waits, so that a test that exhausts them takes a moment: 4 tries. */
const FAST = { windowMs: 100, firstDelayMs: 10, maxDelayMs: 40 };

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly key: string | undefined;
  readonly body: string;
}

/** What the server does with the n-th request (from 0): drop it, hang, or answer. */
type Act = 'drop' | 'hang' | { readonly status: number; readonly body: unknown };

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Starts the server; each request is recorded, then acted on by `act(n)`. */
async function serve(act: (n: number) => Act): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const key = request.headers['idempotency-key'];
      seen.push({ method: request.method ?? '', path: request.url ?? '', key: key as string | undefined, body });
      const what = act(seen.length - 1);
      if (what === 'drop') return void request.socket.destroy();
      if (what === 'hang') return;
      response.writeHead(what.status, { 'content-type': 'application/json' }).end(JSON.stringify(what.body));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const client = (url: string, options: { timeoutMs?: number } = {}) =>
  createClient({ url, token: { token: TOKEN, from: 'HARMFLOW_TOKEN' }, retry: FAST, ...options });

const TURN = { status: 202, body: { turn: { id: 't2', execution: ID, queued: 1 } } };
const STOPPING = {
  status: 503,
  body: { error: { name: 'ServiceUnavailableError', message: 'the service is stopping' } },
};

describe('keyed writes while the service restarts', () => {
  it('sends a message again, with the same key, when the connection drops after the request', async () => {
    const { url, seen } = await serve((n) => (n === 0 ? 'drop' : TURN));
    expect(await client(url).send(ID, 'also the changelog')).toEqual(TURN.body.turn);
    expect(seen).toHaveLength(2);
    const [first, second] = seen;
    expect(first?.key).toMatch(/^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/);
    expect(second).toEqual(first);
    expect(first).toMatchObject({ method: 'POST', path: `/api/executions/${ID}/messages` });
    expect(JSON.parse(first?.body ?? '')).toEqual({ text: 'also the changelog' });
  });

  it('submits again with the same key while the service says it is stopping', async () => {
    const created = { status: 201, body: { execution: executionRecord('queued') } };
    const { url, seen } = await serve((n) => (n < 2 ? STOPPING : created));
    expect((await client(url).submit({ name: 't', repo: '/r', prompt: 'p', harness: 'codex' })).id).toBe(ID);
    expect(seen.map((request) => request.key)).toEqual([seen[0]?.key, seen[0]?.key, seen[0]?.key]);
    expect(new Set(seen.map((request) => request.body)).size).toBe(1);
  });

  it('sends a new key with each call', async () => {
    const { url, seen } = await serve(() => TURN);
    await client(url).send(ID, 'one');
    await client(url).send(ID, 'one');
    expect(seen[0]?.key).not.toBe(seen[1]?.key);
  });

  it('gives up after the policy’s waits: exit 8, the service unreachable', async () => {
    const { url, seen } = await serve(() => 'drop');
    await expect(client(url).send(ID, 'hi')).rejects.toThrow(ServiceUnavailableError);
    expect(seen).toHaveLength(1 + retryDelays(FAST).length);
    expect(retryDelays(FAST)).toEqual([10, 20, 40]);
    expect(retryDelays(RESTART_RETRY)).toEqual([250, 500, 1000, 2000, 2000, 2000, 2000]);
  });

  it('does not retry a 503 for admission held, a timeout, or a route without a key', async () => {
    const held = await serve(() => ({
      status: 503,
      body: { error: { name: 'ServiceUnavailableError', message: 'admission is held: held by an operator: disks' } },
    }));
    await expect(client(held.url).send(ID, 'hi')).rejects.toThrow(/admission is held/);
    expect(held.seen).toHaveLength(1);

    const hanging = await serve(() => 'hang');
    await expect(client(hanging.url, { timeoutMs: 200 }).send(ID, 'hi')).rejects.toThrow(/did not answer/);
    expect(hanging.seen).toHaveLength(1);
  });

  it('names a 422 (a key reused with another request) a UsageError, exit 2', async () => {
    const { url, seen } = await serve(() => ({
      status: 422,
      body: { error: { name: 'IdempotencyKeyReusedError', message: 'Idempotency-Key "k" was sent before' } },
    }));
    await expect(client(url).send(ID, 'hi', { idempotencyKey: 'k' })).rejects.toThrow(UsageError);
    expect(seen.map((request) => request.key)).toEqual(['"k"']);
  });

  it('does not retry a write without a key (cancel)', async () => {
    const { url, seen } = await serve(() => 'drop');
    await expect(client(url).cancel(ID)).rejects.toThrow(ServiceUnavailableError);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.key).toBeUndefined();
  });
});
