/**
 * How long `harmflow workflow plan` of the statements example takes from spawn to exit (issue 24),
 * beside a bare `node -e ""` measured in the same rounds. Target: the plan's median ≤ the bare
 * start's median + 1 s. Rounds interleave the two, so load on the machine falls on both alike.
 *
 * Made here, once: a state directory with the example's first run (`workflow run first.mjs`, which
 * crashes at fact-check c-1412 on purpose: 6,612 outputs and as many run items, a 16 MB pull output
 * among them). Each round then plans its fix, as the README does:
 *
 *   harmflow workflow plan RUN --file examples/statements/fixed.mjs --invalidate categorise --assume-changed totals=200
 *
 * which exits 14 (work pending) and prints the plan ($48.86, checked here). Each round also runs
 * bench/workflow-plan-floor.mjs, the example's own part of that plan without HarmFlow: reading its
 * 16 MB pull output from SQLite, parsing it and running its items function's zod check. The plan's
 * time over the floor's is HarmFlow's own.
 *
 *   node bench/workflow-plan.mjs [--rounds N]      (after `npm run build`)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine } from './machine.mjs';
import { option } from './options.mjs';
import { median } from './stats.mjs';

const rounds = option('--rounds', 10);
const bin = fileURLToPath(new URL('../bin/harmflow.js', import.meta.url));
const example = (file) => fileURLToPath(new URL(`../examples/statements/${file}`, import.meta.url));
/** Exit 14: the plan has work (docs/workflows.md). */
const PLAN_PENDING = 14;
/** Exit 10: the first run crashed, as the example means it to. */
const CRASHED = 10;
/** Median ≤ bare node + 1 s. */
const TARGET_OVER_BARE_MS = 1000;

const dir = mkdtempSync(join(tmpdir(), 'harmflow-workflow-plan-'));
const env = {
  ...process.env,
  NO_COLOR: '1',
  HARMFLOW_HOME: join(dir, 'home'),
  STATEMENTS_OUTBOX: join(dir, 'outbox.jsonl'),
};
try {
  const run = firstRun();
  const plan = [bin, 'workflow', 'plan', run, '--file', example('fixed.mjs')];
  plan.push('--invalidate', 'categorise', '--assume-changed', 'totals=200');
  const loadBefore = loadavg()[0];
  const floor = [fileURLToPath(new URL('./workflow-plan-floor.mjs', import.meta.url)), env.HARMFLOW_HOME];
  const bare = [];
  const floors = [];
  const planned = [];
  for (let round = 0; round < rounds; round += 1) {
    bare.push(timed(['-e', '']).ms);
    floors.push(timed(floor).ms);
    const { ms, stdout } = timed(plan, PLAN_PENDING);
    if (!/^total +\$48\.86, /m.test(stdout)) throw new Error(`round ${round + 1}: not the expected plan:\n${stdout}`);
    planned.push(ms);
  }
  const bareMs = median(bare);
  const planMs = median(planned);
  const floorMs = median(floors);
  process.stdout.write(
    `${JSON.stringify(
      {
        benchmark: 'workflow-plan',
        machine: machine(),
        date: new Date().toISOString(),
        rounds,
        oneMinuteLoadAverage: { before: loadBefore, after: loadavg()[0] },
        command:
          'harmflow workflow plan RUN --file examples/statements/fixed.mjs --invalidate categorise --assume-changed totals=200',
        bareNodeMs: { median: Math.round(bareMs), min: Math.round(Math.min(...bare)) },
        planMs: {
          median: Math.round(planMs),
          min: Math.round(Math.min(...planned)),
          max: Math.round(Math.max(...planned)),
        },
        exampleFloorMs: { median: Math.round(floorMs), min: Math.round(Math.min(...floors)) },
        overBareMs: Math.round(planMs - bareMs),
        harmflowOverFloorMs: Math.round(planMs - floorMs),
        timesBare: Math.round((planMs / bareMs) * 100) / 100,
        target: '≤ bare node + 1 s',
        met: planMs - bareMs <= TARGET_OVER_BARE_MS,
      },
      null,
      2,
    )}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** Runs the example's first run (it crashes at fact-check c-1412) and returns its id. */
function firstRun() {
  timed([bin, 'workflow', 'run', example('first.mjs'), '--quiet'], CRASHED);
  const { stdout } = timed([bin, 'workflow', 'ls', '--json']);
  const [run] = JSON.parse(stdout).runs;
  if (run === undefined) throw new Error('the first run left no run');
  return run.id;
}

function timed(args, status = 0) {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== status) {
    throw new Error(`${args.join(' ')} exited ${run.status}, not ${status}: ${run.stderr.slice(-500)}`);
  }
  return { ms, stdout: run.stdout };
}
