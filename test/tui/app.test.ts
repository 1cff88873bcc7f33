/**
 * The terminal UI rendered with Ink's test renderer (ink-testing-library) against a loopback fake
 * of the service's list routes (executions and workflow runs), through the CLI's real client, and
 * driven by key presses on its stdin.
 */

import { cleanup, render } from 'ink-testing-library';
import { createElement } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/cli/client.js';
import { App } from '../../src/tui/app.js';
import { helpLines } from '../../src/tui/help.js';
import { listScopes } from '../../src/tui/rows.js';
import { clientSource } from '../../src/tui/source.js';
import { executionRecord, FAKE_TOKEN, type FakeService, startFakeService, workflowRun } from './fake-service.js';
import { frameWhere, KEYS, lineWith, selectedLine } from './frames.js';
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
const RUNS = [
  workflowRun({
    id: '01jf5aaaaa2m4n6p8r0s2t4v6w',
    workflow: 'statements',
    state: 'waiting',
    message: '185 item(s) await review: `harmflow workflow review 01jf5aaaaa2m4n6p8r0s2t4v6w`, then resume',
    params: { month: '2026-11' },
  }),
  workflowRun({
    id: '01jf4bbbbb2m4n6p8r0s2t4v6x',
    workflow: 'nightly-digest',
    state: 'interrupted',
    owner: { pid: 4242, host: 'build-1', startTime: '991', since: new Date().toISOString(), alive: false },
  }),
  workflowRun({
    id: '01jf3ccccc2m4n6p8r0s2t4v6y',
    workflow: 'statements',
    state: 'crashed',
    message: 'crashed at fact-check item c-1412: overloaded (retry budget spent)',
  }),
  workflowRun({ id: '01jf2ddddd2m4n6p8r0s2t4v6z', workflow: 'release-notes', state: 'succeeded' }),
];
const STEPS = {
  [RUNS[0]?.id ?? '']: [
    { step: 'generate', done: 2000, reused: 1270, failed: 0 },
    { step: 'fact-check', done: 2000, reused: 0, failed: 0 },
    { step: 'check', done: 1815, reused: 0, failed: 0 },
    { step: 'send', done: 1815, reused: 0, failed: 0 },
  ],
};

/** What starts every ANSI escape sequence (color, bold, inverse). */
const ANSI = '\u001B[';

