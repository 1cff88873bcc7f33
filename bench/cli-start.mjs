/**
 * How long the `harmflow` verbs people and agents type all day take, from spawn to exit, beside a
 * bare `node -e ""` measured in the same rounds (issue 24's floor). Target: every verb's median
 * ≤ 1.5× the bare start. Rounds interleave the commands, so load on the machine falls on all alike.
 *
 * Verbs: `--version`, `--help`, `ls`, `show ID`, `events ID` (a 1,000-record log), over a state
 * directory made here (one execution, its log), and `ls` run by the whole program (dist/cli/main.js,
 * every verb registered: how every verb started before the bundled entries) as a same-run reference.
 * With each verb's time: the bundled entry that ran it (src/cli/bundled-verbs.ts), the modules its
 * process imported (a module hook, scripts/loaded-modules.mjs) and the packages in its entry — which
 * is where its time goes: a verb that reads a file need not load hono, ink or pg. One warm-up round,
 * not counted, writes the entries' code caches as a first run after a build does.
 *
 *   node bench/cli-start.mjs [--rounds N]      (after `npm run build`)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryFor } from '../dist/cli/bundled-verbs.js';
import { harmflowHome } from '../dist/core/home.js';
import { openEventLog } from '../dist/events/log.js';
import { openSqliteStore } from '../dist/store/sqlite/sqlite-store.js';
import { machine } from './machine.mjs';
import { option } from './options.mjs';
import { median } from './stats.mjs';

const rounds = option('--rounds', 30);
const bin = fileURLToPath(new URL('../bin/harmflow.js', import.meta.url));
const hook = fileURLToPath(new URL('../scripts/loaded-modules.mjs', import.meta.url));
const wholeProgram = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const manifest = JSON.parse(readFileSync(new URL('../dist/cli-bundle/manifest.json', import.meta.url), 'utf8'));
const EXECUTION = '01jf3k9x7q2m4n6p8r0s2t4v6w';
const RECORDS = 1000;

const dir = mkdtempSync(join(tmpdir(), 'harmflow-cli-start-'));
const home = harmflowHome(join(dir, 'home'));
await makeHome();

const commands = {
  'bare node': ['-e', ''],
  '--version': [bin, '--version'],
  '--help': [bin, '--help'],
  ls: [bin, 'ls', '--home', home.root],
  show: [bin, 'show', EXECUTION, '--home', home.root],
  events: [bin, 'events', EXECUTION, '--home', home.root],
  'ls (whole program)': [wholeProgram, 'ls', '--home', home.root],
};
const env = { ...process.env, NO_COLOR: '1' };
const times = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
const loadBefore = loadavg()[0];
for (let round = -1; round < rounds; round += 1) {
  for (const [name, args] of Object.entries(commands)) {
    const started = process.hrtime.bigint();
    const run = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (run.status !== 0) throw new Error(`${name} exited ${run.status}: ${run.stderr}`);
    if (round >= 0) times[name].push(ms);
  }
}
const bare = median(times['bare node']);
const verbs = {};
for (const [name, args] of Object.entries(commands)) {
  if (name === 'bare node') continue;
  const ms = median(times[name]);
  verbs[name] = {
    medianMs: round1(ms),
    p90Ms: round1(quantile(times[name], 0.9)),
    timesBare: Math.round((ms / bare) * 100) / 100,
    entry: args[0] === bin ? (entryFor(manifest, ['node', ...args]) ?? 'whole program') : 'whole program',
    ...packagesLoaded(args),
  };
}
rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify(
    {
      benchmark: 'cli-start',
      machine: machine(),
      date: new Date().toISOString(),
      rounds,
      oneMinuteLoadAverage: { before: loadBefore, after: loadavg()[0] },
      bareNodeMs: { median: round1(bare), p90: round1(quantile(times['bare node'], 0.9)) },
      verbs,
      target: '≤ 1.5× bare node',
      met: Object.entries(verbs).every(([name, verb]) => name.includes('whole') || verb.timesBare <= 1.5),
    },
    null,
    2,
  )}\n`,
);

/** A state directory with one ended execution and a log of RECORDS records. */
async function makeHome() {
  const store = openSqliteStore(home.database);
  await store.insertTask({
    id: 'task-1',
    name: 'bench',
    definition: { prompt: 'hi' },
    createdAt: new Date().toISOString(),
  });
  await store.insertExecution({
    id: EXECUTION,
    taskId: 'task-1',
    taskName: 'bench',
    repo: '/repos/app',
    baseRef: 'main',
    baseSha: 'a'.repeat(40),
    branch: `harmflow/bench-${EXECUTION}`,
    worktree: home.worktree(EXECUTION),
    runDir: home.runDir(EXECUTION),
    state: 'succeeded',
    createdAt: new Date().toISOString(),
    deadline: new Date(Date.now() + 3_600_000).toISOString(),
    attemptCount: 0,
  });
  await store.close();
  const log = openEventLog(home.eventsFile(EXECUTION), { execution: EXECUTION });
  for (let index = 0; index < RECORDS; index += 1) {
    log.append({
      source: 'harness',
      type: 'message',
      attempt: 1,
      harness: 'claude-code',
      data: { text: `line ${index}` },
    });
  }
  log.close();
}

/**
 * What a run of `args` loads: how many modules it imported (the module hook's list) and how many of
 * them are HarmFlow's, and the node_modules packages among them or in its bundled entry.
 */
function packagesLoaded(args) {
  const list = join(dir, 'loaded.txt');
  rmSync(list, { force: true });
  const run = spawnSync(process.execPath, ['--import', hook, ...args], {
    env: { ...env, HARMFLOW_LOADED_MODULES: list },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (run.status !== 0) throw new Error(`${args.join(' ')} with the hook exited ${run.status}: ${run.stderr}`);
  const urls = readFileSync(list, 'utf8').split('\n').filter(Boolean);
  const packages = new Set();
  for (const url of urls) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match !== null) packages.add(match[1]);
  }
  const entry = args[0] === bin ? entryFor(manifest, ['node', ...args]) : undefined;
  for (const name of manifest.entries[entry]?.packages ?? []) packages.add(name);
  return {
    modulesImported: urls.length,
    ofHarmflow: urls.filter((url) => url.includes('/dist/')).length,
    packages: [...packages].sort(),
  };
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function round1(value) {
  return Math.round(value * 10) / 10;
}
