/**
 * `POST /api/session`: exchanges the API token for the Workbench's session cookie (session-cookie.ts).
 * The app's token check has let the request in, so it carried the token (or the cookie itself, which
 * this sets again); the answer is `204` with `Set-Cookie`. The Workbench's page calls it once, when a
 * person pasted the token; every later page of that browser reads the API with the cookie.
 */
import { Hono } from 'hono';
import type { SessionCookie } from '../session-cookie.js';

export function sessionRoutes(cookie: SessionCookie): Hono {
  const app = new Hono();
  app.post('/', (c) => {
    cookie.set(c);
    return c.body(null, 204);
  });
  return app;
}
