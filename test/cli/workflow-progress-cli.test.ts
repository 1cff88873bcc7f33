/**
 * `harmflow workflow run`'s progress through the built CLI, on progress-workflow.mjs (40 model items,
 * 2 at a time, each call sleeping; priced at $0.006 an item): piped, the step lines and a plain
 * progress line every `--progress-every` with figures that add up and no escape codes; on a real
 * terminal (tmux, its raw output recorded), one line redrawn in place with figures that move, erased
 * before the final line; `--quiet` prints the plan and the final line only, in either.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTerminal, type Terminal, tmuxAvailable } from '../tui/tmux.js';
import { spawnHarmflow } from './spawn-harmflow.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'harmflow.js');
const FILE = fileURLToPath(new URL('./progress-workflow.mjs', import.meta.url));
const ERASE_LINE = '\r\x1b[2K';
const ESC = '\x1b';
/** A piped progress line, its figures captured: done, percent, per minute, dollars, ETA. */
const PIPED =
  /^ask: (\d+)\/40 done \((\d+)%\), (\d+\.\d)\/min, \$(\d+\.\d\d) so far, ETA (\d+ s|\d+ min) \(\d\d:\d\d UTC\)$/;
/** The live line on a terminal: the bar, then the same figures. */
const LIVE = /^ask [█░]{20} (\d+)\/40 done \(\d+%\), \d+\.\d\/min, \$(\d+\.\d\d) so far, ETA (\d+ s|\d+ min) \(/;
/** What one item costs at the file's prices: 1,000 tokens in at $3/M and 200 out at $15/M. */
const USD_PER_ITEM = 0.006;

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'harmflow-progress-'));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

function run(...args: string[]) {
  return spawnHarmflow(['workflow', 'run', FILE, '--home', home, ...args], {
    env: { PATH: process.env.PATH, HOME: home },
  });
}

describe('workflow run progress, piped', () => {
  it('prints a plain line every --progress-every while the step computes, figures adding up, no escape codes', {
    timeout: 30_000,
  }, async () => {
    const ran = await run('--progress-every', '0.2');
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).not.toContain(ESC);
    expect(ran.stdout).not.toContain('\r');
    const lines = ran.stdout.split('\n');
    const started = lines.indexOf('ask: 40 item(s), 0 reused');
    const ended = lines.indexOf('ask: 40 computed, 0 reused, 0 failed, 0 blocked');
    expect(started).toBeGreaterThan(0);
    expect(ended).toBeGreaterThan(started);
    const progress = lines.slice(started + 1, ended);
    // 20 rounds of 100 ms: about 2 s, a line every 0.2 s.
    expect(progress.length).toBeGreaterThanOrEqual(3);
    const done: number[] = [];
    for (const line of progress) {
      const figures = PIPED.exec(line);
      expect(figures, line).not.toBeNull();
      const [, count, percent, perMinute, usd] = figures as RegExpExecArray;
      done.push(Number(count));
      expect(Number(percent)).toBe(Math.floor((Number(count) / 40) * 100));
      expect(usd).toBe((Number(count) * USD_PER_ITEM).toFixed(2));
      if (Number(count) > 0) expect(Number(perMinute)).toBeGreaterThan(0);
    }
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(done.at(-1)).toBeGreaterThan(done[0] as number);
    expect(lines.slice(ended + 1, ended + 3)).toEqual([
      'tally: 1 item(s), 0 reused',
      'tally: 1 computed, 0 reused, 0 failed, 0 blocked',
    ]);
    expect(ran.stdout).toMatch(/\nrun \w{26}: succeeded\n$/);
  });

  it('--quiet prints the plan and how the run ended, no progress', { timeout: 30_000 }, async () => {
    const ran = await run('--quiet', '--progress-every', '0.1', '--param', 'ms=20');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^plan for a new run of progress\n/);
    expect(ran.stdout).not.toMatch(/^(ask|tally):/m);
    expect(ran.stdout).toMatch(/\n\nrun \w{26}: succeeded\n$/);
  });

  it('refuses a --progress-every that is not a number of seconds (exit 2), before planning', async () => {
    const ran = await run('--progress-every', 'soon');
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain('--progress-every "soon": a number of seconds, 0.1 or more');
  });
});

