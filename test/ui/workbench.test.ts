/**
 * The Workbench in a real browser: `harmflow serve` as a child process runs a simulated execution
 * whose chain is claude-code (out of quota after some work) then codex; Chromium opens the
 * Executions screen, selects the running execution by keyboard, steps through its Events to the
 * quota event and the switch and reads the harness names there, sends a follow-up from the
 * Transcript and sees it delivered, checks the `?` overlay, finds the execution on History once it
 * ended — its Summary naming the harness session each attempt ran in and the one a follow-up resumes —,
 * and runs at 375 px. A second execution runs out of quota on its only harness and waits for
 * the reset: its row and its detail say for which harness and until when, and "Resume now", after
 * the page asks, carries it on to success; once it ended, `C` asks nothing. A third, while it runs,
 * opens its follow-up box with `m` and is asked about (not) canceling with `C`, then is switched by
 * hand from its page to codex, after the page asks which harness. A fourth reports its plan's "Open a
 * pull request" completed without opening one, after a commit that failed: its Summary marks the item
 * `⚠ unconfirmed` with the sentence, and shows the end's warning. Screenshots of each screen go to
 * a temporary folder, or to docs/screenshots/ with HARMFLOW_UPDATE_SCREENSHOTS=1 (how the
 * committed ones were taken); each screen's outline is held to the committed screenshot's
 * (screenshots.ts), so a screen that changed without its screenshot fails here.
 */
import { delimiter } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAEMON_TOKEN, type Daemon, startDaemon } from '../e2e/daemon.js';
import { type Bench, FORGE_BIN, GIT_IDENTITY, makeBench, simulated } from '../execution/fixture.js';
import { NOT_SEEN, pullRequestNotSeen } from '../tui/simulated-service.js';
import { chromiumAvailable, launchChromium } from './chromium.js';
import { keepScreenshot } from './screenshots.js';

const available = chromiumAvailable();

