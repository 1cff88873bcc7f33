/**
 * How long `harmflow demo` takes from spawn to its last line — the figure the README quotes — and
 * that it ends PASS, over a few runs, beside a bare `node -e ""` in the same rounds. The demo is
 * the newcomer's first touch: its time is what they wait before they see the story.
 *
 *   node bench/demo.mjs [--runs N]      (after `npm run build`)
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { machine } from './machine.mjs';
import { option } from './options.mjs';
import { median } from './stats.mjs';

const runs = option('--runs', 3);
const bin = fileURLToPath(new URL('../bin/harmflow.js', import.meta.url));
const loadBefore = loadavg()[0];
const demo = [];
const bare = [];
for (let run = 0; run < runs; run += 1) {
  bare.push(timed(['-e', '']).ms);
  const { ms, stdout } = timed([bin, 'demo']);
  if (!/^PASS: /m.test(stdout)) throw new Error(`run ${run + 1}: the demo did not end PASS`);
  demo.push(ms);
}
process.stdout.write(
  `${JSON.stringify(
    {
      benchmark: 'demo',
      machine: machine(),
      date: new Date().toISOString(),
      runs,
      oneMinuteLoadAverage: { before: loadBefore, after: loadavg()[0] },
      demoSeconds: { median: seconds(median(demo)), min: seconds(Math.min(...demo)), max: seconds(Math.max(...demo)) },
      bareNodeMs: Math.round(median(bare)),
    },
    null,
    2,
  )}\n`,
);

function timed(args) {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0) throw new Error(`${args.join(' ')} exited ${run.status}: ${run.stderr.slice(-500)}`);
  return { ms, stdout: run.stdout };
}

function seconds(ms) {
  return Math.round(ms / 100) / 10;
}
