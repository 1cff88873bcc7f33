/**
 * `harmflow serve` — the session service's HTTP API on 127.0.0.1. This first part is read-only:
 * executions, their attempts and context, installed harnesses, and each execution's live event
 * stream (SSE, resumable with Last-Event-ID) — including executions that `harmflow run` is running
 * in other terminals, since they share the state directory. The token is printed once, when made.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { createApp } from '../server/app.js';
import { eventsRoute } from '../server/routes/events.js';
import { loadOrCreateToken } from '../server/token.js';
import { openHome } from './context-home.js';

/** The service's port unless `--port` says otherwise. */
export const DEFAULT_PORT = 7878;
const HOST = '127.0.0.1';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the HTTP API on 127.0.0.1 (read-only for now: executions, context, live events)')
    .option('--port <port>', 'port to listen on', String(DEFAULT_PORT))
    .option('--home <dir>', 'state directory')
    .action(async (options: { port: string; home?: string }) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`not a port: ${options.port}`);
      const { home, store } = openHome(options.home);
      const { token, created } = loadOrCreateToken(home);
      // The app checks Host against the port actually bound (`--port 0` picks a free one), so it is
      // built once the server listens; requests wait for it.
      let app: ReturnType<typeof createApp> | undefined;
      const server = serve({
        fetch: (request) => (app ? app.fetch(request) : new Response('starting', { status: 503 })),
        hostname: HOST,
        port,
      });
      await new Promise<void>((resolve, reject) => {
        server.once('listening', resolve);
        server.once('error', reject);
      });
      const bound = (server.address() as AddressInfo).port;
      app = createApp({
        home,
        store,
        token,
        port: bound,
        host: HOST,
        mount: (api) => api.route('/', eventsRoute({ home, store })),
      });
      process.stdout.write(`HarmFlow service on http://${HOST}:${bound} (state: ${home.root})\n`);
      if (created) process.stdout.write(`API token (shown once; also in ${home.root}/token): ${token}\n`);
      const stop = () => {
        server.close();
        void store.close();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
