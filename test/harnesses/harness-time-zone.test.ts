/**
 * The zone a harness writes its reset time in is the zone HarmFlow reads it in: runAttempt gives the
 * CLI a `TZ` (the link's, else HarmFlow's own) and classifies in that zone. A fake `codex` on PATH
 * writes `try again at <h:mm AM>` in its own process's local time, as codex-rs does, and leaves the
 * instant it meant and the `TZ` it saw beside its private HOME.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AttemptObserver } from '../../src/execution/attempt-observer.js';
import { Recorder } from '../../src/execution/recorder.js';
import { runAttempt } from '../../src/execution/run-attempt.js';
import { codexAdapter } from '../../src/harnesses/codex/index.js';

/** Codex's usage limit, reset 90 minutes ahead and shown like `format_retry_timestamp`'s same-day form. */
const FAKE_CODEX = `#!/usr/bin/env node
const { writeFileSync } = require('node:fs');
const reset = new Date(Math.ceil((Date.now() + 90 * 60_000) / 60_000) * 60_000);
const hours = reset.getHours();
const clock = (hours % 12 || 12) + ':' + String(reset.getMinutes()).padStart(2, '0') + (hours < 12 ? ' AM' : ' PM');
const message = 'You’ve hit your usage limit. Try again at ' + clock + '.';
writeFileSync(process.env.HOME + '/said.json', JSON.stringify({ tz: process.env.TZ, resetsAt: reset.toISOString() }));
console.log(JSON.stringify({ type: 'thread.started', thread_id: 't' }));
console.log(JSON.stringify({ type: 'turn.failed', error: { message } }));
process.exit(1);
`;

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'harmflow-tz-'));
  writeFileSync(join(dir, 'codex'), FAKE_CODEX);
  chmodSync(join(dir, 'codex'), 0o755);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs one Codex turn with the link's `env` and `passEnv`; returns its result and what the CLI said. */
async function codexTurn(env: Record<string, string>, passEnv: string[] = [], hostEnv: NodeJS.ProcessEnv = {}) {
  const attemptDir = join(dir, 'attempt');
  const result = await runAttempt({
    ref: { number: 1, harness: 'codex' },
    adapter: codexAdapter,
    spec: { harness: 'codex', args: [], env, passEnv },
    prompt: 'hello',
    worktree: dir,
    attemptDir,
    deadline: Date.now() + 30_000,
    interruptBudgetMs: 2_000,
    path: [dir, dirname(process.execPath)].join(delimiter),
    hostEnv,
    recorder: new Recorder({ append: () => {} }, 'e1'),
    observer: new AttemptObserver('t', dir),
    forgeDir: join(dir, 'forge'),
  });
  const said = JSON.parse(readFileSync(join(attemptDir, 'home', 'home', 'said.json'), 'utf8'));
  return { result, said: said as { tz: string | undefined; resetsAt: string } };
}

describe('the zone Codex writes its reset in', () => {
  it("is the link's TZ, and the reset is read in it", async () => {
    // Chatham (+13:45 in November) is no test machine's zone.
    const { result, said } = await codexTurn({ TZ: 'Pacific/Chatham' });
    expect(said.tz).toBe('Pacific/Chatham');
    expect(result.outcome).toBe('quota_exhausted');
    expect(result.resetsAt).toBe(said.resetsAt);
  });

  it('is a TZ the link passes through from the host', async () => {
    const { result, said } = await codexTurn({}, ['TZ'], { TZ: 'Asia/Kathmandu' });
    expect(said.tz).toBe('Asia/Kathmandu');
    expect(result.resetsAt).toBe(said.resetsAt);
  });

  it("is HarmFlow's own zone when the link sets none", async () => {
    const { result, said } = await codexTurn({});
    expect(said.tz).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(result.resetsAt).toBe(said.resetsAt);
  });
});