describe.skipIf(!available)('the Workbench in Chromium', () => {
  let bench: Bench;
  let daemon: Daemon;
  let browser: Browser;
  let execution: string;

  beforeAll(async () => {
    bench = makeBench();
    daemon = await startDaemon(bench.home.root, ['--max-running', '4', '--disk-floor-gib', '0'], {
      ...process.env,
      ...GIT_IDENTITY,
      HARMFLOW_FORGE_DIR: bench.forgeDir,
      // The fake forge's `gh`, for the pull request and the gate that asks the forge.
      PATH: `${FORGE_BIN}${delimiter}${process.env.PATH ?? ''}`,
    });
    const first = bench.scenario('first', {
      pace: '150ms',
      steps: [
        { say: 'I will add the notes file.' },
        { write: { path: 'NOTES.md', content: 'Notes\n' } },
        { run: 'npm test' },
        { commit: 'Add NOTES.md' },
        { push: null },
        { pr: { title: 'Add NOTES.md', body: 'Notes.' } },
        { end: { quota: 'subscription' } },
      ],
    });
    const second = bench.scenario('second', {
      pace: '700ms',
      steps: [
        { say: 'Picking up from the handoff.' },
        { run: 'gh pr create --title "Add NOTES.md" --body "Notes, again."' },
        { say: 'Checking the notes.' },
        { say: 'Still working.' },
        { say: 'Almost there.' },
        { say: 'Done with the notes.' },
        { end: 'complete' },
      ],
    });
    const task = {
      name: 'notes',
      repo: bench.repo,
      baseRef: 'main',
      prompt: 'Add a NOTES.md file.',
      harness: simulated('claude-code', first),
      fallbacks: [simulated('codex', second)],
    };
    const created = await daemon.api('POST', '/api/executions', { task });
    expect(created.status).toBe(201);
    execution = (created.body as { execution: { id: string } }).execution.id;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await daemon?.kill('SIGTERM');
    await bench?.cleanup();
  });

  /** A page signed in with the token (asked once per tab). */
  async function signedIn(path: string, width = 1280): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    await page.goto(`${daemon.url}${path}`);
    await page.locator('#token-input').fill(DAEMON_TOKEN);
    await page.keyboard.press('Enter');
    await page.locator('#token-dialog').waitFor({ state: 'hidden' });
    return page;
  }

  it('follows an execution by keyboard through its switch, and sends it a follow-up', { timeout: 90_000 }, async () => {
    const page = await signedIn('/');
    const row = page.locator(`#rows tr[data-id="${execution}"]`);
    await row.waitFor();
    await keepScreenshot(page, 'executions.png');
    await page.keyboard.press('j');
    await expect.poll(() => row.getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/executions/${execution}`);

    // Events: `n` jumps from one switch-related event to the next.
    // The page's keys work once its module has connected; `2` again is harmless.
    await expect
      .poll(async () => {
        await page.keyboard.press('2');
        return page.locator('#panel-events').isVisible();
      })
      .toBe(true);
    const selected = page.locator('#timeline [role="option"][aria-selected="true"]');
    // The switch and the next attempt's start are on screen (they arrive live, one after the other).
    await expect
      .poll(() => page.locator('#timeline [role="option"][data-type="attempt.started"]').count(), { timeout: 30_000 })
      .toBe(2);
    const seen: string[] = [];
    for (let press = 0; press < 6; press += 1) {
      await page.keyboard.press('n');
      seen.push(`${await selected.getAttribute('data-type')} ${await selected.locator('.harness-col').textContent()}`);
    }
    expect(seen.slice(0, 4)).toEqual([
      'attempt.started claude-code',
      'quota.exhausted claude-code',
      'attempt.ended claude-code',
      'failover claude-code',
    ]);
    expect(seen[4]).toBe('attempt.started codex');
    // Back to the switch with N, and open it: the record names both harnesses.
    await page.keyboard.press('N');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => selected.locator('.summary').textContent())
      .toMatch(/claude-code → codex \(quota_exhausted; switch 1 of \d\)/);
    await expect.poll(() => selected.locator('.detail').textContent()).toMatch(/"to": "codex"/);
    await keepScreenshot(page, 'events.png');

    // The gate's refusal of codex's second pull request is on the timeline, marked as a gate's record.
    const refusal = page.locator('#timeline [role="option"][data-type="gate.denied"]');
    await expect.poll(() => refusal.count(), { timeout: 30_000 }).toBe(1);
    expect(await refusal.getAttribute('class')).toBe('gate');
    expect(await refusal.locator('.harness-col').textContent()).toBe('codex');
    expect(await refusal.locator('.summary').textContent()).toMatch(/^gate nothing-twice refused Bash: /);

    // The `?` overlay lists the Events keys.
    await page.keyboard.press('?');
    await expect.poll(() => page.locator('#help-dialog').isVisible()).toBe(true);
    await expect.poll(() => page.locator('#help-body').textContent()).toMatch(/Next switch event/);
    await keepScreenshot(page, 'shortcuts.png');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('#help-dialog').isVisible()).toBe(false);

    // Transcript: a follow-up into the open session, delivered to the harness it is on.
    await page.keyboard.press('3');
    await page.locator('#send-text').fill('Also mention the date in NOTES.md.');
    await page.locator('#send-form button[type="submit"]').click();
    await expect
      .poll(() => page.locator('#send-status').textContent(), { timeout: 30_000 })
      .toMatch(/^Delivered to codex/);
    await expect.poll(() => page.locator('#transcript').textContent()).toMatch(/Also mention the date/);
    await page.locator('#send-status').scrollIntoViewIfNeeded();
    await keepScreenshot(page, 'transcript.png');

    await page.keyboard.press('1');
    await expect.poll(() => page.locator('#summary-body').textContent()).toMatch(/claude-code/);
    // Sessions: the first attempt's Claude Code session, as its stream reported it.
    await expect
      .poll(() => page.locator('#summary-body ul.sessions li').first().textContent())
      .toMatch(/^claude-code session \S+ — attempt 1; turn t1$/);
    await keepScreenshot(page, 'summary.png');
    await page.keyboard.press('4');
    await expect.poll(() => page.locator('#changes-body').textContent(), { timeout: 15_000 }).toMatch(/NOTES\.md/);
    await keepScreenshot(page, 'changes.png');
    await page.close();
  });

  it('finds the ended execution on History, filtered by harness', { timeout: 90_000 }, async () => {
    await expect
      .poll(
        async () =>
          ((await daemon.api('GET', `/api/executions/${execution}`)).body as { execution: { state: string } }).execution
            .state,
        {
          timeout: 60_000,
          interval: 500,
        },
      )
      .toBe('succeeded');
    const page = await signedIn('/history');
    const row = page.locator(`#rows tr[data-id="${execution}"]`);
    await row.waitFor();
    await expect.poll(() => row.textContent()).toMatch(/claude-code → codex/);
    await page.locator('#filter-harness').selectOption('codex');
    await expect.poll(() => row.isVisible()).toBe(true);
    await page.locator('#filter-text').fill('no such task');
    await expect.poll(() => row.count()).toBe(0);
    await page.locator('#filter-text').fill('');
    await keepScreenshot(page, 'history.png');

    // Its Summary says which harness session a follow-up resumes: the API's routing, the engine's rule.
    const { routing } = (await daemon.api('GET', `/api/executions/${execution}`)).body as {
      routing: { nextFollowUp: { kind: string; harness?: string; sessionId?: string } };
    };
    expect(routing.nextFollowUp).toMatchObject({ kind: 'resume', harness: 'codex' });
    await page.goto(`${daemon.url}/executions/${execution}`);
    const next = page.locator('#summary-body p.next-follow-up[data-kind="resume"]');
    await expect
      .poll(() => next.textContent(), { timeout: 15_000 })
      .toBe(`Next follow-up: resumes codex session ${routing.nextFollowUp.sessionId} (attempt 2's)`);
    expect(await page.locator('#summary-body ul.sessions li').allTextContents()).toEqual([
      expect.stringMatching(/^claude-code session \S+ — attempt 1; turn t1$/),
      `codex session ${routing.nextFollowUp.sessionId} — attempt 2; turns t1 and t2`,
    ]);
    await page.close();
  });

  it('shows a waiting execution with its reset time, and resumes it now after asking', {
    timeout: 90_000,
  }, async () => {
    const out = bench.scenario('out-for-an-hour', {
      steps: [{ say: 'working' }, { end: { quota: { resetsIn: '1h' } } }],
      turns: [
        { when: 'Attempt 1 — claude-code', steps: [{ say: 'carrying on' }, { end: 'complete' }] },
        { when: 'One more line', steps: [{ say: 'added' }, { end: 'complete' }] },
      ],
    });
    const task = {
      name: 'waits',
      repo: bench.repo,
      baseRef: 'main',
      prompt: 'Say something.',
      harness: simulated('claude-code', out),
      waitForReset: true,
      timeout: '2h',
    };
    const created = await daemon.api('POST', '/api/executions', { task });
    expect(created.status).toBe(201);
    const waiting = (created.body as { execution: { id: string } }).execution.id;

    // The Executions screen: the row says waiting, for which harness, and when it resets (in about an hour).
    const page = await signedIn('/');
    const row = page.locator(`#rows tr[data-id="${waiting}"]`);
    await expect
      .poll(() => row.locator('td.state').textContent(), { timeout: 30_000 })
      .toMatch(/^waitingfor claude-code · resets \d\d:\d\d \(in (59 min|1 h 00 min)\)$/);

    // Its detail: the wait in words and the two actions.
    await row.locator('a').click();
    await page.waitForURL(`**/executions/${waiting}`);
    const note = page.locator('#wait-note');
    await expect
      .poll(() => note.textContent(), { timeout: 15_000 })
      .toMatch(/^Waiting for claude-code, which resets at \d\d:\d\d \(in (59 min|1 h 00 min)\)\.$/);
    expect(await page.locator('#resume-button').isVisible()).toBe(true);
    expect(await page.locator('#cancel-button').isVisible()).toBe(true);
    await keepScreenshot(page, 'waiting.png');

    // `R` asks first; Escape says no, and neither resumes nor leaves the page.
    const dialog = page.locator('#confirm-dialog');
    await page.keyboard.press('R');
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await page.locator('#confirm-yes').textContent()).toBe('Resume now');
    expect(await page.evaluate('document.activeElement?.id')).toBe('confirm-no');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(page.url()).toMatch(new RegExp(`/executions/${waiting}(#.*)?$`));
    expect(
      ((await daemon.api('GET', `/api/executions/${waiting}`)).body as { execution: { state: string } }).execution
        .state,
    ).toBe('waiting');

    // The button, then the dialog's own yes by keyboard: the wait ends, a new attempt runs and succeeds.
    await page.locator('#resume-button').click();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#detail-status').textContent(), { timeout: 30_000 }).toMatch(/^succeeded/);
    expect(await note.isVisible()).toBe(false);
    expect(await page.locator('#resume-button').isVisible()).toBe(false);
    expect(await page.locator('#cancel-button').isVisible()).toBe(false);
    // `C` on an ended execution asks nothing: the help then opens, which no other open dialog would let it.
    await page.keyboard.press('C');
    await page.keyboard.press('?');
    await expect.poll(() => page.locator('#help-dialog').isVisible()).toBe(true);
    expect(await dialog.isVisible()).toBe(false);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('#help-dialog').isVisible()).toBe(false);
    await page.keyboard.press('2');
    await expect
      .poll(() => page.locator('#timeline [role="option"][data-type="wait.ended"] .summary').textContent())
      .toMatch(/^resumed by hand before the reset/);
    expect(await page.locator('#timeline [role="option"][data-type="attempt.started"]').count()).toBe(2);

    // Its stream ended with it; a follow-up reopens it (after asking), and the page follows the stream again.
    await page.keyboard.press('3');
    await page.locator('#send-text').fill('One more line, please.');
    await page.locator('#send-form button[type="submit"]').click();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await page.locator('#confirm-yes').click();
    await expect
      .poll(() => page.locator('#send-status').textContent(), { timeout: 30_000 })
      .toMatch(/^Delivered to claude-code/);
    await page.close();
  });

  it('switches a running execution to another harness from its page, after asking which', {
    timeout: 90_000,
  }, async () => {
    const slow = bench.scenario('slow-claude', {
      pace: '1s',
      steps: Array.from({ length: 30 }, (_, at) => ({ say: `step ${at + 1}` })),
    });
    const done = bench.scenario('codex-done', { steps: [{ say: 'Taking over.' }, { end: 'complete' }] });
    const task = {
      name: 'switches',
      repo: bench.repo,
      baseRef: 'main',
      prompt: 'Work slowly.',
      harness: simulated('claude-code', slow),
      fallbacks: [simulated('codex', done)],
    };
    const created = await daemon.api('POST', '/api/executions', { task });
    expect(created.status).toBe(201);
    const running = (created.body as { execution: { id: string } }).execution.id;

    const page = await signedIn(`/executions/${running}`);
    await expect
      .poll(() => page.locator('#detail-status').textContent(), { timeout: 30_000 })
      .toMatch(/^running on claude-code/);
    const button = page.locator('#switch-button');
    await expect.poll(() => button.isVisible()).toBe(true);

    // `m` opens the Transcript with the follow-up box focused, the `m` itself not typed; Escape leaves the box.
    await page.keyboard.press('m');
    await expect.poll(() => page.locator('#panel-transcript').isVisible()).toBe(true);
    expect(await page.evaluate('document.activeElement?.id')).toBe('send-text');
    expect(await page.locator('#send-text').inputValue()).toBe('');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate('document.activeElement?.id')).not.toBe('send-text');
    expect(page.url()).toMatch(new RegExp(`/executions/${running}#transcript$`));

    // `C` asks before canceling, the focus on "Not now": Enter there, then Escape, leave it running.
    const confirm = page.locator('#confirm-dialog');
    for (const no of ['Enter', 'Escape']) {
      await page.keyboard.press('C');
      await expect.poll(() => confirm.isVisible()).toBe(true);
      expect(await page.locator('#confirm-title').textContent()).toBe('Cancel this execution?');
      expect(await page.locator('#confirm-yes').textContent()).toBe('Cancel execution');
      expect(await page.evaluate('document.activeElement?.id')).toBe('confirm-no');
      await page.keyboard.press(no);
      await expect.poll(() => confirm.isVisible()).toBe(false);
    }
    // A yes would have said "Canceling…" at once; the record still runs.
    expect(await page.locator('#action-status').textContent()).toBe('');
    expect(
      ((await daemon.api('GET', `/api/executions/${running}`)).body as { execution: { state: string } }).execution
        .state,
    ).toBe('running');
    expect(await page.locator('#detail-status').textContent()).toMatch(/^running on claude-code/);

    // `S` asks which harness, offering another than the one running; Escape says no.
    const dialog = page.locator('#switch-dialog');
    await page.keyboard.press('S');
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await page.locator('#switch-harness').inputValue()).toBe('codex');
    expect(await page.evaluate('document.activeElement?.id')).toBe('switch-harness');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);

    // The button, a reason, and Switch: claude-code stops, codex carries on and finishes.
    await button.click();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await page.locator('#switch-reason').fill('claude-code is too slow today');
    await keepScreenshot(page, 'switch.png');
    await page.locator('#switch-yes').click();
    await expect.poll(() => page.locator('#detail-status').textContent(), { timeout: 30_000 }).toMatch(/^succeeded/);
    expect(await button.isVisible()).toBe(false);
    await page.keyboard.press('2');
    await expect
      .poll(() => page.locator('#timeline [role="option"][data-type="failover"] .summary').textContent())
      .toBe('claude-code → codex (asked by workbench: claude-code is too slow today; switch 0 of 1)');
    expect(await page.locator('#timeline [role="option"][data-type="switch.requested"]').count()).toBe(1);
    await page.close();
  });

  it('marks on the Summary an item reported done that HarmFlow did not see done, and the failed commits', {
    timeout: 60_000,
  }, async () => {
    const task = {
      name: 'pull-request',
      repo: bench.repo,
      baseRef: 'main',
      prompt: 'Open a pull request.',
      harness: simulated('claude-code', pullRequestNotSeen(bench)),
    };
    const created = await daemon.api('POST', '/api/executions', { task });
    expect(created.status).toBe(201);
    const id = (created.body as { execution: { id: string } }).execution.id;
    const page = await signedIn(`/executions/${id}`);
    await expect.poll(() => page.locator('#detail-status').textContent(), { timeout: 30_000 }).toMatch(/^succeeded/);

    // The item: a badge in words, named for assistive technology, and the sentence beside what was reported.
    const item = page.locator('#summary-body li.work-item[data-unconfirmed="true"]');
    await expect.poll(() => item.count(), { timeout: 15_000 }).toBe(1);
    expect(await item.locator('.item-text').textContent()).toBe(NOT_SEEN.item);
    const badge = item.locator('.badge-unconfirmed');
    expect(await badge.isVisible()).toBe(true);
    expect(await badge.textContent()).toBe('⚠ unconfirmed');
    expect(await badge.getAttribute('aria-label')).toBe(
      `Unconfirmed: claude-code plan: completed, but ${NOT_SEEN.unconfirmed}`,
    );
    expect(await item.locator('dt.reported').textContent()).toBe('reported');
    expect(await item.locator('dd.reported').textContent()).toBe('claude-code plan: completed');
    expect(await item.locator('dt.unconfirmed').textContent()).toBe('⚠ unconfirmed');
    const sentence = item.locator('dd.unconfirmed');
    expect(await sentence.isVisible()).toBe(true);
    expect(await sentence.textContent()).toBe(NOT_SEEN.unconfirmed);
    expect(await item.locator('dd.tried').textContent()).toMatch(/^commit failed \(exit 1\): nothing to commit/);

    // The execution's end carries its warning, shown above the facts; the state keeps the rest.
    const warning = page.locator('#summary-body .warnings .warning');
    expect(await warning.isVisible()).toBe(true);
    expect(await warning.textContent()).toMatch(new RegExp(`^⚠ Warning: ${NOT_SEEN.commitsFailed}`));
    expect(await page.locator('#summary-body dl.facts dd').nth(1).textContent()).toBe('succeeded — completed');
    await keepScreenshot(page.locator('#summary-body'), 'unconfirmed.png');

    // The Events timeline has the warning as its own row, marked.
    await page.keyboard.press('2');
    const row = page.locator('#timeline [role="option"][data-type="workspace.warning"] .summary');
    await expect.poll(() => row.textContent()).toMatch(new RegExp(`^⚠ ${NOT_SEEN.commitsFailed}`));
    await page.close();
  });

  it('reads on a 375 px phone screen without scrolling sideways', { timeout: 60_000 }, async () => {
    for (const path of ['/history', `/executions/${execution}`]) {
      const page = await signedIn(path, 375);
      await page.locator('#main').waitFor();
      await page.waitForTimeout(500);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      await keepScreenshot(page, path === '/history' ? 'history-phone.png' : 'detail-phone.png');
      await page.close();
    }
  });
});
