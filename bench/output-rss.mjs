/**
 * The daemon's memory while a harness prints a lot (issue 21, item 4: one 200 MB stdout line took
 * `harmflow serve` from 123 MB to 1.36 GB RSS and was stored whole in events.jsonl). Target: the
 * daemon's RSS stays flat while a harness prints 1 GB in 10 MB lines.
 *
 * The daemon is the real one, a child process (`bin/harmflow.js serve`) over a temporary
 * HARMFLOW_HOME and a one-commit repository. The harness is a stand-in `claude` first on the
 * daemon's PATH: a Node script that prints the init line of a recorded Claude Code session, then
 * `--total-mb` of text in lines of the size its task's `args` give (none of them JSON, so each is a
 * `raw` record), then the session's recorded result line, and exits; the execution succeeds.
 *
 * Two cases, each on a fresh daemon and home, in one run: **long lines** (`--long-mb`, 10 MB each:
 * the case under test) and, as the baseline, **short lines** (`--short-bytes`, 1,000 bytes each: the
 * same bytes in lines no bound touches). Each daemon is first sampled idle (`IDLE_MS`). RSS is
 * `VmRSS` from /proc/<pid>/status every `SAMPLE_MS`, and with it `VmHWM` (the kernel's high-water mark
 * of RSS, so a peak between two samples is not missed). Phases: idle; printing (submit until the attempt's stdout.log holds every byte the
 * harness prints); after (until the execution has ended: the attempt's records are read back, the
 * workspace inspected, context.json written). Each case also reports what it measured against: how
 * the execution ended (or how the daemon did, if it died: that is reported, not thrown), whether
 * stdout.log holds every byte, and the longest line of events.jsonl against the record bound.
 *
 *   node bench/output-rss.mjs [--total-mb 1000] [--long-mb 10] [--short-bytes 1000]   (after `npm run build`)
 *
 * Cleanup, however the run ends: `POST /api/stop`, then a kill of the daemon if it has not exited,
 * then SIGKILL to the harness's process group (its id from the attempt's `pgid` file), then the
 * temporary directory is removed.
 */

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { harmflowHome } from '../dist/core/home.js';
import { RECORD_LIMIT_BYTES } from '../dist/events/bound.js';
import { procKiB, startBenchDaemon } from './daemon.mjs';
import { machine } from './machine.mjs';
import { option } from './options.mjs';
import { median, round } from './stats.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RECORDED = join(ROOT, 'test', 'fixtures', 'claude-code', 'recorded', 'edit.jsonl');
const TOKEN = 'output-rss-bench-token-0123456789';

const totalBytes = option('--total-mb', 1000) * 1e6;
const CASES = [
  { name: 'long lines', lineBytes: option('--long-mb', 10) * 1e6 },
  { name: 'short lines (baseline)', lineBytes: option('--short-bytes', 1000) },
];
/** 100 ms between samples: a 10 MB line reaches the daemon in about that time, so a spike per line shows. */
const SAMPLE_MS = 100;
/** 3 s idle after the daemon listens: its start-up work (the store, the first routes) is over by then. */
const IDLE_MS = 3_000;
/**
 * 20 min for one execution: 1 GB of 1,000-byte lines is a million records, which the daemon appended
 * at about 25,000 a second on a 2-core machine.
 */
const RUN_MS = 1_200_000;
/** 30 s: one API call; only a stuck daemon takes that long. */
const REQUEST_MS = 30_000;
/** 15 s: the daemon's close budget is 2 s and the stand-in has exited by then. */
const STOP_MS = 15_000;

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@harmflow.invalid',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@harmflow.invalid',
};

const dir = mkdtempSync(join(tmpdir(), 'harmflow-bench-output-rss-'));
const recorded = readFileSync(RECORDED, 'utf8').split('\n').filter(Boolean);
const [init, result] = [recorded[0], recorded.at(-1)];
let daemon;
let home;

