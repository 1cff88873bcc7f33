/**
 * The service's real app, wired as `harmflow serve` wires it (createApp with the events route
 * mounted, Host checked against the port actually bound), over the server tests' fixture
 * (test/server/fixture.ts: a temporary HARMFLOW_HOME, an in-memory store holding a running, a
 * succeeded and a queued execution), served on a free 127.0.0.1 port, for the Workbench client's
 * tests. It can cut its connections, and stop and listen again on the same port, to test reconnects.
 * `close()` stops it and removes the home.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { type EventDraft, type EventLog, openEventLog } from '../../src/events/log.js';
import { createApp } from '../../src/server/app.js';
import { eventsRoute } from '../../src/server/routes/events.js';
import { openFixture, TOKEN } from '../server/fixture.js';

export { DONE_ID, QUEUED_ID, RUNNING_ID, TOKEN, UNKNOWN_ID } from '../server/fixture.js';

export interface ServedApp {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Opens the `events.jsonl` of `execution` for appending (closed by `close()`). */
  eventLog(execution: string): EventLog;
  /** How many requests are being answered: an event stream's lasts until it ends or its client goes away. */
  answering(): number;
  /** Destroys every open connection, as a network failure would; the server goes on listening. */
  dropConnections(): void;
  /** Stops listening and destroys every open connection. */
  stop(): Promise<void>;
  /** Listens again, on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** A warning record saying `message`. */
export const warning = (message: string): EventDraft => ({ source: 'executor', type: 'warning', data: { message } });

/** The `execution.ended` record of a succeeded execution. */
export const ended: EventDraft = {
  source: 'executor',
  type: 'execution.ended',
  data: { state: 'succeeded', attempts: 1, durationMs: 1 },
};

/** Serves the fixture's app; `heartbeatMs` shortens the stream's heartbeat. */
export async function serveApp(options: { readonly heartbeatMs?: number } = {}): Promise<ServedApp> {
  const fixture = await openFixture();
  const { home, store } = fixture;
  const sockets = new Set<Socket>();
  const responses = new Set<ServerResponse>();
  const logs: EventLog[] = [];
  let app: ReturnType<typeof createApp> | undefined;
  let server: Server | undefined;

  const listen = async (port: number): Promise<number> => {
    const started = serve({
      fetch: (request, env) => (app ? app.fetch(request, env) : new Response('starting', { status: 503 })),
      hostname: '127.0.0.1',
      port,
    }) as Server;
    started.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    started.on('request', (_request: IncomingMessage, response: ServerResponse) => {
      responses.add(response);
      response.once('close', () => responses.delete(response));
    });
    await new Promise<void>((resolve, reject) => {
      started.once('listening', resolve);
      started.once('error', reject);
    });
    server = started;
    return (started.address() as AddressInfo).port;
  };
  const dropConnections = (): void => {
    for (const socket of sockets) socket.destroy();
  };
  const stop = async (): Promise<void> => {
    const stopping = server;
    server = undefined;
    if (stopping === undefined) return;
    const closed = new Promise<void>((resolve) => stopping.close(() => resolve()));
    dropConnections();
    await closed;
  };

  const port = await listen(0);
  app = createApp({
    home,
    store,
    registry: fixture.registry,
    admission: fixture.admission,
    stop: () => {},
    token: TOKEN,
    port,
    mount: (api) =>
      api.route(
        '/',
        eventsRoute({ home, store, ...(options.heartbeatMs !== undefined && { heartbeatMs: options.heartbeatMs }) }),
      ),
  });
  return {
    url: `http://127.0.0.1:${port}`,
    eventLog: (execution) => {
      const log = openEventLog(home.eventsFile(execution), { execution });
      logs.push(log);
      return log;
    },
    answering: () => responses.size,
    dropConnections,
    stop,
    start: async () => {
      await listen(port);
    },
    close: async () => {
      await stop();
      for (const log of logs) log.close();
      await fixture.close();
    },
  };
}
