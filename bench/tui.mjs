/**
 * `harmflow ui` on a long execution: a real `harmflow serve` runs a simulated claude-code that says
 * `--lines` lines (20,000 by default, ~20,000 records), then the terminal UI (the built App, drawn by
 * Ink's test renderer at 80×24, through the CLI's client) opens it. Measured:
 *  - open: from the `Enter` that opens the execution to the frame whose timeline shows its last
 *    record (`execution.ended`), against the same-run baseline: the client's event stream alone
 *    reading every record to its end (what the UI cannot be faster than);
 *  - a key on its Events timeline: from `k` (one record up) to the frame showing the new selection,
 *    and from `n` near the top to the next switch-related record, the attempt's end at the bottom (a
 *    search over the whole timeline);
 *  - the Transcript: from `3` to the frame showing its end (every record wrapped to 80 columns).
 * The test renderer draws every frame at once (no terminal, no frame throttling), so these are the
 * UI's own costs: reducing keys, describing, filtering and wrapping records, and React's render.
 *
 *   node bench/tui.mjs [--lines N] [--presses N]      (after `npm run build`)
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { stringify } from 'yaml';
import { createClient } from '../dist/cli/client.js';
import { App } from '../dist/tui/app.js';
import { clientSource } from '../dist/tui/source.js';
import { machine } from './machine.mjs';
import { option } from './options.mjs';
import { round, summary } from './stats.mjs';

const LINES = option('--lines', 20_000);
const PRESSES = option('--presses', 30);
const TOKEN = 'bench-token-0123456789';
const BIN = fileURLToPath(new URL('../bin/harmflow.js', import.meta.url));
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const dir = mkdtempSync(join(tmpdir(), 'harmflow-bench-tui-'));
let daemon;
try {
  const repo = makeRepo(join(dir, 'repo'));
  const scenario = join(dir, 'long.scenario.yaml');
  writeFileSync(
    scenario,
    stringify({
      steps: [...Array.from({ length: LINES }, (_, at) => ({ say: `line ${at + 1}` })), { end: 'complete' }],
    }),
  );
  daemon = await startDaemon(join(dir, 'home'));
  const client = createClient({ url: daemon.url, token: { token: TOKEN, from: 'bench' } });
  const { id } = await client.submit({
    name: 'long',
    repo,
    baseRef: 'main',
    prompt: 'Say many lines.',
    harness: { harness: 'claude-code', simulate: scenario, passEnv: Object.keys(GIT_ENV) },
    timeout: '30m',
  });
  await until(async () => (await client.execution(id)).execution.state === 'succeeded', 600_000);

  const baseline = await streamToEnd(client, id);
  const measured = await measureUi(client, id);
  process.stdout.write(
    `${JSON.stringify(
      {
        benchmark: 'tui',
        date: new Date().toISOString(),
        machine: { ...machine(), loadAvg1m: round(loadavg()[0]) },
        lines: LINES,
        records: baseline.records,
        streamToEndMs: baseline.ms,
        ...measured,
      },
      null,
      2,
    )}\n`,
  );
} finally {
  daemon?.child.kill('SIGTERM');
  await sleep(500);
  rmSync(dir, { recursive: true, force: true });
}

/** A repository with one commit on `main`. */
function makeRepo(repo) {
  mkdirSync(repo, { recursive: true });
  const git = (...args) => {
    const run = spawnSync('git', args, { cwd: repo, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  };
  git('init', '--quiet', '--initial-branch=main');
  writeFileSync(join(repo, 'README.md'), 'bench\n');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'initial');
  return repo;
}

/** `harmflow serve` on `home`, a free port and the bench's token; resolves once it listens. */
async function startDaemon(home) {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--home', home, '--disk-floor-gib', '0'], {
    env: { ...process.env, ...GIT_ENV, HARMFLOW_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /HarmFlow service on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${output}`)));
  });
  return { url, child };
}

async function until(check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The client's event stream alone, from the first record to the end: `{ records, ms }`. */
function streamToEnd(client, id) {
  const started = performance.now();
  let records = 0;
  return new Promise((resolve, reject) => {
    const stream = client.events(id, {
      onRecord: () => {
        records += 1;
      },
      onEnd: () => {
        stream.close();
        resolve({ records, ms: round(performance.now() - started) });
      },
      onError: reject,
    });
  });
}

/** The UI's figures (see the file comment). */
async function measureUi(client, id) {
  const app = render(createElement(App, { source: clientSource(client), color: false, width: 80, height: 24 }));
  const frame = () => app.lastFrame() ?? '';
  const frameWhere = async (accept, timeoutMs = 120_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!accept(frame())) {
      if (Date.now() > deadline) throw new Error(`no such frame; the last was:\n${frame()}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const selected = () =>
    frame()
      .split('\n')
      .find((line) => line.startsWith('›')) ?? '';
  try {
    await frameWhere((text) => text.includes('[Executions]'));
    app.stdin.write('\t');
    await frameWhere((text) => text.includes(id.slice(0, 14)));
    app.stdin.write('/');
    for (const character of id.slice(0, 14)) app.stdin.write(character);
    app.stdin.write('\r');
    app.stdin.write('j');
    await frameWhere(() => selected().includes(id.slice(0, 14)));
    const opened = performance.now();
    app.stdin.write('\r');
    await frameWhere((text) => text.includes('[1 Summary]'));
    app.stdin.write('2');
    await frameWhere((text) => text.includes('[2 Events]') && text.includes('execution.ended'));
    const openMs = round(performance.now() - opened);

    const keyMs = [];
    for (let press = 0; press < PRESSES; press += 1) {
      const before = selected();
      const at = performance.now();
      app.stdin.write('k');
      await frameWhere(() => selected() !== before);
      keyMs.push(performance.now() - at);
    }
    const searchMs = [];
    for (let press = 0; press < PRESSES; press += 1) {
      app.stdin.write('g');
      await frameWhere(() => selected().includes('execution.started'));
      for (let step = 0; step < 3; step += 1) app.stdin.write('j');
      await frameWhere(() => /^› \S+ #1 /.test(selected()) && !selected().includes('attempt.started'));
      const at = performance.now();
      app.stdin.write('n');
      await frameWhere(() => selected().includes('attempt.ended'));
      searchMs.push(performance.now() - at);
    }
    const transcribed = performance.now();
    app.stdin.write('3');
    await frameWhere((text) => text.includes('[3 Transcript]') && text.includes(`line ${LINES}`));
    const transcriptMs = round(performance.now() - transcribed);
    return { openMs, keyMs: summary(keyMs), searchToEndMs: summary(searchMs), transcriptMs };
  } finally {
    app.unmount();
  }
}
