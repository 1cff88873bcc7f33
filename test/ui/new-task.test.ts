/**
 * The New task form in Chromium, against `harmflow serve` on a bench's repository: `c` (listed in the
 * `?` overlay) opens it; filling the form writes the YAML view, and two broken fields show both
 * problems at once, each beside its field, Enter refusing to submit; a refusal by the service is one
 * line and keeps the form; the YAML view, edited, refills the form (keeping what the form has no
 * input for, the simulated link); Submit, clicked twice, makes one execution and opens its page; Esc
 * on a written form asks first.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DAEMON_TOKEN } from '../e2e/daemon.js';
import { simulated } from '../execution/fixture.js';
import { type SimulatedService, startSimulatedService } from '../tui/simulated-service.js';
import { chromiumAvailable, launchChromium } from './chromium.js';

const available = chromiumAvailable();

describe.skipIf(!available)('the New task form', () => {
  let service: SimulatedService;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    service = await startSimulatedService();
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${service.daemon.url}/`);
    await page.locator('#token-input').fill(DAEMON_TOKEN);
    await page.keyboard.press('Enter');
    await page.locator('#token-dialog').waitFor({ state: 'hidden' });
    await page.locator('#summary').filter({ hasText: 'live execution' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  const yaml = () => page.locator('#task-yaml').inputValue();
  const problem = (field: string) => page.locator(`#task-${field}-problem`).textContent();

  it('opens on c, listed in the shortcuts', { timeout: 30_000 }, async () => {
    await page.keyboard.press('?');
    expect(await page.locator('#help-body').textContent()).toContain('New task: write one and submit it');
    await page.keyboard.press('Escape');
    await page.keyboard.press('c');
    await page.locator('#new-task-dialog').waitFor();
    expect(await page.evaluate('document.activeElement.id')).toBe('task-prompt');
    await expect.poll(yaml).toBe('harness: claude-code\n');
    // A blank form opens on no list of what it lacks: a field's problem shows once it is edited.
    expect(await page.locator('#new-task-dialog [aria-invalid]').count()).toBe(0);
  });

  it('writes the YAML as the form is filled, and shows every problem beside its field', {
    timeout: 30_000,
  }, async () => {
    await page.keyboard.type('Fix the date parsing.');
    await page.keyboard.press('Tab');
    await page.keyboard.type('fix dates!');
    await page.locator('#task-repo').fill(service.bench.repo);
    await page.locator('#task-baseRef').fill('main');
    await page.locator('#task-chain-add').click();
    await page.locator('#task-timeout').fill('5 minutes');
    await expect
      .poll(yaml)
      .toBe(
        `name: fix dates!\nrepo: ${service.bench.repo}\nbaseRef: main\nprompt: Fix the date parsing.\nharness: claude-code\nfallbacks:\n  - codex\ntimeout: 5 minutes\n`,
      );
    await expect.poll(() => problem('timeout')).toBe('not a duration (examples: 45m, 1h30m, 90s, 600)');
    expect(await problem('name')).toBe('use letters, digits, ".", "_" or "-" (at most 64)');
    expect(await page.locator('#task-timeout').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#task-name').getAttribute('aria-describedby')).toContain('task-name-problem');

    // Enter submits; with problems it says how many and goes to the first.
    await page.locator('#task-timeout').press('Enter');
    await expect.poll(() => page.locator('#task-status').textContent()).toBe('2 problems to fix before submitting.');
    expect(await page.evaluate('document.activeElement.id')).toBe('task-name');
    expect(await service.daemon.api('GET', '/api/executions')).toMatchObject({ body: { executions: [] } });
  });

  it('says a refusal in one line and keeps the form', { timeout: 30_000 }, async () => {
    await page.locator('#task-name').fill('fix-dates');
    await page.locator('#task-timeout').fill('5m');
    await expect.poll(() => problem('timeout')).toBe('');
    // A base ref the repository lacks (and, here, a claude-code not installed): the service refuses
    // the task in one line, and nothing is lost.
    await page.locator('#task-baseRef').fill('no-such-branch');
    await page.locator('#task-submit').click();
    await expect.poll(() => page.locator('#task-status').textContent()).toMatch(/^Not submitted: [^\n]+$/);
    expect(await page.locator('#task-baseRef').inputValue()).toBe('no-such-branch');
    expect(await page.locator('#task-prompt').inputValue()).toBe('Fix the date parsing.');
    expect(await yaml()).toContain('timeout: 5m\n');
  });

  it('refills the form from the YAML, submits once on a double click, and opens the execution', {
    timeout: 60_000,
  }, async () => {
    const scenario = service.bench.scenario('quick', {
      pace: '200ms',
      steps: [{ say: 'working' }, { end: 'complete' }],
    });
    const task = {
      name: 'from-yaml',
      repo: service.bench.repo,
      baseRef: 'main',
      prompt: 'Say you are working.',
      harness: { ...simulated('claude-code', scenario), model: 'opus' },
      timeout: '10m',
    };
    await page.locator('#task-yaml').fill('name: [broken');
    await expect.poll(() => page.locator('#task-yaml-problems').textContent()).toMatch(/^line 1: not valid YAML/);
    expect(await page.locator('#task-name').inputValue()).toBe('fix-dates');
    await page.locator('#task-yaml').fill(stringify(task));
    await expect.poll(() => page.locator('#task-name').inputValue()).toBe('from-yaml');
    expect(await page.locator('#task-yaml-problems').textContent()).toBe('');
    expect(await page.locator('#task-chain li').count()).toBe(1);
    expect(await page.locator('#task-chain-0-model').inputValue()).toBe('opus');
    // An edit of the form keeps what only the YAML holds (the link's simulate and passEnv).
    await page.locator('#task-timeout').fill('15m');
    await expect.poll(yaml).toContain('timeout: 15m');
    expect(await yaml()).toContain(`simulate: ${scenario}`);

    await page.locator('#task-submit').dblclick();
    await page.waitForURL(/\/executions\/[0-9a-z]{26}/);
    const id = page.url().split('/executions/')[1]?.split('#')[0] ?? '';
    await expect.poll(() => page.locator('#detail-status').textContent(), { timeout: 15_000 }).toMatch(/claude-code/);
    const listed = (await service.daemon.api('GET', '/api/executions')).body as { executions: { id: string }[] };
    expect(listed.executions.map((execution) => execution.id)).toEqual([id]);
  });

  it('asks before Esc throws a written form away', { timeout: 30_000 }, async () => {
    await page.goto(`${service.daemon.url}/`);
    await page.locator('#new-task-button').click();
    await page.locator('#task-prompt').fill('Something worth keeping.');
    await page.keyboard.press('Escape');
    await page.locator('#confirm-dialog').waitFor();
    expect(await page.locator('#confirm-title').textContent()).toBe('Discard this task?');
    await page.keyboard.press('Escape');
    await page.locator('#confirm-dialog').waitFor({ state: 'hidden' });
    expect(await page.locator('#new-task-dialog').isVisible()).toBe(true);
    expect(await page.locator('#task-prompt').inputValue()).toBe('Something worth keeping.');
    await page.locator('#task-close').click();
    await page.locator('#confirm-yes').click();
    await page.locator('#new-task-dialog').waitFor({ state: 'hidden' });
    // Unwritten, Esc closes at once.
    await page.keyboard.press('c');
    await page.locator('#new-task-dialog').waitFor();
    expect(await page.locator('#task-prompt').inputValue()).toBe('');
    await page.keyboard.press('Escape');
    await page.locator('#new-task-dialog').waitFor({ state: 'hidden' });
  });
});
