/**
 * The terminal UI rendered with Ink's test renderer (ink-testing-library) against a loopback fake
 * of the service's list routes, through the CLI's real client, and driven by key presses on its stdin.
 */

import { cleanup } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { helpLines } from '../../src/tui/help.js';
import { listScopes } from '../../src/tui/rows.js';
import { executionRecord, FAKE_TOKEN, type FakeService, startFakeService } from './fake-service.js';
import { frameWhere, lineWith } from './frames.js';
import { renderApp } from './open-app.js';

const LIVE = [
  executionRecord({
    id: '01jf3k9x7q2m4n6p8r0s2t4v6w',
    taskName: 'fix-login',
    state: 'running',
    currentHarness: 'codex',
    attemptCount: 2,
  }),
  executionRecord({
    id: '01jf3kaaaa2m4n6p8r0s2t4v6y',
    taskName: 'add-search',
    state: 'waiting',
    currentHarness: 'claude-code',
  }),
  executionRecord({
    id: '01jf3kbbbb2m4n6p8r0s2t4v6z',
    taskName: 'bump-deps-with-a-task-name-far-too-long-for-its-column',
    state: 'queued',
  }),
];
const ENDED = [
  executionRecord({
    id: '01jf2zzzzz2m4n6p8r0s2t4v6a',
    taskName: 'rename-api',
    state: 'succeeded',
    attemptCount: 2,
    endedAt: new Date(Date.now() - 3_600_000).toISOString(),
  }),
];
const ATTEMPT = { simulated: true, startedAt: new Date().toISOString() };

/** What starts every ANSI escape sequence (color, bold, inverse). */
const ANSI = '\u001B[';

let service: FakeService;
beforeEach(async () => {
  service = await startFakeService({
    live: { executions: LIVE, attempts: {} },
    ended: {
      executions: ENDED,
      attempts: {
        [ENDED[0]?.id ?? '']: [
          { ...ATTEMPT, execution: ENDED[0]?.id ?? '', number: 1, harness: 'claude-code', outcome: 'quota_exhausted' },
          { ...ATTEMPT, execution: ENDED[0]?.id ?? '', number: 2, harness: 'codex', outcome: 'completed' },
        ],
      },
    },
  });
});
afterEach(async () => {
  cleanup();
  await service.close();
});

