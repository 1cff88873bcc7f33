/**
 * `harmflow ui` in a real terminal: tmux (tmux.ts) runs `node bin/harmflow.js ui` at 80×24 against a
 * `harmflow serve` child process with simulated executions — "notes" (claude-code, out of quota, then
 * codex), a slow one, one waiting for its reset, and one already ended — and two workflow runs in its
 * state directory (one waiting for a review, one whose process was killed) — and the test presses
 * keys with `send-keys` and reads the screen with `capture-pane`: the Executions, History and
 * Workflows screens, a run opened with its steps, the notes execution opened by filter, its Events stepped with `n` to the switch and the record opened,
 * a follow-up sent from the Transcript and delivered to codex, Changes, Summary's chain, the help
 * (whole on the list; an execution's is taller than 24 lines, so only its end shows), and `q` ending
 * the program with status 0. Every screen keeps its first and last line in place (a
 * line drawn wider than 80 columns or a 25th line would push them). With color, the selected row
 * carries escape sequences; with `NO_COLOR` no line does. At 200×50 the list adds its extra columns
 * and the selected execution's summary shows beside it, following `j`; on a port nothing listens
 * on, the hint says where to start a service within 80 columns.
 *
 * The `NO_COLOR` screens are written as text (trailing spaces and blank lines trimmed) to a
 * temporary folder, or with HARMFLOW_UPDATE_SCREENSHOTS=1 to docs/screens/ (the README shows them).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAEMON_TOKEN } from '../e2e/daemon.js';
import { type Bench, simulated } from '../execution/fixture.js';
import { lineWith, selectedLine } from './frames.js';
import {
  notesThenOutOfQuota,
  REVIEW_WORKFLOW,
  type SimulatedService,
  startSimulatedService,
} from './simulated-service.js';
import { startTerminal, type Terminal, tmuxAvailable } from './tmux.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'harmflow.js');
const UPDATE_SCREENS = process.env.HARMFLOW_UPDATE_SCREENSHOTS === '1';
/** A screen from the service can take a scenario's pace, and a list refresh 2 s; 30 s bounds the slowest wait. */
const LIVE_MS = 30_000;
const ESCAPE = '\u001B[';

/** How a view's first and last lines begin (the last: its key hints, or what an open prompt shows there). */
interface View {
  readonly first: RegExp;
  readonly last: RegExp;
}
const LIST: View = { first: /^HarmFlow {2}/, last: /^\? shortcuts · / };
const DETAIL: View = { first: /^notes · /, last: /^(1-4 tabs|j\/k step) · .* · \? keys$/ };
const MESSAGE: View = { first: DETAIL.first, last: /^Enter {2}Send to the harness/ };
const RUN: View = { first: /^letters · waiting · /, last: /^j\/k scroll · Esc back · \? keys · q quit$/ };
const HELP: View = { first: /^Shortcuts \(\? or Esc closes(; j\/k scroll, \d+ more lines)?\)$/, last: /\S/ };

const available = tmuxAvailable();

