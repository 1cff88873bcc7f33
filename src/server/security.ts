/**
 * The service's guards, as hono middleware. Each refuses by throwing an `HttpError`, which the app's
 * `onError` renders as JSON. Order in the app: `requireLocalHost`, `requireLocalOrigin` (every path),
 * then `requireToken` and `limitBody` (`/api/*`), then `requireExecutionId` (paths with an id).
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { UsageError } from '../core/errors.js';
import { isExecutionId } from '../core/execution-id-shape.js';
import { httpError } from './errors.js';
import type { SessionCookie } from './session-cookie.js';
import { tokensEqual } from './token.js';

/**
 * 64 KiB: the largest body the API takes is a task or a follow-up message, whose prompt is text a
 * person wrote (64 KiB is ~16k tokens; larger inputs belong in files in the repository). The limit
 * bounds what one request can make the service buffer before zod parses it.
 */
export const MAX_BODY_BYTES = 64 * 1024;

/** Where the service listens: the port, and the bind host when it is not a loopback name. */
export interface Listen {
  readonly port: number;
  readonly host?: string;
}

/** The `Host` values the service answers to: the loopback names and the bind host, with the port. */
export function allowedHosts({ port, host }: Listen): ReadonlySet<string> {
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  if (host !== undefined) names.push(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
  return new Set(names.map((name) => `${name.toLowerCase()}:${port}`));
}

/**
 * Refuses (403) a request whose `Host` is not one of `allowedHosts`: a page on another site whose
 * name was rebound to 127.0.0.1 (DNS rebinding) still sends its own name as `Host`.
 */
export function requireLocalHost(listen: Listen): MiddlewareHandler {
  const allowed = allowedHosts(listen);
  return async (c, next) => {
    const host = (c.req.header('host') ?? new URL(c.req.url).host).toLowerCase();
    if (!allowed.has(host)) throw httpError(403, `Host "${host}" is not this service (DNS rebinding refused)`);
    await next();
  };
}

/**
 * Refuses (403) a request that carries an `Origin` other than the service's own (`http://` + an
 * allowed host): browsers send `Origin` on cross-site requests, so this stops CSRF. Requests without
 * `Origin` (the CLI, curl, same-origin GETs) pass.
 */
export function requireLocalOrigin(listen: Listen): MiddlewareHandler {
  const allowed = new Set([...allowedHosts(listen)].map((host) => `http://${host}`));
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && !allowed.has(origin.toLowerCase())) {
      throw httpError(403, `Origin "${origin}" is not this service (cross-site request refused)`);
    }
    await next();
  };
}

/**
 * Refuses (401) a request without `Authorization: Bearer <token>` carrying `token` — unless it has no
 * `Authorization` and `cookie` accepts it (the Workbench's session cookie, from its own pages).
 */
export function requireToken(token: string, cookie?: SessionCookie): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header('authorization');
    if (header === undefined && cookie?.accepts(c)) return next();
    if (header === undefined) throw httpError(401, 'missing Authorization: Bearer <token> (see HARMFLOW_TOKEN)');
    const given = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (given === undefined || !tokensEqual(given, token)) throw httpError(401, 'wrong API token');
    await next();
  };
}

/** Refuses (413) a request body over `MAX_BODY_BYTES`, whether or not it declares its length. */
export function limitBody(maxBytes: number = MAX_BODY_BYTES): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw httpError(413, `request body over ${maxBytes} bytes`);
    },
  });
}

/** Refuses (400 `UsageError`) a path whose `:id` is not an execution id, before any handler builds a path from it. */
export function requireExecutionId(): MiddlewareHandler {
  return async (c, next) => {
    const id = c.req.param('id');
    if (id === undefined || !isExecutionId(id)) {
      throw new UsageError(
        `not an execution id: ${JSON.stringify((id ?? '').slice(0, 64))} (26 lower-case ULID characters)`,
      );
    }
    await next();
  };
}
