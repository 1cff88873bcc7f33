/**
 * What the OS sandbox adds to the start of every turn: the time from spawning a harness process to
 * its first line of output, with and without bubblewrap around it, median and p95. Target (issue 22):
 * ≤ 50 ms more than the same process spawned without the sandbox, measured in the same run.
 *
 * Both go through HarmFlow's one spawner (`spawnProcess`); the sandboxed one gets the command line a
 * real turn gets (`turnPolicy` of attempt-sandbox.ts over a real layout: a state directory, a
 * worktree of a repository with a local bare remote, an attempt folder with its home, gates file and
 * gate-seen file, so every mount a hooked harness gets is made). Two commands: a trivial one
 * (`sh -c 'echo ready'`: the sandbox's own cost, nearly all of the time) and the simulator playing
 * Claude Code (`node bin/sim.js …`, to its `system/init` line: a turn's start as the demo and the
 * tests run it). The four kinds take turns in each round, so load on the host falls on all alike;
 * 3 warm-up rounds.
 *
 *   node bench/sandbox.mjs [--runs N]      (after `npm run build`; needs bubblewrap)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { harmflowHome } from '../dist/core/home.js';
import { turnPolicy } from '../dist/execution/attempt-sandbox.js';
import { claudeCommand } from '../dist/harnesses/claude-code/command.js';
import { sandboxed } from '../dist/proc/sandbox.js';
import { probeSandbox } from '../dist/proc/sandbox-probe.js';
import { spawnProcess } from '../dist/proc/spawn.js';
import { simulatedCommand } from '../dist/simulators/launch.js';
import { machine } from './machine.mjs';
import { option } from './options.mjs';
import { median, round } from './stats.mjs';

const runs = option('--runs', 40);
const WARM_UP = 3;

const probe = await probeSandbox(process.env.PATH ?? '');
if (!probe.available) throw new Error(probe.reason);

const root = mkdtempSync(join(tmpdir(), 'harmflow-bench-sandbox-'));
const home = harmflowHome(join(root, 'home'));
const git = (cwd, ...args) => execFileSync('git', args, { cwd, stdio: 'ignore' });
const repo = join(root, 'repo');
const origin = join(root, 'origin.git');
git(root, 'init', '--quiet', '--bare', origin);
git(root, 'init', '--quiet', repo);
git(repo, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '--quiet', '--allow-empty', '-m', 'initial');
git(repo, 'remote', 'add', 'origin', origin);
const worktree = home.worktree('e1');
mkdirSync(home.worktrees, { recursive: true });
git(repo, 'worktree', 'add', '--quiet', '-b', 'harmflow/bench', worktree);
const attemptDir = home.attemptDir('e1', 1);
const homeDir = join(attemptDir, 'home');
mkdirSync(homeDir, { recursive: true });
writeFileSync(home.eventsFile('e1'), '');
for (const file of ['gates.json', 'gate-seen.jsonl']) writeFileSync(join(attemptDir, file), '');
const scenario = join(root, 'first-line.scenario.yaml');
writeFileSync(scenario, 'steps:\n  - say: hello\n  - end: complete\n');

const sandbox = {
  tools: probe.tools,
  stateDir: home.root,
  eventsFile: home.eventsFile('e1'),
  contextFile: home.contextFile('e1'),
  gitDir: join(repo, '.git'),
  remoteGitDirs: [origin],
};
const path = process.env.PATH ?? '/usr/bin:/bin';
const claude = claudeCommand({ prompt: 'hello', cwd: worktree, homeDir, extraArgs: [], env: {}, path });
for (const dir of claude.dirs) mkdirSync(join(homeDir, dir), { recursive: true });
const sim = simulatedCommand(claude, 'claude-code', scenario);
const trivial = { command: 'sh', args: ['-c', 'echo ready'], env: { PATH: path } };

/** `spec` as a turn runs it in the sandbox, the gate runner's files mounted. */
function inSandbox(spec, reads) {
  const policy = turnPolicy(sandbox, {
    worktree,
    attemptDir,
    homeDir,
    gateRunner: true,
    env: spec.env,
    reads,
    hookFiles: [],
  });
  return { ...sandboxed(spec, worktree, policy, sandbox.tools), env: spec.env };
}

const cases = {
  'sh -c "echo ready"': trivial,
  'sh -c "echo ready", sandboxed': inSandbox(trivial, []),
  'sim as claude-code, to system/init': sim,
  'sim as claude-code, to system/init, sandboxed': inSandbox(sim, [sim.command, scenario]),
};

/** Milliseconds from spawn to the first stdout line; waits for the process to end before it returns. */
async function firstLine({ command, args, env }) {
  const started = performance.now();
  let at;
  const proc = spawnProcess({
    command,
    args,
    cwd: worktree,
    env,
    onLine: (stream) => {
      if (stream === 'stdout') at ??= performance.now();
    },
  });
  const exit = await proc.exited;
  if (exit.exitCode !== 0 || at === undefined) {
    throw new Error(`${command} ${args.join(' ')}: ${JSON.stringify(exit)} ${proc.stderrTail()}`);
  }
  return at - started;
}

const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let index = 0; index < runs + WARM_UP; index++) {
  for (const [name, spec] of Object.entries(cases)) {
    const ms = await firstLine(spec);
    if (index >= WARM_UP) samples[name].push(ms);
  }
}
rmSync(root, { recursive: true, force: true });

/** The smallest value at least 95% of `values` are at or under. */
const p95 = (values) => [...values].sort((a, b) => a - b)[Math.ceil(0.95 * values.length) - 1];
const results = Object.fromEntries(
  Object.entries(samples).map(([name, values]) => [
    name,
    { medianMs: round(median(values)), p95Ms: round(p95(values)) },
  ]),
);
const added = (plain) => ({
  medianMs: round(results[`${plain}, sandboxed`].medianMs - results[plain].medianMs),
  p95Ms: round(results[`${plain}, sandboxed`].p95Ms - results[plain].p95Ms),
});
process.stdout.write(
  `${JSON.stringify(
    {
      benchmark: 'sandbox',
      machine: machine(),
      bwrap: execFileSync(probe.tools.bwrap, ['--version'], { encoding: 'utf8' }).trim(),
      date: new Date().toISOString(),
      loadavg: loadavg().map(round),
      runs,
      results,
      addedBySandbox: { trivial: added('sh -c "echo ready"'), sim: added('sim as claude-code, to system/init') },
      target: 'sandboxed median ≤ unsandboxed median + 50 ms',
    },
    null,
    2,
  )}\n`,
);