describe('harmflow ui', () => {
  it('lists the live executions on the Executions screen, in 80 columns and without color', async () => {
    const { lastFrame } = renderApp(service.url, FAKE_TOKEN, 50);
    const frame = await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    expect(frame).toContain('[Executions]');
    expect(lineWith(frame, 'fix-login')).toMatch(/01jf3k9x7q2m4n.*fix-login.*running.*codex.*2.*1m/);
    expect(frame).toContain('add-search');
    expect(frame).toContain('bump-deps');
    expect(frame).not.toContain('far-too-long-for-its-column');
    expect(frame).not.toContain('rename-api');
    for (const line of frame.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(frame.split('\n').length).toBeLessThanOrEqual(24);
    expect(frame).not.toContain(ANSI);
  });

  it('moves the selection with j, k, arrows, g and G', async () => {
    const { lastFrame, stdin } = renderApp(service.url, FAKE_TOKEN, 50);
    await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    stdin.write('j');
    await frameWhere(lastFrame, (text) => lineWith(text, 'fix-login').startsWith('›'));
    stdin.write('j');
    await frameWhere(lastFrame, (text) => lineWith(text, 'add-search').startsWith('›'));
    stdin.write('\u001B[B');
    await frameWhere(lastFrame, (text) => lineWith(text, 'bump-deps').startsWith('›'));
    stdin.write('k');
    await frameWhere(lastFrame, (text) => lineWith(text, 'add-search').startsWith('›'));
    stdin.write('g');
    await frameWhere(lastFrame, (text) => lineWith(text, 'fix-login').startsWith('›'));
    stdin.write('G');
    const frame = await frameWhere(lastFrame, (text) => lineWith(text, 'bump-deps').startsWith('›'));
    expect(frame.split('\n').filter((line) => line.startsWith('›'))).toHaveLength(1);
  });

  it('switches to History with Tab and back', async () => {
    const { lastFrame, stdin } = renderApp(service.url, FAKE_TOKEN, 50);
    await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    stdin.write('\t');
    const frame = await frameWhere(lastFrame, (text) => text.includes('rename-api'));
    expect(frame).toContain('[History]');
    expect(lineWith(frame, 'rename-api')).toMatch(/succeeded.*claude-code→codex.*2.*1h/);
    expect(frame).not.toContain('fix-login');
    stdin.write('\t');
    await frameWhere(lastFrame, (text) => text.includes('[Executions]') && text.includes('fix-login'));
  });

  it('filters by task name or id prefix with /, and Esc leaves the field then clears the filter', async () => {
    const { lastFrame, stdin } = renderApp(service.url, FAKE_TOKEN, 50);
    await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    stdin.write('/');
    for (const character of 'search') stdin.write(character);
    let frame = await frameWhere(lastFrame, (text) => !text.includes('fix-login'));
    expect(frame).toContain('add-search');
    expect(frame).toContain('/ search');
    stdin.write('\u001B');
    await frameWhere(lastFrame, (text) => text.includes('(Esc clears)'));
    // Out of the field, keys are shortcuts again: j selects the one row shown.
    stdin.write('j');
    await frameWhere(lastFrame, (text) => lineWith(text, 'add-search').startsWith('›'));
    stdin.write('\u001B');
    await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    stdin.write('/');
    for (const character of '01jf3kbb') stdin.write(character);
    frame = await frameWhere(lastFrame, (text) => !text.includes('add-search'));
    expect(frame).toContain('bump-deps');
    expect(frame).not.toContain('fix-login');
  });

  it('shows every shortcut with ?, in the keymap’s words', async () => {
    const { lastFrame, stdin } = renderApp(service.url, FAKE_TOKEN, 50);
    await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    stdin.write('?');
    const frame = await frameWhere(lastFrame, (text) => text.includes('Shortcuts'));
    const expected = helpLines(listScopes('executions'));
    const shown = frame.split('\n').map((line) => line.trimEnd());
    for (const line of expected.filter((text) => text !== '')) expect(shown).toContain(line);
    stdin.write('?');
    await frameWhere(lastFrame, (text) => text.includes('fix-login'));
  });

  it('opens an execution with Enter on its Summary, names it, and Esc goes back', async () => {
    const { lastFrame, stdin } = renderApp(service.url, FAKE_TOKEN, 50);
    await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    stdin.write('j');
    await frameWhere(lastFrame, (text) => lineWith(text, 'fix-login').startsWith('›'));
    stdin.write('\r');
    const frame = await frameWhere(lastFrame, (text) => text.includes('[1 Summary]'));
    expect(frame.split('\n')[0]).toMatch(/^fix-login · running on codex · attempt 2 · 01jf3k9x7q2m4n6p8r0s2t4v6w/);
    // This fake serves no execution's routes: the view says so in the service's words.
    await frameWhere(lastFrame, (text) => text.includes('no route GET /api/executions/01jf3k9x7q2m4n6p8r0s2t4v6w'));
    stdin.write('\u001B');
    await frameWhere(lastFrame, (text) => text.includes('[Executions]'));
  });

  it('quits with q: Ink lets go of the input', async () => {
    const { lastFrame, stdin } = renderApp(service.url, FAKE_TOKEN, 50);
    await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    expect(stdin.listenerCount('readable')).toBeGreaterThan(0);
    stdin.write('q');
    const deadline = Date.now() + 3000;
    while (stdin.listenerCount('readable') > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stdin.listenerCount('readable')).toBe(0);
  });

  it('keeps polling: an execution submitted meanwhile appears', async () => {
    const { lastFrame } = renderApp(service.url, FAKE_TOKEN, 50);
    await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    service.lists = {
      ...service.lists,
      live: {
        executions: [executionRecord({ id: '01jf4aaaaa2m4n6p8r0s2t4v6b', taskName: 'new-one' }), ...LIVE],
        attempts: {},
      },
    };
    await frameWhere(lastFrame, (text) => text.includes('new-one'));
  });

  it('says when the service cannot be reached', async () => {
    const { lastFrame } = renderApp(service.url, FAKE_TOKEN, 50);
    await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    await service.close();
    const frame = await frameWhere(lastFrame, (text) => text.includes('Cannot reach the service'));
    expect(frame).toContain('fix-login');
  });
});