let service: FakeService;
beforeEach(async () => {
  service = await startFakeService(
    {
      live: { executions: LIVE, attempts: {} },
      ended: {
        executions: ENDED,
        attempts: {
          [ENDED[0]?.id ?? '']: [
            {
              ...ATTEMPT,
              execution: ENDED[0]?.id ?? '',
              number: 1,
              harness: 'claude-code',
              outcome: 'quota_exhausted',
            },
            { ...ATTEMPT, execution: ENDED[0]?.id ?? '', number: 2, harness: 'codex', outcome: 'completed' },
          ],
        },
      },
    },
    { runs: RUNS, steps: STEPS },
  );
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

  it('starts each column at the same place on every row, whatever the task name before it', async () => {
    const { lastFrame } = renderApp(service.url, FAKE_TOKEN, 50);
    const frame = await frameWhere(lastFrame, (text) => text.includes('bump-deps'));
    const header = lineWith(frame, 'STATE');
    const column = header.indexOf('STATE');
    expect(column).toBeGreaterThan(0);
    for (const [task, state] of [
      ['fix-login', 'running'],
      ['add-search', 'waiting'],
      ['bump-deps', 'queued'],
    ] as const) {
      expect(lineWith(frame, task).indexOf(state), lineWith(frame, task)).toBe(column);
    }
  });

  it('draws rows known before it starts in its very first frame, without a Loading… frame', async () => {
    const source = clientSource(createClient({ url: service.url, token: { token: FAKE_TOKEN, from: 'test' } }));
    const executions = await source.list('executions');
    const { lastFrame } = render(
      createElement(App, { source, color: false, width: 80, height: 24, pollMs: 60_000, knownRows: { executions } }),
    );
    const first = lastFrame() ?? '';
    expect(first).toContain('fix-login');
    expect(first).not.toContain('Loading');
  });

  it('selects the first row in its very first frame, so Enter opens it at once', async () => {
    const source = clientSource(createClient({ url: service.url, token: { token: FAKE_TOKEN, from: 'test' } }));
    const executions = await source.list('executions');
    const { lastFrame, stdin } = render(
      createElement(App, { source, color: false, width: 80, height: 24, pollMs: 60_000, knownRows: { executions } }),
    );
    expect(selectedLine(lastFrame() ?? '')).toContain('fix-login');
    stdin.write(KEYS.enter);
    const frame = await frameWhere(lastFrame, (text) => text.includes('[1 Summary]'));
    expect(frame.split('\n')[0]).toMatch(/^fix-login · running/);
  });

  it('moves the selection with j, k, arrows, g and G', async () => {
    const { lastFrame, stdin } = renderApp(service.url, FAKE_TOKEN, 50);
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
    await frameWhere(lastFrame, (text) => text.includes('[Workflows]'));
    stdin.write('\t');
    await frameWhere(lastFrame, (text) => text.includes('[Executions]') && text.includes('fix-login'));
  });

  it('lists the workflow runs on Workflows, the third screen of Tab, with their states and why', async () => {
    const { lastFrame, stdin } = renderApp(service.url, FAKE_TOKEN, 50);
    await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    stdin.write(KEYS.tab);
    await frameWhere(lastFrame, (text) => text.includes('[History]') && text.includes('rename-api'));
    stdin.write(KEYS.tab);
    const frame = await frameWhere(lastFrame, (text) => text.includes('[Workflows]') && text.includes('release-notes'));
    expect(frame.split('\n')[0]).toBe(
      'HarmFlow   Executions   History  [Workflows]  4 of 4 · 1 waiting · 1 interrupted',
    );
    expect(lineWith(frame, 'ID ')).toMatch(/ID +WORKFLOW +STATE +STARTED +WAITING FOR \/ WHY/);
    expect(lineWith(frame, '01jf5aaaaa2m4n')).toMatch(/statements +waiting +10m ago +185 item\(s\) await review/);
    expect(lineWith(frame, '01jf4bbbbb2m4n')).toMatch(
      /nightly-digest +interrupted +10m ago +the process driving it is/,
    );
    expect(lineWith(frame, '01jf3ccccc2m4n')).toMatch(/statements +crashed +10m ago +crashed at fact-check/);
    expect(lineWith(frame, '01jf2ddddd2m4n')).toMatch(/release-notes +succeeded +10m ago +–/);
    expect(frame).not.toContain('fix-login');
    for (const line of frame.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(frame.split('\n').length).toBeLessThanOrEqual(24);
    expect(frame).not.toContain(ANSI);
    // Tab goes round: back to Executions.
    stdin.write(KEYS.tab);
    await frameWhere(lastFrame, (text) => text.includes('[Executions]') && text.includes('fix-login'));
  });

  it('selects a run with j and k, shows its whole id and why, and opens its steps with Enter', async () => {
    const { lastFrame, stdin } = renderApp(service.url, FAKE_TOKEN, 50);
    await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    stdin.write(KEYS.tab);
    stdin.write(KEYS.tab);
    await frameWhere(lastFrame, (text) => text.includes('[Workflows]') && text.includes('release-notes'));
    // The first run is selected from the start.
    let frame = await frameWhere(lastFrame, (text) => selectedLine(text).includes('01jf5aaaaa2m4n'));
    expect(frame).toContain('01jf5aaaaa2m4n6p8r0s2t4v6w  waiting — 185 item(s) await review');
    stdin.write('j');
    frame = await frameWhere(lastFrame, (text) => selectedLine(text).includes('01jf4bbbbb2m4n'));
    expect(frame).toContain('01jf4bbbbb2m4n6p8r0s2t4v6x  interrupted — the process driving it is gone');
    stdin.write('j');
    await frameWhere(lastFrame, (text) => selectedLine(text).includes('01jf3ccccc2m4n'));
    stdin.write('k');
    await frameWhere(lastFrame, (text) => selectedLine(text).includes('01jf4bbbbb2m4n'));
    stdin.write('k');
    await frameWhere(lastFrame, (text) => selectedLine(text).includes('01jf5aaaaa2m4n'));
    expect(
      lastFrame()
        ?.split('\n')
        .filter((line) => line.startsWith('›')),
    ).toHaveLength(1);

    stdin.write(KEYS.enter);
    frame = await frameWhere(lastFrame, (text) => text.includes('Steps') && text.includes('send: 1,815 done'));
    expect(frame.split('\n')[0]).toBe('statements · waiting · 01jf5aaaaa2m4n6p8r0s2t4v6w');
    expect(frame).toContain('generate: 2,000 done (1,270 reused)');
    expect(frame).toContain('{"month":"2026-11"}');
    expect(frame).toMatch(/Started +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(10m ago\)/);
    expect(frame).toContain(`Review it in the Workbench\n  ${service.url}/workflows/01jf5aaaaa2m4n6p8r0s2t4v6w`);
    expect(frame).toContain('or on the command line\n  harmflow workflow review 01jf5aaaaa2m4n6p8r0s2t4v6w');
    for (const line of frame.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    // Its help lists only what holds there: scrolling, back, quit.
    stdin.write('?');
    frame = await frameWhere(lastFrame, (text) => text.includes('Shortcuts'));
    expect(frame).toContain('Back to the Workflows screen');
    expect(frame).not.toContain('Summary tab');
    stdin.write(KEYS.escape);
    await frameWhere(lastFrame, (text) => text.includes('send: 1,815 done'));
    stdin.write(KEYS.escape);
    await frameWhere(
      lastFrame,
      (text) => text.includes('[Workflows]') && selectedLine(text).includes('01jf5aaaaa2m4n'),
    );
  });

  it('says so when a run’s steps cannot be read, and filters the runs with /', async () => {
    const { lastFrame, stdin } = renderApp(service.url, FAKE_TOKEN, 50);
    await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    stdin.write(KEYS.tab);
    stdin.write(KEYS.tab);
    await frameWhere(lastFrame, (text) => text.includes('[Workflows]') && text.includes('release-notes'));
    stdin.write('/');
    for (const character of 'interr') stdin.write(character);
    let frame = await frameWhere(lastFrame, (text) => !text.includes('release-notes'));
    expect(frame).toContain('nightly-digest');
    expect(frame).toContain('1 of 4');
    stdin.write(KEYS.enter);
    await frameWhere(lastFrame, (text) => selectedLine(text).includes('01jf4bbbbb2m4n'));
    stdin.write(KEYS.enter);
    // This fake has no steps for it: the view says so in the service's words, and keeps the run's facts.
    frame = await frameWhere(lastFrame, (text) => text.includes('Cannot read its steps: no route GET'));
    expect(frame).toContain('pid 4242 on build-1');
    expect(frame).toContain('(gone)');
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
    // The one row shown is selected; out of the field, keys are shortcuts again: j keeps it.
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

  it('keeps polling Workflows: a run started meanwhile appears', async () => {
    const { lastFrame, stdin } = renderApp(service.url, FAKE_TOKEN, 50);
    await frameWhere(lastFrame, (text) => text.includes('fix-login'));
    stdin.write(KEYS.tab);
    stdin.write(KEYS.tab);
    await frameWhere(lastFrame, (text) => text.includes('release-notes'));
    service.runs = [workflowRun({ id: '01jf6eeeee2m4n6p8r0s2t4v6a', workflow: 'new-flow', state: 'running' }), ...RUNS];
    await frameWhere(lastFrame, (text) => text.includes('new-flow') && text.includes('5 of 5'));
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
    // A poll cut by the close says the connection was lost; the next one finds nothing listening.
    const frame = await frameWhere(lastFrame, (text) => text.includes('HARMFLOW_URL)'));
    expect(frame).toContain('fix-login');
    // The hint is whole within 80 columns: where to start a service, and how to point at another.
    const hint = frame
      .split('\n')
      .filter((line) => line.trim() !== '')
      .slice(-3, -1)
      .join(' ');
    expect(hint).toBe(
      `Cannot reach the service: no HarmFlow service at ${service.url} (start one with \`harmflow serve\`, or give its URL: --url or HARMFLOW_URL)`,
    );
    for (const line of frame.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(frame.split('\n').length).toBeLessThanOrEqual(24);
    expect(frame.split('\n').at(-1)).toMatch(/^\? shortcuts/);
  });
});