const available = tmuxAvailable();

describe.skipIf(!available)('workflow run progress, on a terminal', () => {
  let terminal: Terminal | undefined;
  afterEach(async () => {
    await terminal?.kill();
    terminal = undefined;
  });

  /** Runs the CLI in tmux (120×30), its output recorded from its first byte; resolves with the final screen and the raw output. */
  async function onTerminal(...args: string[]): Promise<{ screen: string; raw: string }> {
    const go = join(home, 'go');
    const raw = join(home, 'raw');
    // The program waits for `go`, written once the recording is attached, so no byte is missed.
    const waitForGo = 'while [ ! -e "$0" ]; do sleep 0.05; done; exec "$@"';
    terminal = await startTerminal({
      command: ['sh', '-c', waitForGo, go, process.execPath, BIN, 'workflow', 'run', FILE, '--home', home, ...args],
      env: { HOME: home },
      width: 120,
      height: 30,
    });
    await terminal.record(raw);
    writeFileSync(go, '');
    const screen = await terminal.screenWhere((text) => /run \w{26}: succeeded/.test(text), 25_000);
    const deadline = Date.now() + 5_000;
    while ((await terminal.exitStatus()) === undefined && Date.now() < deadline) await sleep(50);
    expect(await terminal.exitStatus()).toBe(0);
    return { screen, raw: existsSync(raw) ? readFileSync(raw, 'utf8') : '' };
  }

  it('redraws one line in place as items complete, and erases it before the final line', {
    timeout: 30_000,
  }, async () => {
    const { screen, raw } = await onTerminal('--param', 'ms=150');
    // The live line's frames, each drawn after an erase of the one before.
    const frames = raw.split(ERASE_LINE).flatMap((chunk) => {
      const match = LIVE.exec(chunk);
      return match ? [{ done: Number(match[1]), usd: match[2] }] : [];
    });
    expect(raw).toContain(`${ERASE_LINE}ask `);
    const counts = [...new Set(frames.map((frame) => frame.done))];
    expect(counts.length).toBeGreaterThanOrEqual(4);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    for (const frame of frames) expect(frame.usd).toBe((frame.done * USD_PER_ITEM).toFixed(2));
    // Redrawn in place: no frame ends its line; the permanent lines do.
    expect(raw).not.toMatch(/ UTC\)\r?\n/);
    const lines = screen.split('\n').map((line) => line.trimEnd());
    expect(lines).toContain('ask: 40 item(s), 0 reused');
    expect(lines).toContain('ask: 40 computed, 0 reused, 0 failed, 0 blocked');
    expect(lines).toContain('tally: 1 computed, 0 reused, 0 failed, 0 blocked');
    expect(lines.some((line) => /[█░]{20}/.test(line))).toBe(false);
    const started = lines.indexOf('ask: 40 item(s), 0 reused');
    expect(lines[started + 1]).toBe('ask: 40 computed, 0 reused, 0 failed, 0 blocked');
  });

  it('--quiet draws nothing: the plan and the final line', { timeout: 30_000 }, async () => {
    const { screen, raw } = await onTerminal('--quiet', '--param', 'ms=20');
    expect(raw).not.toContain(ERASE_LINE);
    expect(screen).not.toMatch(/^(ask|tally)(: | [█░])/m);
    // The heading is checked in what the program wrote: tmux's screen sometimes lacks a pane's first
    // line (seen here: the recording had it, the capture began at the table under it).
    expect(raw).toMatch(/^plan for a new run of progress\r?$/m);
    expect(screen).toMatch(/^step +kind +items/m);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
