/**
 * Memory of the session service per live execution (issue 4): the memory of `harmflow serve` alone
 * (its harness processes are not counted) with 200 executions running at once, each one's harness
 * alive for the whole measurement. Target: ≤ 10 MB per live execution.
 *
 * The daemon is the real one, a child process (`bin/harmflow.js serve`) over a temporary
 * HARMFLOW_HOME and a one-commit repository. The harness is a stand-in `claude` first on the
 * daemon's PATH: a shell script that prints three lines of a recorded Claude Code session (the
 * system init, an assistant tool call, its result), then `exec sleep`, so 200 of them cost 200
 * `sleep` processes and fit on a small machine. Tasks use `claude-code` without `simulate`, as a
 * real harness would run.
 *
 * Measured from /proc/<pid>: VmRSS (status) and Pss (smaps_rollup), and the JS heap from a Node
 * diagnostic report the daemon writes on SIGUSR2 (`--report-on-signal`, a Node flag, no product
 * code). Baseline, same run and same daemon: idle with 0 executions; then 50 and 200 live (50 shows
 * whether the growth is linear). Per live execution = (figure with n live − figure idle) / n. Each
 * measurement follows a settle time and forces nothing (no GC).
 *
 *   node bench/memory.mjs [--executions N]     (after `npm run build`)
 *
 * Cleanup, however the run ends: `POST /api/stop`, then a kill of the daemon if it has not exited,
 * then SIGKILL to every harness process group it started (their ids from each attempt's `pgid`
 * file), then the temporary directory is removed.
 */

import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { harmflowHome } from '../dist/core/home.js';
import { procKiB, startBenchDaemon } from './daemon.mjs';
import { machine } from './machine.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RECORDED = join(ROOT, 'test', 'fixtures', 'claude-code', 'recorded', 'edit.jsonl');
const TOKEN = 'memory-bench-token-0123456789';

const executions = Number(process.argv[process.argv.indexOf('--executions') + 1]) || 200;
if (!Number.isInteger(executions) || executions < 2) throw new Error('--executions: an integer of at least 2');
/** The counts measured after idle: a quarter shows whether memory grows linearly up to the full count. */
const STEPS = [Math.ceil(executions / 4), executions];
/** 10 MB: issue 4's target for the daemon's memory per live execution. */
const TARGET_MB = 10;
/** 3 s: after the last harness printed its lines, long enough for the event writes and the HTTP work to finish. */
const SETTLE_MS = 3_000;
/**
 * 120 s: 200 submits (preflight, `git worktree add`, the store) and their harnesses' start took
 * about 16 s on a 2-core machine (`readyMs` in the results).
 */
const ALL_RUNNING_MS = 120_000;
/** 15 s: the daemon's close budget is 2 s and a `sleep` exits on SIGINT at once. */
const STOP_MS = 15_000;
/** 30 s: one API call; a submit took under 100 ms here, so only a stuck daemon reaches it. */
const REQUEST_MS = 30_000;
/** 250 ms between checks for "all running": each check lists every live execution, so not much more often. */
const POLL_MS = 250;

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@harmflow.invalid',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@harmflow.invalid',
};

const dir = mkdtempSync(join(tmpdir(), 'harmflow-bench-memory-'));
const home = harmflowHome(join(dir, 'home'));
const reports = join(dir, 'reports');
/** The harness lines every attempt prints, kept to check that each one's stdout reached the daemon. */
const lines = `${readFileSync(RECORDED, 'utf8').split('\n').slice(0, 3).join('\n')}\n`;
const ids = [];
let daemon;

