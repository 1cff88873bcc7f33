/**
 * The Workbench's routes through the real app: its pages and modules are served without the token
 * (they hold no data) with a strict Content-Security-Policy, only to this service's Host and Origin;
 * nothing outside the compiled modules is served. Needs dist/web built (`npm run build`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BASE, type Fixture, openFixture, RUNNING_ID } from './fixture.js';

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

  it('refuse a foreign Origin or Host, and an id that is not one', async () => {
    expect((await browse('/', { origin: 'http://evil.example' })).status).toBe(403);
    expect((await browse('/history', { host: 'evil.example:7878' })).status).toBe(403);
    expect((await browse('/executions/not-an-id')).status).toBe(404);
    expect((await browse('/workflows/not-a-run')).status).toBe(404);
    expect((await browse('/workflows', { origin: 'http://evil.example' })).status).toBe(403);
  });
});
