/**
 * The latency the gate runner adds to one tool call: the wall time of `harmflow gate <event>` as a
 * harness's hook starts it — a new Node process through the package's launcher, the hook's JSON on
 * stdin, the answer on stdout — from spawn to exit, p50 and p90. Target (issue 7): p50 ≤ 1.5× the
 * start-up of a bare `node -e ""`, measured in the same run (the floor for a hook that is a Node
 * program). Rounds interleave the commands, so load on the machine falls on all of them alike.
 *
 * Cases: `PreToolUse` of an ordinary shell call (every gate runs, all allow, one `gate.allowed`
 * record is appended); `PostToolUse` of a commit (the operations gate appends one record); and, for
 * contrast, the same PreToolUse from the unbundled modules (scripts/bundle-gate.mjs says why the
 * bundle) and the full CLI (`harmflow --version`), which the launcher skips for `gate`.
 *
 * `--before <file>` compares another build of the runner in the same rounds: a copy of an earlier
 * dist/gate-runner/main.js, kept before a change to the runner. Both that file and this build's bundle
 * are then also run directly (`node <bundle> gate PreToolUse`, no launcher), so the two differ only
 * by the change; the earlier build gets the event alone, as runners before the gates file's digest
 * (`--harness … --sha256 …`) took it. Apart from the processes, the bench times in-process what the decision record itself
 * costs: appending one `gate.allowed` line as the runner does (open with O_APPEND, one write, close).
 *
 *   node bench/gate.mjs [--rounds N] [--before <file>]      (after `npm run build`)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GatesConfig } from '../dist/core/gates-config.js';
import { writeAttemptGates } from '../dist/execution/attempt-gates.js';
import { appendGateRecords } from '../dist/gates/records.js';
import { machine } from './machine.mjs';
import { option } from './options.mjs';

const rounds = option('--rounds', 60);
const bin = fileURLToPath(new URL('../bin/harmflow.js', import.meta.url));
const bundle = fileURLToPath(new URL('../dist/gate-runner/main.js', import.meta.url));
const beforeAt = process.argv.indexOf('--before');
const before = beforeAt === -1 ? undefined : resolve(process.argv[beforeAt + 1] ?? '');
if (before !== undefined && !statSync(before, { throwIfNoEntry: false })?.isFile()) {
  throw new Error(`--before: no file ${before}`);
}

const root = mkdtempSync(join(tmpdir(), 'harmflow-bench-gate-'));
const worktree = join(root, 'worktrees', 'e1');
mkdirSync(worktree, { recursive: true });
const attemptDir = join(root, 'runs', 'e1', 'attempts', '1');
const { sha256 } = writeAttemptGates({
  execution: 'e1',
  attempt: 1,
  harness: 'claude-code',
  attemptDir,
  eventsPath: join(root, 'runs', 'e1', 'events.jsonl'),
  settings: GatesConfig.parse({}),
  worktree,
  stateDir: root,
  branch: 'harmflow/bench-e1',
  baseBranch: 'main',
  earlier: [],
});
const env = { ...process.env, HARMFLOW_GATE_DIR: attemptDir };
/** What the hooks HarmFlow installs put after the event: the harness and the gates file's digest. */
const seal = ['--harness', 'claude-code', '--sha256', sha256];
const hook = (fields) => JSON.stringify({ session_id: 's', cwd: worktree, tool_use_id: 'toolu_1', ...fields });

const preToolUse = hook({
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'npm test && git status' },
});

const PRE = 'gate PreToolUse (shell call, allowed: one gate.allowed record)';
const PRE_DIRECT = 'gate PreToolUse, this build’s bundle run directly';
const PRE_BEFORE = 'gate PreToolUse, the --before bundle run directly';
const cases = {
  'bare node -e ""': { args: ['-e', ''], input: '' },
  [PRE]: {
    args: [bin, 'gate', 'PreToolUse', ...seal],
    input: preToolUse,
  },
  'gate PostToolUse (commit, one record)': {
    args: [bin, 'gate', 'PostToolUse', ...seal],
    input: hook({
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'git commit -m "Fix dates"' },
      tool_response: { stdout: '[harmflow/bench-e1 1a2b3c4] Fix dates\n 1 file changed', stderr: '' },
    }),
  },
  'gate PreToolUse, unbundled modules': {
    args: [fileURLToPath(new URL('../dist/gates/main.js', import.meta.url)), 'gate', 'PreToolUse', ...seal],
    input: preToolUse,
  },
  'full CLI (harmflow --version)': { args: [bin, '--version'], input: '' },
  ...(before !== undefined && {
    [PRE_DIRECT]: { args: [bundle, 'gate', 'PreToolUse', ...seal], input: preToolUse },
    [PRE_BEFORE]: { args: [before, 'gate', 'PreToolUse'], input: preToolUse },
  }),
};

const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < rounds + 3; round++) {
  for (const [name, { args, input }] of Object.entries(cases)) {
    const started = performance.now();
    const run = spawnSync(process.execPath, args, { input, env, encoding: 'utf8' });
    const ms = performance.now() - started;
    if (run.status !== 0) throw new Error(`${name} exited ${run.status}: ${run.stderr}`);
    if (run.stdout.includes('"deny"')) throw new Error(`${name} refused the call: ${run.stdout}`);
    if (round >= 3) samples[name].push(ms); // the first rounds warm the file cache
  }
}

// The decision record alone, in this process: one gate.allowed line appended as the runner appends it.
const record = {
  type: 'gate.allowed',
  data: { tool: 'Bash', toolId: 'toolu_1', gates: ['nothing-twice', 'commands', 'workspace'] },
};
const appendSamples = [];
for (let index = 0; index < 2000 + 200; index++) {
  const started = performance.now();
  appendGateRecords({ eventsPath: join(root, 'append.jsonl'), execution: 'e1', attempt: 1, harness: 'codex' }, [
    record,
  ]);
  if (index >= 200) appendSamples.push((performance.now() - started) * 1000);
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
const pre = results[PRE].p50Ms;
const post = results['gate PostToolUse (commit, one record)'].p50Ms;
const direct = results[PRE_DIRECT]?.p50Ms;
const earlier = results[PRE_BEFORE]?.p50Ms;
process.stdout.write(
  `${JSON.stringify(
    {
      benchmark: 'gate',
      machine: machine(),
      date: new Date().toISOString(),
      loadavg: loadavg().map(round2),
      rounds,
      results,
      ratioPreToBare: round2(pre / bare),
      ratioPostToBare: round2(post / bare),
      addedMsPre: round2(pre - bare),
      ...(direct !== undefined &&
        earlier !== undefined && {
          directMinusBeforeMs: round2(direct - earlier),
          directToBefore: round2(direct / earlier),
        }),
      appendOneRecordUs: { p50: round2(quantile(appendSamples, 0.5)), p90: round2(quantile(appendSamples, 0.9)) },
      target: 'gate p50 ≤ 1.5 × bare node p50',
    },
    null,
    2,
  )}\n`,
);
