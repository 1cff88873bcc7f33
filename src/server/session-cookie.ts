/**
 * The Workbench's session cookie: what a browser holds in place of the API token, so that a page
 * opened in a new tab needs no token. `POST /api/session` (routes/session.ts), sent with the bearer
 * token, sets it:
 *
 *     harmflow_session_<port>=<value>; Path=/api; HttpOnly; SameSite=Strict
 *
 * No `Domain` (this host only) and `Path=/api` (only the API's requests carry it, never a page's);
 * no `Max-Age`, so it ends with the browser's session; `HttpOnly`, so no script reads it; the port in
 * its name, because cookies do not tell ports apart and two services on one host would otherwise
 * overwrite each other's. Its value is derived from the token — HMAC-SHA256 keyed with the token over
 * `COOKIE_LABEL`, base64url — so the token itself never lands in the browser's cookie store, and a
 * service started with another token refuses the cookie of the last one (the page asks again).
 *
 * `accepts` is half of the app's auth check (security.ts requireToken): the cookie stands for the
 * token only on a request from the service's own pages. SameSite=Strict alone would not make it so:
 * a page on another port of this host is the same site, and its requests carry the cookie. So
 * `Sec-Fetch-Site`, which browsers send, must say `same-origin` when present, and a request that may
 * change something (any method but GET and HEAD) must carry an `Origin` — which requireLocalOrigin,
 * run before, has checked is this service's. Immutable; one per app.
 */
import { createHmac } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { tokensEqual } from './token.js';

/** What the cookie's value is an HMAC of: fixed, so the value is the same for the same token. */
const COOKIE_LABEL = 'harmflow workbench session';

/** The methods that change nothing: the only ones a cookie may send without an `Origin`. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

export class SessionCookie {
  readonly name: string;
  readonly #value: string;

  constructor(token: string, port: number) {
    this.name = `harmflow_session_${port}`;
    this.#value = createHmac('sha256', token).update(COOKIE_LABEL).digest('base64url');
  }

  /** Sets the cookie on the answer `c` builds. */
  set(c: Context): void {
    setCookie(c, this.name, this.#value, { path: '/api', httpOnly: true, sameSite: 'Strict' });
  }

  /** True when `c` carries this cookie, sent by one of the service's own pages (see the file comment). */
  accepts(c: Context): boolean {
    const given = getCookie(c, this.name);
    if (given === undefined || !tokensEqual(given, this.#value)) return false;
    const site = c.req.header('sec-fetch-site');
    if (site !== undefined && site !== 'same-origin') return false;
    return SAFE_METHODS.has(c.req.method) || c.req.header('origin') !== undefined;
  }
}