describe.skipIf(!available)('harmflow ui in tmux', () => {
  let service: SimulatedService;
  let bench: Bench;
  const terminals: Terminal[] = [];
  const ids = { notes: '', slow: '', waits: '', ended: '', review: '', held: '' };

  /** Where the captures go: docs/screens/ when updating them, else a temporary folder removed after. */
  let screens = '';

  beforeAll(async () => {
    screens = UPDATE_SCREENS
      ? fileURLToPath(new URL('../../docs/screens/', import.meta.url))
      : mkdtempSync(join(tmpdir(), 'harmflow-screens-'));
    mkdirSync(screens, { recursive: true });
    service = await startSimulatedService(['--interrupt-budget', '2s', '--close-budget', '5s']);
    bench = service.bench;
    ids.ended = await submit({
      name: 'changelog',
      prompt: 'Add a CHANGELOG entry.',
      harness: simulated('claude-code', bench.scenario('quick', { steps: [{ say: 'Done.' }, { end: 'complete' }] })),
    });
    await until(async () => (await stateOf(ids.ended)) === 'succeeded');
    const first = notesThenOutOfQuota(bench);
    // Long enough for the test to send its message while codex still works on its first turn.
    const second = bench.scenario('second', {
      pace: '1s',
      steps: [
        { say: 'Picking up from the handoff.' },
        ...Array.from({ length: 8 }, (_, at) => ({ say: `Checking the notes, part ${at + 1}.` })),
        { end: 'complete' },
      ],
      turns: [{ when: 'Also mention the date.', steps: [{ say: 'Added the date.' }, { end: 'complete' }] }],
    });
    ids.notes = await submit({
      name: 'notes',
      prompt: 'Add a NOTES.md file.',
      harness: simulated('claude-code', first),
      fallbacks: [simulated('codex', second)],
    });
    const slow = bench.scenario('slow-claude', {
      pace: '1s',
      steps: Array.from({ length: 120 }, (_, at) => ({ say: `step ${at + 1}` })),
    });
    ids.slow = await submit({
      name: 'switches',
      prompt: 'Work slowly.',
      harness: simulated('claude-code', slow),
      fallbacks: [simulated('codex', bench.scenario('codex-done', { steps: [{ end: 'complete' }] }))],
    });
    const out = bench.scenario('out-for-an-hour', {
      steps: [{ say: 'working' }, { end: { quota: { resetsIn: '1h' } } }],
    });
    ids.waits = await submit({
      name: 'waits',
      prompt: 'Say something.',
      harness: simulated('claude-code', out),
      waitForReset: true,
      timeout: '2h',
    });
    await until(async () => (await stateOf(ids.waits)) === 'waiting');
    // The workflow file in the bench's folder, so the opened run's File line shows no path of this checkout.
    const letters = join(bench.dir, 'letters.mjs');
    copyFileSync(REVIEW_WORKFLOW, letters);
    ids.review = await service.runWorkflow(letters);
    ids.held = await service.interruptedRun();
  }, 90_000);

  afterAll(async () => {
    if (!UPDATE_SCREENS && screens !== '') rmSync(screens, { recursive: true, force: true });
    for (const terminal of terminals) await terminal.kill();
    await service?.close();
  });

  const submit = (task: Record<string, unknown>) => service.submit(task);
  const stateOf = (id: string) => service.stateOf(id);

  /** `harmflow ui` on the daemon (or the `HARMFLOW_URL` in `env`) in a new terminal, 80×24 unless `size` says. */
  async function startUi(
    env: Record<string, string>,
    size: { readonly width: number; readonly height: number } = { width: 80, height: 24 },
  ): Promise<Terminal> {
    const terminal = await startTerminal({
      command: [process.execPath, BIN, 'ui'],
      env: { HARMFLOW_URL: service.daemon.url, HARMFLOW_TOKEN: DAEMON_TOKEN, TERM: 'xterm-256color', ...env },
      ...size,
    });
    terminals.push(terminal);
    return terminal;
  }

  /**
   * Waits for a screen that satisfies `accept` and checks it fits: at most 24 lines of at most 80
   * columns, the view's first line on top and its last line last.
   */
  async function screenWhere(
    terminal: Terminal,
    accept: (screen: string) => boolean,
    view: View,
    timeoutMs = 5_000,
  ): Promise<string> {
    const screen = await terminal.screenWhere(accept, timeoutMs);
    const lines = screen.split('\n');
    expect(lines.length, screen).toBeLessThanOrEqual(24);
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(lines[0], screen).toMatch(view.first);
    expect(lines.findLast((line) => line.trim() !== '') ?? '', screen).toMatch(view.last);
    return screen;
  }

  /**
   * Keeps a `NO_COLOR` screen as text for the README — no escape sequence on the terminal, no path of
   * this checkout, none of the bench's temporary folder unless the view cannot help showing it, and
   * then with its random name as `X`s of the same length (so lines wrap as they did) — with no
   * trailing spaces and no blank lines at the end.
   */
  async function keep(
    terminal: Terminal,
    name: string,
    screen: string,
    options: { readonly benchPaths?: boolean } = {},
  ): Promise<void> {
    expect((await terminal.capture({ escapes: true })).join('\n')).not.toContain(ESCAPE);
    expect(screen).not.toContain(ROOT.replace(/\/$/, ''));
    // A cut path shows only its start: no temporary folder at all.
    if (options.benchPaths !== true) expect(screen).not.toContain(tmpdir());
    const placeholder = bench.dir.replace(/[^-/]+$/, (random) => 'X'.repeat(random.length));
    const lines = screen
      .replaceAll(bench.dir, placeholder)
      .split('\n')
      .map((line) => line.trimEnd());
    while (lines.at(-1) === '') lines.pop();
    writeFileSync(join(screens, `${name}.txt`), `${lines.join('\n')}\n`);
  }

  it('browses the screens, steps to the switch, sends a message, and quits with status 0', {
    timeout: 120_000,
  }, async () => {
    const terminal = await startUi({ NO_COLOR: '1' });
    const short = (id: string) => id.slice(0, 14);

    // Executions: the three live ones.
    let screen = await screenWhere(
      terminal,
      (text) =>
        text.includes('[Executions]') && [ids.notes, ids.slow, ids.waits].every((id) => text.includes(short(id))),
      LIST,
      LIVE_MS,
    );
    expect(screen).not.toContain(short(ids.ended));
    expect(lineWith(screen, short(ids.waits))).toMatch(/waiting/);
    await keep(terminal, 'executions', screen);

    // History: the ended one; Tab again comes back.
    await terminal.press('Tab');
    screen = await screenWhere(terminal, (text) => text.includes('[History]') && text.includes(short(ids.ended)), LIST);
    expect(lineWith(screen, short(ids.ended))).toMatch(/succeeded/);
    await keep(terminal, 'history', screen);

    // Workflows: the run waiting for review and the interrupted one, newest first; j selects, and the
    // selected run's whole id and why show under the table.
    await terminal.press('Tab');
    screen = await screenWhere(
      terminal,
      (text) => text.includes('[Workflows]') && text.includes(short(ids.review)) && text.includes(short(ids.held)),
      LIST,
    );
    expect(screen.split('\n')[0]).toMatch(/ 2 of 2 · 1 waiting · 1 interrupted$/);
    expect(lineWith(screen, short(ids.review))).toMatch(/letters +waiting +\d+s ago +3 item\(s\) await review/);
    expect(lineWith(screen, short(ids.held))).toMatch(/held +interrupted +\d+s ago +the process driving it is/);
    // The first run is selected from the start.
    expect(selectedLine(screen)).toContain(short(ids.held));
    await terminal.press('j');
    screen = await screenWhere(
      terminal,
      (text) => selectedLine(text).includes(short(ids.review)) && text.includes(`${ids.review}  waiting — 3 item(s)`),
      LIST,
    );
    await keep(terminal, 'workflows', screen);
    // Enter: its facts and steps, and where to review it.
    await terminal.press('Enter');
    screen = await screenWhere(terminal, (text) => text.includes('draft: 3 done'), RUN, LIVE_MS);
    expect(screen).toContain(`${service.daemon.url}/workflows/${ids.review}`);
    expect(screen).toContain(`harmflow workflow review ${ids.review}`);
    await keep(terminal, 'workflow-run', screen, { benchPaths: true });
    await terminal.press('Escape');
    await screenWhere(terminal, (text) => selectedLine(text).includes(short(ids.review)), LIST);
    await terminal.press('Tab');
    await screenWhere(terminal, (text) => text.includes('[Executions]') && text.includes(short(ids.notes)), LIST);

    // Open notes: `/` and its id prefix, Enter (the one row left is selected), Enter.
    // One key per screen: keys that reach the program in one read are one input to Ink.
    await terminal.press('/');
    await terminal.type(short(ids.notes));
    await screenWhere(terminal, (text) => text.includes(`/ ${short(ids.notes)}▏`), LIST);
    await terminal.press('Enter');
    await screenWhere(
      terminal,
      (text) => text.includes(`/ ${short(ids.notes)}  (Esc clears)`) && selectedLine(text).includes(short(ids.notes)),
      LIST,
    );
    await terminal.press('Enter');
    await screenWhere(terminal, (text) => text.includes('[1 Summary]') && text.includes(ids.notes), DETAIL);

    // Events: once codex's attempt has started, `n` walks the switch story.
    await terminal.press('2');
    await screenWhere(
      terminal,
      (text) => text.includes('[2 Events]') && text.includes('attempt 2 on codex'),
      DETAIL,
      LIVE_MS,
    );
    const seen: string[] = [];
    for (let press = 0; press < 5; press += 1) {
      const before = selectedLine(await terminal.screenWhere(() => true));
      await terminal.press('n');
      seen.push(selectedLine(await screenWhere(terminal, (text) => selectedLine(text) !== before, DETAIL)));
    }
    expect(seen.map((line) => /#\d+\s+(\S+)\s+(\S+)/.exec(line)?.slice(1).join(' '))).toEqual([
      'claude-code attempt.started',
      'claude-code quota.exhausted',
      'claude-code attempt.ended',
      'claude-code failover',
      'codex attempt.started',
    ]);
    // Back to the switch: the line under the timeline has its whole line.
    await terminal.press('N');
    screen = await screenWhere(
      terminal,
      (text) =>
        selectedLine(text).includes('failover') &&
        text.split('\n').includes('claude-code → codex (quota_exhausted; switch 1 of 1)'),
      DETAIL,
    );
    // The record after the switch, context.written, names context.json in the bench's temporary folder.
    await keep(terminal, 'events', screen, { benchPaths: true });
    await terminal.press('Enter');
    screen = await screenWhere(terminal, (text) => text.includes('"to": "codex"'), DETAIL);
    expect(screen).toContain('"from": "claude-code"');
    await terminal.press('Escape');
    await screenWhere(terminal, (text) => selectedLine(text).includes('failover'), DETAIL);

    // Transcript: `m`, the message, Enter; codex takes it.
    await terminal.press('3');
    await screenWhere(terminal, (text) => text.includes('[3 Transcript]'), DETAIL);
    await terminal.press('m');
    await screenWhere(terminal, (text) => text.includes('Message: ▏'), MESSAGE);
    await terminal.type('Also mention the date.');
    await screenWhere(terminal, (text) => text.includes('Message: Also mention the date.▏'), MESSAGE);
    await terminal.press('Enter');
    screen = await screenWhere(
      terminal,
      (text) => /Delivered to codex \(turn t\d+\)\./.test(text) && text.includes('Added the date.'),
      DETAIL,
      LIVE_MS,
    );
    await keep(terminal, 'transcript', screen);

    // Changes: the file claude-code wrote.
    await terminal.press('4');
    screen = await screenWhere(
      terminal,
      (text) => text.includes('[4 Changes]') && text.includes('NOTES.md'),
      DETAIL,
      LIVE_MS,
    );
    await keep(terminal, 'changes', screen);

    // Summary: the chain as it ran, scrolled to its end so both attempts' context shows under the
    // sessions. The whole text is little more than a screen, so its Workspace line (in the bench's
    // temporary folder) stays.
    await terminal.press('1');
    screen = await screenWhere(
      terminal,
      (text) => /1 +claude-code/.test(text) && /2 +codex/.test(text),
      DETAIL,
      LIVE_MS,
    );
    expect(lineWith(screen, '1 claude-code')).toMatch(/quota_exhausted/);
    await terminal.press('G');
    screen = await screenWhere(terminal, (text) => text.includes('Attempt 2: codex — completed'), DETAIL, LIVE_MS);
    expect(screen).toContain('Attempt 1: claude-code — quota_exhausted');
    expect(screen).toMatch(/^Next follow-up: resumes codex session /m);
    await keep(terminal, 'summary', screen, { benchPaths: true });

    // The help, longer than 24 lines here: its title says so, `G` scrolls to its end, Esc goes back.
    await terminal.press('?');
    screen = await screenWhere(terminal, (text) => text.includes('Show or hide this help'), HELP);
    expect(screen.split('\n')[0]).toMatch(/^Shortcuts \(\? or Esc closes; j\/k scroll, \d+ more lines\)$/);
    expect(screen).toContain('Scroll down a line');
    await terminal.press('G');
    screen = await screenWhere(terminal, (text) => text.includes('  q '), HELP);
    expect(screen).toMatch(/ {2}q +Quit/);
    expect(screen).not.toContain('Scroll down a line');
    await terminal.press('Escape');
    await screenWhere(terminal, (text) => text.includes('[1 Summary]'), DETAIL);

    // Esc back to the list, whose help fits whole.
    await terminal.press('Escape');
    await screenWhere(terminal, (text) => text.includes('[Executions]'), LIST);
    await terminal.press('?');
    screen = await screenWhere(terminal, (text) => text.includes('Show or hide this help'), HELP);
    await keep(terminal, 'help', screen);
    await terminal.press('Escape');
    await screenWhere(terminal, (text) => text.includes('[Executions]'), LIST);

    // `q` ends the program, with status 0.
    await terminal.press('q');
    const deadline = Date.now() + 10_000;
    let status = await terminal.exitStatus();
    while (status === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = await terminal.exitStatus();
    }
    expect(status).toBe(0);
  });

  it('marks the selected row with escape sequences when color is on', async () => {
    const colored = await startUi({});
    await colored.screenWhere((text) => text.includes(ids.slow.slice(0, 14)) && selectedLine(text) !== '', LIVE_MS);
    const lines = await colored.capture({ escapes: true });
    expect(lines.find((line) => line.includes('›')) ?? '').toContain(ESCAPE);
  });

  it('splits a 200×50 terminal: the list with elapsed, tokens, cost and reset time, and the selected execution’s summary', async () => {
    const wide = await startUi({ NO_COLOR: '1' }, { width: 200, height: 50 });
    // Newest first: waits, selected from the start, and its summary beside the list.
    let screen = await wide.screenWhere(
      (text) => text.includes(`│ ${ids.waits} · Enter opens it`) && text.includes('│ Disk        worktree'),
      LIVE_MS,
    );
    const lines = screen.split('\n');
    expect(lines.length).toBeLessThanOrEqual(50);
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(200);
    expect(lineWith(screen, 'ID ')).toMatch(/ID +TASK +STATE +HARNESS +ATT AGE +ELAPSED TOKENS +COST +RESETS +│/);
    expect(selectedLine(screen)).toContain(ids.waits.slice(0, 14));
    // Its reset, in the RESETS column and in the summary's words.
    expect(selectedLine(screen)).toMatch(/waiting +claude-code +1 +\d+[smh] +\S+ +\S+ +\S+ +\d\d:\d\d +│/);
    expect(screen).toMatch(/│ Waiting for claude-code, which resets at \d\d:\d\d/);
    // j: the preview follows the selection.
    await wide.press('j');
    screen = await wide.screenWhere((text) => text.includes(`│ ${ids.slow} · Enter opens it`));
    expect(lineWith(screen, '│ Task')).toMatch(/│ Task +switches/);
  });

  it('says, within 80 columns, where to start a service when none answers', async () => {
    const closed = await closedPort();
    const lost = await startUi({ NO_COLOR: '1', HARMFLOW_URL: `http://127.0.0.1:${closed}` });
    const screen = await lost.screenWhere((text) => text.includes('HARMFLOW_URL)'), LIVE_MS);
    const lines = screen.split('\n');
    expect(lines.length).toBeLessThanOrEqual(24);
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(
      lines
        .filter((line) => line.trim() !== '')
        .slice(-3, -1)
        .join(' '),
    ).toBe(
      `Cannot reach the service: no HarmFlow service at http://127.0.0.1:${closed} (start one with \`harmflow serve\`, or give its URL: --url or HARMFLOW_URL)`,
    );
  });
});

/** A loopback port nothing listens on: one the system gave, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Bounded wait for `check` to hold, polling the service. */
async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
