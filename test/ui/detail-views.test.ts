/**
 * An execution's views in Chromium, against `harmflow serve` running a simulated execution:
 * claude-code runs a passing and a failing command, commits, pushes and opens a pull request, then
 * runs out of quota; codex carries on slowly and succeeds. The page names the pull request under its
 * title; the Transcript marks each tool call ok or failed; the Events are grouped by attempt, the
 * running one marked live until it ends; `Enter` keeps the opened record in view, and the rows'
 * columns line up whatever a row's mark or selection. Once the execution ended, the follow-up box
 * says that sending reopens it and asks first: "Not now" keeps the text and sends nothing, yes sends.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAEMON_TOKEN } from '../e2e/daemon.js';
import { simulated } from '../execution/fixture.js';
import { type SimulatedService, startSimulatedService } from '../tui/simulated-service.js';
import { chromiumAvailable, launchChromium } from './chromium.js';

const available = chromiumAvailable();

describe.skipIf(!available)('an execution’s views', () => {
  let service: SimulatedService;
  let browser: Browser;
  let execution: string;
  let page: Page;

  beforeAll(async () => {
    service = await startSimulatedService();
    const { bench } = service;
    const first = bench.scenario('claude', {
      pace: '100ms',
      steps: [
        { say: 'Adding the notes.' },
        { write: { path: 'NOTES.md', content: 'Notes\n' } },
        { run: 'npm test' },
        { run: 'node -e "process.exit(3)"' },
        { commit: 'Add NOTES.md' },
        { push: null },
        { pr: { title: 'Add NOTES.md', body: 'Notes.' } },
        { end: { quota: 'subscription' } },
      ],
    });
    const second = bench.scenario('codex', {
      pace: '1s',
      steps: [{ say: 'Picking up.' }, { say: 'Checking.' }, { say: 'Still checking.' }, { end: 'complete' }],
      turns: [{ when: 'One more thing', steps: [{ say: 'Done that too.' }, { end: 'complete' }] }],
    });
    execution = await service.submit({
      name: 'views',
      prompt: 'Add notes.',
      harness: simulated('claude-code', first),
      fallbacks: [simulated('codex', second)],
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${service.daemon.url}/executions/${execution}#events`);
    await page.locator('#token-input').fill(DAEMON_TOKEN);
    await page.keyboard.press('Enter');
    await page.locator('#token-dialog').waitFor({ state: 'hidden' });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  /** The groups of the timeline as their names say them, in order. */
  const groups = () =>
    page.evaluate(
      `[...document.querySelectorAll('#timeline [role="group"]')].map((g) => g.getAttribute('aria-label'))`,
    );

  it('groups the Events by attempt, the running one live, and names the pull request under the title', {
    timeout: 60_000,
  }, async () => {
    await expect
      .poll(groups, { timeout: 30_000 })
      .toEqual(['Execution', 'Attempt 1 · claude-code', 'Attempt 2 · codex, live']);
    const live = page.locator('#timeline [role="group"][data-live="true"]');
    expect(await live.locator('.group-head').textContent()).toBe('Attempt 2 · codexlive');
    expect(await live.locator('.badge-live').isVisible()).toBe(true);
    // Each row sits in its attempt's group.
    const attemptOf = (type: string) =>
      page.evaluate(
        `document.querySelector('#timeline [role="option"][data-type="${type}"]').closest('[role="group"]').getAttribute('aria-label')`,
      );
    expect(await attemptOf('quota.exhausted')).toBe('Attempt 1 · claude-code');
    expect(await attemptOf('failover')).toBe('Attempt 1 · claude-code');
    expect(await attemptOf('execution.started')).toBe('Execution');

    const link = page.locator('#pull-request-link');
    expect(await link.textContent()).toMatch(/^Pull request #\d+$/);
    expect(await link.getAttribute('href')).toMatch(/^https?:\/\/\S+\/pull\/\d+$/);

    await expect.poll(() => page.locator('#detail-status').textContent(), { timeout: 30_000 }).toMatch(/^succeeded/);
    await expect.poll(groups).toEqual(['Execution', 'Attempt 1 · claude-code', 'Attempt 2 · codex', 'Execution']);
    expect(await page.locator('#timeline .badge-live').count()).toBe(0);
  });

  it('keeps an opened record in view, and the rows’ columns in line', { timeout: 30_000 }, async () => {
    const timeline = page.locator('#timeline');
    await timeline.focus();
    await page.keyboard.press('G');
    await page.keyboard.press('Enter');
    const detail = page.locator('#timeline [role="option"][aria-selected="true"] .detail');
    await detail.waitFor();
    const box = await timeline.boundingBox();
    const shown = await detail.boundingBox();
    expect(box !== null && shown !== null).toBe(true);
    if (box !== null && shown !== null) expect(shown.y + shown.height).toBeLessThanOrEqual(box.y + box.height + 1);

    // The selected row, the switch rows and the gate rows start their columns where every other row does.
    await page.keyboard.press('g');
    await page.keyboard.press('n');
    const lefts = await page.evaluate(
      `[...document.querySelectorAll('#timeline [role="option"]:not([hidden]) .time')].map((time) => time.getBoundingClientRect().left)`,
    );
    expect(new Set(lefts as number[]).size).toBe(1);
  });

  it('marks each tool call ok or failed on the Transcript', { timeout: 30_000 }, async () => {
    await page.keyboard.press('3');
    const call = (command: string) =>
      page.locator('#transcript details').filter({ has: page.locator('summary', { hasText: command }) });
    expect(await call('npm test').getAttribute('data-result')).toBe('ok');
    expect(await call('npm test').locator('summary .badge').textContent()).toBe('ok');
    expect(await call('process.exit(3)').getAttribute('data-result')).toBe('failed');
    expect(await call('process.exit(3)').locator('summary .badge').textContent()).toMatch(/^failed/);
  });

  it('says a follow-up reopens the ended execution, and asks before sending one', { timeout: 60_000 }, async () => {
    const note = page.locator('#send-note');
    await expect.poll(() => note.isVisible()).toBe(true);
    expect(await note.textContent()).toMatch(/^This execution has ended\. Sending a follow-up reopens it/);
    const dialog = page.locator('#confirm-dialog');
    await page.locator('#send-text').fill('One more thing, please.');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await page.locator('#confirm-title').textContent()).toBe('Reopen this execution?');
    expect(await page.locator('#confirm-yes').textContent()).toBe('Send and reopen');
    expect(await page.evaluate('document.activeElement?.id')).toBe('confirm-no');
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(await page.locator('#send-text').inputValue()).toBe('One more thing, please.');
    expect(await page.locator('#send-status').textContent()).toBe('');
    expect(await service.stateOf(execution)).toBe('succeeded');

    await page.locator('#send-form button[type="submit"]').click();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator('#send-status').textContent(), { timeout: 30_000 })
      .toMatch(/^Delivered to codex/);
    await expect.poll(() => note.isVisible(), { timeout: 15_000 }).toBe(false);
  });
});