try {
  const repo = setUp();
  const cases = [];
  for (const [index, bench] of CASES.entries()) {
    home = harmflowHome(join(dir, `home-${index}`));
    mkdirSync(home.root, { recursive: true });
    cases.push(await measureCase(bench, repo));
    await daemon.stop();
    daemon = undefined;
  }
  console.log(
    JSON.stringify(
      {
        benchmark: 'output-rss',
        machine: machine(),
        date: new Date().toISOString(),
        daemon: 'harmflow serve --port 0 --disk-floor-gib 0 --interrupt-budget 1s --close-budget 2s',
        harness: `stand-in claude on PATH: ${totalBytes / 1e6} MB of text in lines of the given size, then a recorded result`,
        sampleMs: SAMPLE_MS,
        cases,
      },
      null,
      2,
    ),
  );
} catch (error) {
  if (daemon !== undefined) {
    const { exitCode, signalCode } = daemon.child;
    process.stderr.write(
      `output-rss: the daemon (exit ${exitCode}, signal ${signalCode}) printed:\n${daemon.output()}\n`,
    );
  }
  throw error;
} finally {
  await daemon?.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** The repository (one file, one commit on `main`) and the stand-in `claude`. */
function setUp() {
  const repo = join(dir, 'repo');
  mkdirSync(repo);
  writeFileSync(join(repo, 'README.md'), '# bench\n');
  git(repo, 'init', '--quiet', '--initial-branch=main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'initial');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const claude = join(bin, 'claude');
  writeFileSync(
    claude,
    `#!${process.execPath}
// Prints the recorded init line, --total-bytes in lines of --line-bytes (newline included), about
// 1 MiB a write, then the recorded result line; waits for the pipe to drain between writes.
const arg = (name) => Number(process.argv[process.argv.indexOf(name) + 1]);
const size = arg('--line-bytes');
let left = Math.floor(arg('--total-bytes') / size);
const line = Buffer.alloc(size, 'x');
line[size - 1] = 10;
const perWrite = Math.max(1, Math.floor(1048576 / size));
const block = Buffer.concat(Array.from({ length: perWrite }, () => line));
process.stdout.write(${JSON.stringify(`${init}\n`)});
function pump() {
  while (left > 0) {
    const lines = Math.min(perWrite, left);
    left -= lines;
    if (!process.stdout.write(block.subarray(0, lines * size))) return process.stdout.once('drain', pump);
  }
  process.stdout.write(${JSON.stringify(`${result}\n`)});
}
pump();
`,
  );
  chmodSync(claude, 0o755);
  return repo;
}

/** One case on a fresh daemon: idle samples, then one execution printing `totalBytes` in lines of `lineBytes`. */
async function measureCase({ name, lineBytes }, repo) {
  daemon = await startBenchDaemon({
    home,
    token: TOKEN,
    args: ['--disk-floor-gib', '0', '--interrupt-budget', '1s', '--close-budget', '2s'],
    env: { ...process.env, ...IDENTITY, PATH: `${join(dir, 'bin')}:${process.env.PATH}` },
    label: 'output-rss',
    requestMs: REQUEST_MS,
    stopMs: STOP_MS,
  });
  const pid = daemon.child.pid;
  const idle = await sampleFor(pid, IDLE_MS);
  const lines = Math.floor(totalBytes / lineBytes);
  const printedBytes = Buffer.byteLength(`${init}\n${result}\n`) + lines * lineBytes;
  const task = {
    name: 'output-rss',
    repo,
    baseRef: 'main',
    prompt: 'Print a lot.',
    timeout: '30m',
    harness: { harness: 'claude-code', args: ['--line-bytes', String(lineBytes), '--total-bytes', String(totalBytes)] },
  };
  const started = performance.now();
  const created = await daemon.api('POST', '/api/executions', { task });
  if (created.status !== 201) throw new Error(`submit: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.execution.id;
  const stdoutLog = join(home.attemptDir(id, 1), 'stdout.log');
  const printing = [];
  const after = [];
  let printedMs;
  let hwmMiB = 0;
  let end;
  for (const deadline = Date.now() + RUN_MS; end === undefined; await sleep(SAMPLE_MS)) {
    if (daemon.child.exitCode !== null || daemon.child.signalCode !== null) {
      end = `the daemon exited (code ${daemon.child.exitCode}, signal ${daemon.child.signalCode})`;
      break;
    }
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    hwmMiB = procKiB(status, 'VmHWM') / 1024;
    if (printedMs === undefined && (statSync(stdoutLog, { throwIfNoEntry: false })?.size ?? 0) >= printedBytes) {
      printedMs = performance.now() - started;
    }
    (printedMs === undefined ? printing : after).push(procKiB(status, 'VmRSS') / 1024);
    const state = await stateOf(id);
    if (state !== undefined && !['queued', 'running', 'waiting'].includes(state)) end = state;
    else if (Date.now() > deadline) throw new Error(`${name}: the execution had not ended after ${RUN_MS / 1000} s`);
  }
  const durationMs = performance.now() - started;
  const eventsFile = home.eventsFile(id);
  const eventsLongestLineBytes = await longestLine(eventsFile);
  return {
    case: name,
    lineBytes,
    lines,
    end,
    printingS: round((printedMs ?? durationMs) / 1000),
    durationS: round(durationMs / 1000),
    rssMiB: { idle: figures(idle), printing: figures(printing), after: figures(after), peakHwm: round(hwmMiB) },
    stdoutLogBytes: statSync(stdoutLog).size,
    stdoutLogWhole: statSync(stdoutLog).size === printedBytes,
    eventsBytes: statSync(eventsFile).size,
    eventsLongestLineBytes,
    eventsWithinBound: eventsLongestLineBytes <= RECORD_LIMIT_BYTES,
  };
}

/** Samples the daemon's RSS every SAMPLE_MS for `ms`. */
async function sampleFor(pid, ms) {
  const samples = [];
  for (const end = Date.now() + ms; Date.now() < end; await sleep(SAMPLE_MS)) {
    samples.push(procKiB(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS') / 1024);
  }
  return samples;
}

/** The execution's state, or undefined when the daemon did not answer (busy, or gone). */
async function stateOf(id) {
  try {
    return (await daemon.api('GET', `/api/executions/${id}`)).body.execution.state;
  } catch {
    return undefined;
  }
}

function figures(samples) {
  if (samples.length === 0) return { n: 0 };
  return { median: round(median(samples)), peak: round(Math.max(...samples)), n: samples.length };
}

/** The longest line of a file in bytes, newline excluded, read 1 MiB at a time. */
async function longestLine(path) {
  const file = await open(path, 'r');
  try {
    const chunk = Buffer.alloc(1024 * 1024);
    let longest = 0;
    let current = 0;
    for (;;) {
      const { bytesRead } = await file.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) return Math.max(longest, current);
      let start = 0;
      for (let newline = chunk.indexOf(10, start); newline !== -1 && newline < bytesRead; ) {
        longest = Math.max(longest, current + newline - start);
        current = 0;
        start = newline + 1;
        newline = chunk.indexOf(10, start);
      }
      current += bytesRead - start;
    }
  } finally {
    await file.close();
  }
}

function git(cwd, ...args) {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...IDENTITY } });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
}
