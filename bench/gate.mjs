/**
 * The latency the gate runner adds to one tool call: the wall time of `harmflow gate <event>` as a
 * harness's hook starts it — a new Node process through the package's launcher, the hook's JSON on
 * stdin, the answer on stdout — from spawn to exit, p50 and p90. Target (issue 7): p50 ≤ 1.5× the
 * start-up of a bare `node -e ""`, measured in the same run (the floor for a hook that is a Node
 * program). Rounds interleave the commands, so load on the machine falls on all of them alike.
 *
 * Cases: `PreToolUse` of an ordinary shell call (every gate runs, all allow, nothing is written);
 * `PostToolUse` of a commit (the operations gate appends one record); and, for contrast, the same
 * PreToolUse from the unbundled modules (scripts/bundle-gate.mjs says why the bundle) and the full
 * CLI (`harmflow --version`), which the launcher skips for `gate`.
 *
 *   node bench/gate.mjs [--rounds N]      (after `npm run build`)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GatesConfig } from '../dist/core/gates-config.js';
import { writeAttemptGates } from '../dist/execution/attempt-gates.js';
import { machine } from './machine.mjs';

const option = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(option('--rounds')) || 60;
const bin = fileURLToPath(new URL('../bin/harmflow.js', import.meta.url));

const root = mkdtempSync(join(tmpdir(), 'harmflow-bench-gate-'));
const worktree = join(root, 'worktrees', 'e1');
mkdirSync(worktree, { recursive: true });
const attemptDir = join(root, 'runs', 'e1', 'attempts', '1');
writeAttemptGates({
  execution: 'e1',
  attempt: 1,
  harness: 'claude-code',
  attemptDir,
  eventsPath: join(root, 'runs', 'e1', 'events.jsonl'),
  settings: GatesConfig.parse({}),
  worktree,
  branch: 'harmflow/bench-e1',
  baseBranch: 'main',
  earlier: [],
});
const env = { ...process.env, HARMFLOW_GATE_DIR: attemptDir };
const hook = (fields) => JSON.stringify({ session_id: 's', cwd: worktree, tool_use_id: 'toolu_1', ...fields });

const preToolUse = hook({
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'npm test && git status' },
});

const cases = {
  'bare node -e ""': { args: ['-e', ''], input: '' },
  'gate PreToolUse (shell call, allowed)': {
    args: [bin, 'gate', 'PreToolUse'],
    input: preToolUse,
  },
  'gate PostToolUse (commit, one record)': {
    args: [bin, 'gate', 'PostToolUse'],
    input: hook({
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'git commit -m "Fix dates"' },
      tool_response: { stdout: '[harmflow/bench-e1 1a2b3c4] Fix dates\n 1 file changed', stderr: '' },
    }),
  },
  'gate PreToolUse, unbundled modules': {
    args: [fileURLToPath(new URL('../dist/gates/main.js', import.meta.url)), 'gate', 'PreToolUse'],
    input: preToolUse,
  },
  'full CLI (harmflow --version)': { args: [bin, '--version'], input: '' },
};

const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < rounds + 3; round++) {
  for (const [name, { args, input }] of Object.entries(cases)) {
    const started = performance.now();
    const run = spawnSync(process.execPath, args, { input, env, encoding: 'utf8' });
    const ms = performance.now() - started;
    if (run.status !== 0) throw new Error(`${name} exited ${run.status}: ${run.stderr}`);
    if (round >= 3) samples[name].push(ms); // the first rounds warm the file cache
  }
}
rmSync(root, { recursive: true, force: true });

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const round2 = (value) => Math.round(value * 100) / 100;
const results = Object.fromEntries(
  Object.entries(samples).map(([name, values]) => [
    name,
    { p50Ms: round2(quantile(values, 0.5)), p90Ms: round2(quantile(values, 0.9)) },
  ]),
);
const bare = results['bare node -e ""'].p50Ms;
const pre = results['gate PreToolUse (shell call, allowed)'].p50Ms;
const post = results['gate PostToolUse (commit, one record)'].p50Ms;
process.stdout.write(
  `${JSON.stringify(
    {
      benchmark: 'gate',
      machine: machine(),
      loadavg: loadavg().map(round2),
      rounds,
      results,
      ratioPreToBare: round2(pre / bare),
      ratioPostToBare: round2(post / bare),
      addedMsPre: round2(pre - bare),
      target: 'gate p50 ≤ 1.5 × bare node p50',
    },
    null,
    2,
  )}\n`,
);
