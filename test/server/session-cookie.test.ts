/**
 * The Workbench's session cookie through the real app: `POST /api/session` exchanges the token for
 * it (HttpOnly, SameSite=Strict, Path=/api, no Domain, the port in its name, not the token's text);
 * the token check then accepts it in place of `Authorization` — but only as the service's own pages
 * send it: a cross-origin or cross-site request that carries it is refused, and so is a request that
 * may change something (`POST /api/stop` here) without an `Origin`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUTH, BASE, type Fixture, openFixture, PORT, TOKEN } from './fixture.js';

let fixture: Fixture;
beforeEach(async () => {
  fixture = await openFixture();
});
afterEach(async () => {
  await fixture.close();
});

const send = (path: string, init: RequestInit = {}) => Promise.resolve(fixture.app.request(`${BASE}${path}`, init));

/** The `name=value` the service sets, exchanged for the token. */
async function exchanged(): Promise<string> {
  const response = await send('/api/session', { method: 'POST', headers: AUTH });
  expect(response.status).toBe(204);
  return (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

describe('the session cookie', () => {
  it('is set for the token only, HttpOnly, SameSite=Strict, on /api, for this host and port, and is not the token', async () => {
    const refused = await send('/api/session', { method: 'POST' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('set-cookie')).toBeNull();

    const response = await send('/api/session', { method: 'POST', headers: AUTH });
    expect(response.status).toBe(204);
    const header = response.headers.get('set-cookie') ?? '';
    const [pair = '', ...attributes] = header.split(/;\s*/);
    expect(pair).toMatch(new RegExp(`^harmflow_session_${PORT}=[A-Za-z0-9_-]{43}$`));
    expect(pair).not.toContain(TOKEN);
    expect(attributes.sort()).toEqual(['HttpOnly', 'Path=/api', 'SameSite=Strict']);
    // The same token gives the same cookie (a restart with the same token keeps the browser in).
    expect(await exchanged()).toBe(pair);
  });

  it('stands for the token on the pages’ own requests', async () => {
    const cookie = await exchanged();
    expect((await send('/api/executions', { headers: { cookie } })).status).toBe(200);
    const sameOrigin = { cookie, 'sec-fetch-site': 'same-origin' };
    expect((await send('/api/executions', { headers: sameOrigin })).status).toBe(200);
    const stop = await send('/api/stop', { method: 'POST', headers: { ...sameOrigin, origin: BASE } });
    expect(stop.status).toBe(202);
    await expect.poll(() => fixture.stops.length).toBe(1);
  });

  it('is refused from another origin or site, and without an Origin on a request that changes something', async () => {
    const cookie = await exchanged();
    // A page on another site, and one on another port of this host (the same site, so the cookie goes along).
    for (const origin of ['http://evil.example', `http://127.0.0.1:${PORT + 1}`]) {
      const response = await send('/api/stop', {
        method: 'POST',
        headers: { cookie, origin, 'sec-fetch-site': 'same-site' },
      });
      expect(response.status, origin).toBe(403);
    }
    // No Origin on a POST: not what a browser's page sends; with the cookie only, it is refused.
    expect((await send('/api/stop', { method: 'POST', headers: { cookie } })).status).toBe(401);
    // A cross-site or same-site (another port) read, e.g. a <script src> of the API: refused.
    for (const site of ['same-site', 'cross-site', 'none']) {
      expect((await send('/api/executions', { headers: { cookie, 'sec-fetch-site': site } })).status, site).toBe(401);
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(fixture.stops).toHaveLength(0);
  });

  it('is refused when it is another token’s or another port’s, and never overrides a wrong Authorization', async () => {
    const cookie = await exchanged();
    const value = cookie.slice(cookie.indexOf('=') + 1);
    expect((await send('/api/executions', { headers: { cookie: `harmflow_session_${PORT}=x${value}` } })).status).toBe(
      401,
    );
    expect(
      (await send('/api/executions', { headers: { cookie: `harmflow_session_${PORT + 1}=${value}` } })).status,
    ).toBe(401);
    expect((await send('/api/executions', { headers: { cookie, authorization: 'Bearer wrong-token' } })).status).toBe(
      401,
    );
  });
});
