/**
 * The Workflows screen and a run's Review page in a real browser, through the statements story
 * (examples/statements/): the first run crashes in fact-check, the resume with the fix sends the
 * 1,815 statements the review rule lets through and waits on the 185 the fix changed. `harmflow
 * serve` runs over that state directory; Chromium opens the Workflows screen, opens the run by
 * keyboard, and the reviewer — name typed once — rejects one statement with a note (`r`), approves
 * all the others (`A`, after the page asks) and resumes the run (`P`, after the page asks). The
 * service's resume sends the 184 approved: 1,999 statements in the outbox, each once, and the
 * rejected one is not sent and stays rejected, with its note, until a fix changes it. Screenshots
 * go to a temporary folder, or to docs/screenshots/ with HARMFLOW_UPDATE_SCREENSHOTS=1; each
 * screen's outline is held to the committed screenshot's (screenshots.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sentKeys } from '../../examples/statements/mailer.mjs';
import { spawnHarmflow } from '../cli/spawn-harmflow.js';
import { DAEMON_TOKEN, type Daemon, startDaemon } from '../e2e/daemon.js';
import { chromiumAvailable, launchChromium } from './chromium.js';
import { keepScreenshot } from './screenshots.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/statements/', import.meta.url));
const REVIEWER = 'Dana Reyes';
const NOTE = 'The refund line reads as a charge: hold it for finance.';

const available = chromiumAvailable();

interface Review {
  waiting: { key: string }[];
  approved: { key: string; by: string; at: string }[];
  rejected: { key: string; error: string; at: string }[];
}

describe.skipIf(!available)('the Workflows screen and the Review page in Chromium', () => {
  let dir: string;
  let home: string;
  let outbox: string;
  let env: NodeJS.ProcessEnv;
  let run: string;
  let daemon: Daemon;
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'harmflow-review-'));
    home = join(dir, 'home');
    outbox = join(dir, 'outbox.jsonl');
    env = { ...process.env, STATEMENTS_OUTBOX: outbox, HARMFLOW_HOME: home };
    const first = await spawnHarmflow(['workflow', 'run', join(EXAMPLE, 'first.mjs'), '--json'], { env });
    expect(first.code, first.stderr).toBe(10);
    run = (JSON.parse(first.stdout) as { id: string }).id;
    const fixed = await spawnHarmflow(['workflow', 'resume', run, '--file', join(EXAMPLE, 'fixed.mjs')], { env });
    expect(fixed.code, fixed.stderr).toBe(13);
    expect(sentKeys(outbox)).toHaveLength(1815);
    daemon = await startDaemon(home, [], env);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await daemon?.kill('SIGTERM');
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  async function signedIn(path: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${daemon.url}${path}`);
    await page.locator('#token-input').fill(DAEMON_TOKEN);
    await page.keyboard.press('Enter');
    await page.locator('#token-dialog').waitFor({ state: 'hidden' });
    return page;
  }

  async function reviewOf(): Promise<Review> {
    const answer = await daemon.api('GET', `/api/workflows/runs/${run}/reviews`);
    expect(answer.status).toBe(200);
    return answer.body as Review;
  }

  it('reviews the 185 changed statements from the keyboard, and the resume sends 1,999', {
    timeout: 180_000,
  }, async () => {
    const page = await signedIn('/workflows');
    const row = page.locator(`#rows tr[data-id="${run}"]`);
    await expect.poll(() => row.locator('td.state').textContent(), { timeout: 15_000 }).toBe('waiting');
    expect(await row.textContent()).toMatch(/185 item\(s\) await review/);
    // Spent in all: the fact-check retries on 529 reported no tokens, so the total is a floor.
    expect(await row.locator('td[data-label="Spent"]').textContent()).toMatch(/^≥ \$\d+\.\d\d$/);
    await keepScreenshot(page, 'workflows.png');
    await page.keyboard.press('j');
    await expect.poll(() => row.getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/workflows/${run}`);

    // The 185, each a diff with its cause.
    const title = page.locator('#waiting-title');
    await expect.poll(() => title.textContent(), { timeout: 30_000 }).toBe('Waiting for review: 185');
    const items = page.locator('#waiting [role="option"]');
    expect(await items.count()).toBe(185);
    await expect.poll(() => items.first().locator('.because').textContent()).toMatch(/^because: .+ ← .+/);
    expect(await items.first().locator('pre.diff .add').count()).toBeGreaterThan(0);
    // categorise ran in both drives (v1, then the fix's v2): 2 × 1,200 batches, as the two plans said.
    const categorise = page.locator('#rows tr', { hasText: 'categorise' });
    await expect
      .poll(() => categorise.locator('td[data-label="Spent"]').textContent())
      .toBe('$72.00 of $72.00 planned');
    await page.locator('#reviewer').fill(REVIEWER);
    await page.locator('#reviewer').press('Tab');
    await keepScreenshot(page, 'review.png');

    // `j` twice, `r`: the third item is rejected, with a note.
    await page.locator('#waiting').focus();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    const chosen = page.locator('#waiting [role="option"][aria-selected="true"]');
    const rejected = (await chosen.getAttribute('data-key')) as string;
    expect(rejected).toBe(await items.nth(2).getAttribute('data-key'));
    await page.keyboard.press('r');
    await expect.poll(() => page.locator('#note-dialog').isVisible()).toBe(true);
    await page.locator('#note-input').fill(NOTE);
    await page.locator('#note-yes').click();
    await expect.poll(() => title.textContent(), { timeout: 15_000 }).toBe('Waiting for review: 184');
    const decidedRejection = page.locator(`#decided li.rejected[data-key="${rejected}"]`);
    await expect.poll(() => decidedRejection.textContent()).toContain(NOTE);

    // `A` asks, then approves the other 184 in the reviewer's name.
    await page.keyboard.press('A');
    await expect.poll(() => page.locator('#confirm-dialog').isVisible()).toBe(true);
    expect(await page.locator('#confirm-yes').textContent()).toBe('Approve 184');
    await page.locator('#confirm-yes').click();
    await expect.poll(() => title.textContent(), { timeout: 30_000 }).toBe('Waiting for review: 0');
    await expect
      .poll(() => page.locator('#decided details.approved summary').textContent())
      .toMatch(/^184 approved by Dana Reyes, the last at /);
    const decided = await reviewOf();
    expect(decided.waiting).toHaveLength(0);
    expect(decided.approved).toHaveLength(184);
    expect(new Set(decided.approved.map((item) => item.by))).toEqual(new Set([REVIEWER]));
    expect(decided.approved.map((item) => item.key)).not.toContain(rejected);
    expect(decided.rejected).toEqual([
      { step: 'review', key: rejected, error: `rejected by ${REVIEWER}: ${NOTE}`, at: expect.any(String) },
    ]);
    for (const at of [...decided.approved, ...decided.rejected].map((item) => item.at)) {
      expect(Date.now() - Date.parse(at)).toBeLessThan(120_000);
    }

    // `P` asks, then the service resumes the run: the 184 go out, the rejected one does not.
    await page.keyboard.press('P');
    await expect.poll(() => page.locator('#confirm-dialog').isVisible()).toBe(true);
    await page.locator('#confirm-yes').click();
    await expect
      .poll(
        async () =>
          ((await daemon.api('GET', `/api/workflows/runs/${run}`)).body as { run: { state: string } }).run.state,
        {
          timeout: 60_000,
          interval: 500,
        },
      )
      .toBe('failed');
    const sent = sentKeys(outbox);
    expect(sent).toHaveLength(1999);
    expect(new Set(sent).size).toBe(1999);
    expect(sent).not.toContain(`statement:${rejected}:2026-10`);
    const after = await reviewOf();
    expect(after.waiting).toHaveLength(0);
    expect(after.rejected.map((item) => item.key)).toEqual([rejected]);
    await expect
      .poll(() => page.locator('#run-status').textContent(), { timeout: 15_000 })
      .toMatch(/^failed — .*rejected by Dana Reyes/);
    await keepScreenshot(page, 'review-resumed.png');
    await page.close();
  });

  it('refuses a decision on what the reviewer was not shown, and a rejection without a note', async () => {
    const stale = await daemon.api('POST', `/api/workflows/runs/${run}/reviews`, {
      by: REVIEWER,
      approve: [{ key: 'c-0001', fingerprint: '0'.repeat(64) }],
    });
    expect(stale.status).toBe(409);
    const noNote = await daemon.api('POST', `/api/workflows/runs/${run}/reviews`, {
      by: REVIEWER,
      reject: [{ key: 'c-0001', fingerprint: '0'.repeat(64) }],
    });
    expect(noNote.status).toBe(400);
    expect((noNote.body as { error: { message: string } }).error.message).toMatch(/a rejection needs a note/);
    const unknown = await daemon.api('GET', '/api/workflows/runs/01m8xkjfg321d0szyg2jga5cf6');
    expect(unknown.status).toBe(404);
  });
});
