/**
 * `harmflow events` (and `run`, which prints the same timeline) prints for where its stdout goes (src/cli/timeline-output.ts): piped, every line
 * whole and no colour; on a terminal (a real pty, from util-linux's `script`), cut at the terminal's
 * width and its states and outcomes coloured; no colour under NO_COLOR, colour under FORCE_COLOR
 * even when piped. One real run (claude-code out of quota after a long message, then codex) gives
 * it a timeline. Needs dist/ built.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EXIT } from '../../src/core/errors.js';
import { type Bench, GIT_IDENTITY, makeBench, simulated } from '../execution/fixture.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
/** Longer than any terminal here is wide: the timeline used to cut it at 100 characters. */
const LONG = `I looked at every file; ${'the slug keeps its dashes and '.repeat(8)}end of the message.`;
/** An SGR sequence (colour): ESC [ … m. */
const SGR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

let bench: Bench;
let id: string;

beforeAll(async () => {
  bench = makeBench();
  const claude = bench.scenario('claude', { steps: [{ say: LONG }, { end: 'quota' }] });
  const codex = bench.scenario('codex', { steps: [{ say: 'done' }, { end: 'complete' }] });
  const result = await bench.run(
    bench.task({
      name: 'events-output',
      repo: 'repo',
      baseRef: 'main',
      prompt: 'Do it.',
      harness: simulated('claude-code', claude),
      fallbacks: [simulated('codex', codex)],
    }),
  );
  expect(result.state).toBe('succeeded');
  id = result.id;
}, 120_000);
afterAll(async () => {
  await bench?.cleanup();
});

const baseEnv = () => ({ PATH: process.env.PATH, HARMFLOW_HOME: bench.home.root });

/** `harmflow events ID` with stdout a pipe. */
function piped(env: Record<string, string> = {}) {
  const ran = spawnSync(process.execPath, [BIN, 'events', id], { encoding: 'utf8', env: { ...baseEnv(), ...env } });
  expect(ran.status, ran.stderr).toBe(EXIT.ok);
  return ran.stdout;
}

/** `harmflow events ID` with stdout a terminal `columns` wide (a pty made by `script`). */
function onTerminal(columns: number, env: Record<string, string> = {}) {
  const command = `stty cols ${columns} rows 50; exec "${process.execPath}" "${BIN}" events ${id}`;
  const ran = spawnSync('script', ['-qefc', command, '/dev/null'], {
    encoding: 'utf8',
    env: { ...baseEnv(), TERM: 'xterm-256color', ...env },
  });
  expect(ran.status, ran.stderr).toBe(EXIT.ok);
  return ran.stdout.replace(/\r\n/g, '\n');
}

describe('harmflow events', () => {
  it('piped: every line whole, no colour', () => {
    const out = piped();
    expect(out).toContain(LONG);
    expect(out).not.toContain('\x1b[');
  });

  it('on a terminal: each line cut at its width, states and outcomes coloured', { timeout: 30_000 }, () => {
    const lines = onTerminal(100).trimEnd().split('\n');
    const plain = lines.map((line) => line.replace(SGR, ''));
    expect(plain.filter((line) => line.includes('message'))[0]).toMatch(/…$/);
    for (const line of plain) expect([...line].length).toBeLessThanOrEqual(100);
    const text = lines.join('\n');
    expect(text).toContain('\x1b[33mquota_exhausted\x1b[39m');
    expect(text).toContain('\x1b[32mcompleted\x1b[39m');
    expect(text).toContain('\x1b[32msucceeded\x1b[39m');
    const switchLine = lines.find((line) => line.includes('SWITCH')) ?? '';
    expect(switchLine.startsWith('\x1b[33m') && switchLine.endsWith('\x1b[39m')).toBe(true);
  });

  it('on a terminal under NO_COLOR: cut, and no colour', { timeout: 30_000 }, () => {
    const out = onTerminal(80, { NO_COLOR: '1' });
    expect(out).not.toContain('\x1b[');
    expect(out).toContain('succeeded');
  });

  it('run prints the same timeline: piped, whole and plain', { timeout: 60_000 }, () => {
    const task = join(bench.dir, 'task.yaml');
    const scenario = bench.scenario('run', { steps: [{ say: LONG }, { end: 'complete' }] });
    writeFileSync(
      task,
      stringify({
        name: 'run-output',
        repo: 'repo',
        baseRef: 'main',
        prompt: 'Do it.',
        harness: simulated('codex', scenario),
      }),
    );
    const ran = spawnSync(process.execPath, [BIN, 'run', task], {
      encoding: 'utf8',
      env: { ...baseEnv(), ...GIT_IDENTITY },
    });
    expect(ran.status, ran.stderr).toBe(EXIT.ok);
    expect(ran.stdout).toContain(LONG);
    expect(ran.stdout).not.toContain('\x1b[');
  });

  it('piped under FORCE_COLOR: coloured, and whole', () => {
    const out = piped({ FORCE_COLOR: '1' });
    expect(out).toContain('\x1b[32msucceeded\x1b[39m');
    expect(out.replace(SGR, '')).toContain(LONG);
    expect(piped({ FORCE_COLOR: '0' })).not.toContain('\x1b[');
  });
});
