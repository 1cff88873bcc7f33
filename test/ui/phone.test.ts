/**
 * The Workbench on a phone, 390×844 (an iPhone 12–15) in Chromium: on every screen — the Executions
 * list with a waiting execution (its state and the wait it is in), History, and an execution's tabs —
 * no label or state breaks inside a word (test/ui/word-breaks.ts), and nothing scrolls sideways.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAEMON_TOKEN } from '../e2e/daemon.js';
import { simulated } from '../execution/fixture.js';
import { type SimulatedService, startSimulatedService } from '../tui/simulated-service.js';
import { chromiumAvailable, launchChromium } from './chromium.js';
import { BROKEN_WORDS } from './word-breaks.js';

const PHONE = { width: 390, height: 844 } as const;

/** Resolves once `id` is in `state` (within 30 s: each of these runs takes a second or two). */
async function reached(service: SimulatedService, id: string, state: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await service.stateOf(id)) !== state) {
    if (Date.now() > deadline) throw new Error(`${id} is not ${state} after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
const available = chromiumAvailable();

describe.skipIf(!available)('the Workbench on a 390×844 phone', () => {
  let service: SimulatedService;
  let browser: Browser;
  let waiting: string;
  let done: string;

  beforeAll(async () => {
    service = await startSimulatedService();
    const { bench } = service;
    waiting = await service.submit({
      name: 'waits-for-claude-code',
      prompt: 'Say something.',
      harness: simulated('claude-code', bench.scenario('out', { steps: [{ end: { quota: { resetsIn: '1h' } } }] })),
      waitForReset: true,
      timeout: '2h',
    });
    done = await service.submit({
      name: 'notes',
      prompt: 'Add notes.',
      harness: simulated(
        'claude-code',
        bench.scenario('notes', {
          steps: [
            { say: 'Adding the notes.' },
            { write: { path: 'NOTES.md', content: 'Notes\n' } },
            { run: 'npm test' },
            { commit: 'Add NOTES.md' },
            { end: 'complete' },
          ],
        }),
      ),
    });
    await reached(service, waiting, 'waiting');
    await reached(service, done, 'succeeded');
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  /** A phone-sized page, signed in, at `path`. */
  async function phonePage(path: string): Promise<Page> {
    const page = await browser.newPage({ viewport: PHONE });
    await page.goto(`${service.daemon.url}${path}`);
    await page.locator('#token-input').fill(DAEMON_TOKEN);
    await page.keyboard.press('Enter');
    await page.locator('#token-dialog').waitFor({ state: 'hidden' });
    return page;
  }

  async function expectWholeWords(page: Page, screen: string): Promise<void> {
    expect(await page.evaluate(BROKEN_WORDS), screen).toEqual([]);
    expect(await page.evaluate('document.documentElement.scrollWidth'), screen).toBeLessThanOrEqual(PHONE.width);
  }

  it('breaks no label or state inside a word on the lists', { timeout: 60_000 }, async () => {
    const page = await phonePage('/');
    await expect
      .poll(() => page.locator(`#rows tr[data-id="${waiting}"] td.state`).textContent(), { timeout: 15_000 })
      .toMatch(/^waitingfor claude-code/);
    await expectWholeWords(page, 'Executions');
    await page.goto(`${service.daemon.url}/history`);
    await page.locator(`#rows tr[data-id="${done}"]`).waitFor();
    await expectWholeWords(page, 'History');
    await page.close();
  });

  it('breaks no label or state inside a word on an execution’s tabs', { timeout: 60_000 }, async () => {
    for (const id of [waiting, done]) {
      const page = await phonePage(`/executions/${id}`);
      await expect.poll(() => page.locator('#summary-body').textContent(), { timeout: 15_000 }).toMatch(/Chain/);
      await expectWholeWords(page, `${id} Summary`);
      for (const [key, tab] of [
        ['2', 'Events'],
        ['3', 'Transcript'],
        ['4', 'Changes'],
      ] as const) {
        await page.keyboard.press(key);
        await page.waitForTimeout(300);
        await expectWholeWords(page, `${id} ${tab}`);
      }
      await page.close();
    }
  });
});
