/**
 * The Workbench's routes through the real app: its pages and modules are served without the token
 * (they hold no data) with a strict Content-Security-Policy, only to this service's Host and Origin;
 * nothing outside the compiled modules is served. Needs dist/web built (`npm run build`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUTH, BASE, type Fixture, openFixture, RUNNING_ID, UNKNOWN_ID } from './fixture.js';

let fixture: Fixture;
beforeEach(async () => {
  fixture = await openFixture();
});
afterEach(async () => {
  await fixture.close();
});

/** A request as a browser makes it: no Authorization header. */
const browse = (path: string, headers: Record<string, string> = {}) =>
  Promise.resolve(fixture.app.request(`${BASE}${path}`, { headers }));

describe('the Workbench routes', () => {
  it('serve each page without the token, with its module, a CSP and no execution data', async () => {
    for (const [path, module] of [
      ['/', 'executions.js'],
      ['/history', 'history.js'],
      [`/executions/${RUNNING_ID}`, 'detail.js'],
      ['/workflows', 'workflows.js'],
      [`/workflows/${RUNNING_ID}`, 'review.js'],
    ] as const) {
      const response = await browse(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await response.text();
      expect(html.startsWith('<!doctype html>')).toBe(true);
      expect(html).toContain(`<script type="module" src="/ui/dom/${module}">`);
      expect(html).not.toContain('fix-login');
    }
  });

  it('serve the compiled modules and the stylesheet, and nothing else under /ui', async () => {
    const module = await browse('/ui/dom/detail.js');
    expect(module.status).toBe(200);
    expect(module.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await module.text()).toContain('openEventStream');
    expect((await browse('/ui/style.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    for (const path of [
      '/ui/../../package.json',
      '/ui/dom/%2e%2e/%2e%2e/package.json',
      '/ui/dom/detail.ts',
      '/ui/nope.js',
    ]) {
      expect((await browse(path)).status, path).toBe(404);
    }
  });

  it('refuse a foreign Origin or Host', async () => {
    expect((await browse('/', { origin: 'http://evil.example' })).status).toBe(403);
    expect((await browse('/history', { host: 'evil.example:7878' })).status).toBe(403);
    expect((await browse('/workflows', { origin: 'http://evil.example' })).status).toBe(403);
  });

  it('answer a page that is not there with the not-found page, 404, a link back to its list', async () => {
    for (const [path, heading, back] of [
      [`/executions/${UNKNOWN_ID}`, `No execution ${UNKNOWN_ID}`, '/'],
      ['/executions/not-an-id', 'Not an execution id', '/'],
      ['/workflows/not-a-run', 'Not a workflow run id', '/workflows'],
      ['/no/such/page', 'No such page', '/'],
    ] as const) {
      const response = await browse(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy'), path).toMatch(/default-src 'none'/);
      const html = await response.text();
      expect(html, path).toContain(`<h1>${heading}</h1>`);
      expect(html, path).toContain(`<a href="${back}" id="back-link">`);
      expect(html, path).toContain('<script type="module" src="/ui/dom/not-found.js">');
    }
    // A known execution's page is served as ever; the API keeps answering JSON.
    expect((await browse(`/executions/${RUNNING_ID}`)).status).toBe(200);
    const api = await browse('/api/no-such-route', AUTH);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ error: { name: 'NotFound', message: 'no route GET /api/no-such-route' } });
    const execution = await browse(`/api/executions/${UNKNOWN_ID}`, AUTH);
    expect(execution.status).toBe(404);
    expect(((await execution.json()) as { error: { name: string } }).error.name).toBe('NotFoundError');
  });
});