try {
  const repo = setUp();
  daemon = await startBenchDaemon({
    home,
    token: TOKEN,
    args: ['--max-running', '1000', '--disk-floor-gib', '0', '--interrupt-budget', '1s', '--close-budget', '2s'],
    nodeArgs: ['--report-on-signal', '--report-signal=SIGUSR2', `--report-directory=${reports}`, '--report-compact'],
    env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}` },
    label: 'memory',
    requestMs: REQUEST_MS,
    stopMs: STOP_MS,
  });
  await sleep(SETTLE_MS);
  const samples = [{ live: 0, ...(await measure(daemon.child.pid)) }];
  for (const count of STEPS) {
    const started = performance.now();
    while (ids.length < count) ids.push(await submit(daemon, repo, ids.length));
    await allRunning(daemon);
    const readyMs = Math.round(performance.now() - started);
    await sleep(SETTLE_MS);
    samples.push({ live: count, readyMs, ...(await measure(daemon.child.pid)) });
  }
  const [idle] = samples;
  const perExecution = samples.slice(1).map((sample) => ({
    live: sample.live,
    rssMiB: round((sample.rssKiB - idle.rssKiB) / 1024 / sample.live),
    pssMiB: sample.pssKiB === undefined ? undefined : round((sample.pssKiB - idle.pssKiB) / 1024 / sample.live),
    heapUsedMiB: round((sample.heapUsedBytes - idle.heapUsedBytes) / 1024 ** 2 / sample.live),
    fds: round((sample.fds - idle.fds) / sample.live),
  }));
  // What each execution past the first step adds: without the one-time cost of the first ones
  // (modules loaded on first use, compiled code, the heap's growth).
  const [, first, last] = samples;
  const marginal = {
    from: first.live,
    to: last.live,
    rssMiB: round((last.rssKiB - first.rssKiB) / 1024 / (last.live - first.live)),
    pssMiB:
      last.pssKiB === undefined ? undefined : round((last.pssKiB - first.pssKiB) / 1024 / (last.live - first.live)),
    heapUsedMiB: round((last.heapUsedBytes - first.heapUsedBytes) / 1024 ** 2 / (last.live - first.live)),
  };
  const full = perExecution.at(-1);
  console.log(
    JSON.stringify(
      {
        benchmark: 'memory',
        machine: machine(),
        date: new Date().toISOString(),
        daemon: 'harmflow serve --port 0 --max-running 1000 --disk-floor-gib 0 --interrupt-budget 1s --close-budget 2s',
        harness: 'stand-in claude on PATH: 3 recorded stream-json lines, then exec sleep',
        settleMs: SETTLE_MS,
        samples: samples.map(({ heapUsedBytes, heapTotalBytes, ...rest }) => ({
          ...rest,
          heapUsedMiB: round(heapUsedBytes / 1024 ** 2),
          heapTotalMiB: round(heapTotalBytes / 1024 ** 2),
        })),
        perExecution,
        marginal,
        targetMB: TARGET_MB,
        // On RSS, the larger figure; the target is in MB (10^6 bytes), the figures in MiB.
        met: (full.rssMiB * 1024 ** 2) / 1e6 <= TARGET_MB,
      },
      null,
      2,
    ),
  );
} finally {
  await cleanUp();
}

/** The repository (one file, one commit on `main`), the stand-in `claude` and the report folder. */
function setUp() {
  const repo = join(dir, 'repo');
  mkdirSync(repo);
  mkdirSync(home.root, { recursive: true });
  mkdirSync(reports);
  writeFileSync(join(repo, 'README.md'), '# bench\n');
  git(repo, 'init', '--quiet', '--initial-branch=main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'initial');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  // Beside the stand-in: its folder, on the PATH, is what the sandbox's private /tmp lets it read.
  writeFileSync(join(bin, 'session.jsonl'), lines);
  const claude = join(bin, 'claude');
  writeFileSync(
    claude,
    [
      '#!/bin/sh',
      'if [ "$1" = "--version" ]; then echo "2.1.332 (Claude Code)"; exit 0; fi',
      `cat '${join(bin, 'session.jsonl')}'`,
      'exec sleep 600',
      '',
    ].join('\n'),
  );
  chmodSync(claude, 0o755);
  return repo;
}

async function submit(live, repo, n) {
  const task = { name: `memory-${n}`, repo, baseRef: 'main', prompt: `Task ${n}.`, harness: 'claude-code' };
  const created = await live.api('POST', '/api/executions', { task });
  if (created.status !== 201) throw new Error(`submit ${n}: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.execution.id;
}

/** Waits until every submitted execution is `running` and its harness has printed all its lines. */
async function allRunning(live) {
  const deadline = Date.now() + ALL_RUNNING_MS;
  for (;;) {
    const admission = await live.api('GET', '/api/admission');
    const listed = await live.api('GET', '/api/executions?state=live');
    const running = new Set(listed.body.executions.filter((e) => e.state === 'running').map((e) => e.id));
    const ready =
      admission.body.running === ids.length &&
      ids.every((id) => running.has(id) && printed(id) && existsSync(join(home.attemptDir(id, 1), 'pgid')));
    if (ready) return;
    if (Date.now() > deadline) {
      throw new Error(
        `${ids.length} executions were not all running within ${ALL_RUNNING_MS / 1000} s (admission running: ${admission.body.running}, state running: ${running.size})`,
      );
    }
    await sleep(POLL_MS);
  }
}

function printed(id) {
  const file = join(home.attemptDir(id, 1), 'stdout.log');
  return existsSync(file) && statSync(file).size === Buffer.byteLength(lines);
}

/** RSS and PSS from /proc, open descriptors, then the JS heap from a diagnostic report. */
async function measure(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKiB = procKiB(status, 'VmRSS');
  const rollup = `/proc/${pid}/smaps_rollup`;
  const pssKiB = existsSync(rollup) ? procKiB(readFileSync(rollup, 'utf8'), 'Pss') : undefined;
  const fds = readdirSync(`/proc/${pid}/fd`).length;
  const heap = await report(pid);
  return { rssKiB, ...(pssKiB !== undefined && { pssKiB }), fds, ...heap };
}

/** Asks the daemon for a diagnostic report (SIGUSR2) and reads its JS heap; 10 s at most. */
async function report(pid) {
  const before = new Set(readdirSync(reports));
  process.kill(pid, 'SIGUSR2');
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(100)) {
    const file = readdirSync(reports).find((name) => !before.has(name));
    if (file === undefined) continue;
    try {
      const { javascriptHeap } = JSON.parse(readFileSync(join(reports, file), 'utf8'));
      return { heapUsedBytes: javascriptHeap.usedMemory, heapTotalBytes: javascriptHeap.totalMemory };
    } catch {
      // Still being written.
    }
  }
  throw new Error('the daemon wrote no diagnostic report within 10 s');
}

async function cleanUp() {
  await daemon?.stop();
  rmSync(dir, { recursive: true, force: true });
}

function round(value) {
  return Math.round(value * 1000) / 1000;
}

function git(cwd, ...args) {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...IDENTITY } });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
}
