/**
 * Getting around the Workbench in Chromium, against `harmflow serve` running a slow simulated
 * execution: the token is asked once per browser — a page opened in another tab of the same browser
 * is signed in by the session cookie — while a page of another origin on this host (the same site,
 * so the browser sends the cookie along) cannot make the service act; an execution's tabs push
 * history, so Back and Forward move between them, and a link to a tab's hash opens it; an unknown
 * execution's address answers a 404 page whose link (and `Esc`) lead back to the list.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAEMON_TOKEN } from '../e2e/daemon.js';
import { simulated } from '../execution/fixture.js';
import { type SimulatedService, startSimulatedService } from '../tui/simulated-service.js';
import { chromiumAvailable, launchChromium } from './chromium.js';

const available = chromiumAvailable();
/** A well-formed id this service never made. */
const UNKNOWN_ID = '01jf3kaaaa2m4n6p8r0s2t4v6z';

describe.skipIf(!available)('getting around the Workbench', () => {
  let service: SimulatedService;
  let browser: Browser;
  let context: BrowserContext;
  let running: string;
  /** A page of another origin on this host: another port of 127.0.0.1, the same site as the service. */
  let elsewhere: Server;

  beforeAll(async () => {
    service = await startSimulatedService();
    const slow = service.bench.scenario('slow', {
      pace: '1s',
      steps: Array.from({ length: 60 }, (_, at) => ({ say: `step ${at + 1}` })),
    });
    running = await service.submit({ name: 'slow', prompt: 'Work slowly.', harness: simulated('claude-code', slow) });
    elsewhere = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => elsewhere?.close(resolve));
    await service?.close();
  });

  const url = (path: string) => `${service.daemon.url}${path}`;

  async function detailStatus(page: Page): Promise<string | null> {
    return page.locator('#detail-status').textContent();
  }

  it('asks for the token once: another tab of the browser is signed in by the cookie', {
    timeout: 60_000,
  }, async () => {
    const first = await context.newPage();
    await first.goto(url('/'));
    await first.locator('#token-input').fill(DAEMON_TOKEN);
    await first.keyboard.press('Enter');
    await first.locator('#token-dialog').waitFor({ state: 'hidden' });
    await first.locator(`#rows tr[data-id="${running}"]`).waitFor();
    // The token is in no script's reach: not in storage, not in a cookie a script can read.
    expect(
      await first.evaluate('JSON.stringify(sessionStorage) + JSON.stringify(localStorage) + document.cookie'),
    ).toBe('{}{}');

    const port = new URL(service.daemon.url).port;
    const cookies = await context.cookies(`${service.daemon.url}/api/`);
    expect(cookies.map(({ name, path, httpOnly, sameSite }) => ({ name, path, httpOnly, sameSite }))).toEqual([
      { name: `harmflow_session_${port}`, path: '/api', httpOnly: true, sameSite: 'Strict' },
    ]);

    const second = await context.newPage();
    await second.goto(url(`/executions/${running}`));
    await expect.poll(() => detailStatus(second), { timeout: 15_000 }).toMatch(/^running on claude-code/);
    expect(await second.locator('#token-dialog').isVisible()).toBe(false);
    await first.close();
    await second.close();
  });

  it('lets no page of another origin act with the cookie', { timeout: 60_000 }, async () => {
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`);
    // A script's request and a form's: the browser sends the cookie (same site) and its own Origin.
    const cancel = url(`/api/executions/${running}/cancel`);
    await page.evaluate(
      `fetch(${JSON.stringify(cancel)}, { method: 'POST', mode: 'no-cors', credentials: 'include' })`,
    );
    await page.evaluate(
      `(() => { const form = document.createElement('form'); form.method = 'POST'; form.action = ${JSON.stringify(cancel)}; document.body.append(form); form.submit(); })()`,
    );
    await page.waitForURL(cancel);
    expect(await page.locator('body').textContent()).toMatch(/"name":"Forbidden".*cross-site request refused/);
    await page.waitForTimeout(500);
    expect(await service.stateOf(running)).toBe('running');
    await page.close();
  });

  it('moves between tabs with Back and Forward, and opens the tab a link names', { timeout: 60_000 }, async () => {
    const page = await context.newPage();
    await page.goto(url(`/executions/${running}`));
    await expect.poll(() => detailStatus(page), { timeout: 15_000 }).toMatch(/^running/);
    expect(page.url()).toBe(url(`/executions/${running}#summary`));
    const shown = () =>
      page.evaluate(`[...document.querySelectorAll('[role="tabpanel"]')].filter((p) => !p.hidden).map((p) => p.id)`);
    await page.keyboard.press('2');
    await page.keyboard.press('3');
    expect(page.url()).toBe(url(`/executions/${running}#transcript`));
    expect(await shown()).toEqual(['panel-transcript']);
    await page.goBack();
    await expect.poll(shown).toEqual(['panel-events']);
    expect(await page.locator('#tab-events').getAttribute('aria-selected')).toBe('true');
    await page.goBack();
    await expect.poll(shown).toEqual(['panel-summary']);
    await page.goForward();
    await expect.poll(shown).toEqual(['panel-events']);
    // A tab selected again pushes nothing: Back leaves the tab it was on.
    await page.keyboard.press('2');
    await page.goBack();
    await expect.poll(shown).toEqual(['panel-summary']);
    // A link to a tab's hash (here, the address bar's) opens that tab in the same page.
    await page.goto(url(`/executions/${running}#changes`));
    await expect.poll(shown).toEqual(['panel-changes']);
    expect(await page.locator('#tab-changes').getAttribute('aria-selected')).toBe('true');
    // The arrow keys on the tab list still move between tabs (the ARIA pattern), pushing history too.
    await page.locator('#tab-changes').focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(shown).toEqual(['panel-transcript']);
    expect(page.url()).toBe(url(`/executions/${running}#transcript`));
    await page.close();
  });

  it('answers an unknown execution with a page in the layout, 404, and a way back', { timeout: 60_000 }, async () => {
    const page = await context.newPage();
    const response = await page.goto(url(`/executions/${UNKNOWN_ID}`));
    expect(response?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe(`No execution ${UNKNOWN_ID}`);
    expect(await page.locator('nav[aria-label="Screens"]').isVisible()).toBe(true);
    await page.locator('#back-link').click();
    await page.waitForURL(url('/'));
    await page.locator(`#rows tr[data-id="${running}"]`).waitFor();
    // Esc follows the link back too.
    await page.goto(url('/executions/not-an-id'));
    expect(await page.locator('h1').textContent()).toBe('Not an execution id');
    await page.keyboard.press('Escape');
    await page.waitForURL(url('/'));
    await page.close();
  });
});
