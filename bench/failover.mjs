/**
 * Failover overhead: the time from the quota signal (the exhausted harness's process has exited) to
 * the next harness's process spawned — classification, workspace inspection, context.json, the
 * handoff prompt, the store and event records included. Measured on a generated repository of
 * 10,000 files and 1,000 commits, with a same-run baseline on a one-file, one-commit repository.
 * The harnesses are the simulator playing claude-code (commits, pushes, runs out of quota) and
 * codex (completes). Target (issue 2): ≤ 300 ms.
 *
 *   node bench/failover.mjs [--runs N]     (after `npm run build`)
 */

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { harmflowHome } from '../dist/core/home.js';
import { resolveTask, TaskFile } from '../dist/core/task.js';
import { runTask } from '../dist/execution/engine.js';
import { openSqliteStore } from '../dist/store/sqlite/sqlite-store.js';
import { generateRepo } from './generate-repo.mjs';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 20;
const IDENTITY = {
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@harmflow.invalid',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@harmflow.invalid',
};

const CLAUDE = `steps:
  - plan: [{ text: First half, status: in_progress }, { text: Second half, status: pending }]
  - write: { path: src/added.js, content: "export const added = true;\\n" }
  - commit: Add the first half
  - push: {}
  - write: { path: src/uncommitted.js, content: "export const draft = true;\\n" }
  - end: quota
`;
const CODEX = 'steps:\n  - end: complete\n';

async function measure(label, files, commits) {
  const dir = mkdtempSync(join(tmpdir(), 'harmflow-bench-'));
  try {
    const repo = join(dir, 'repo');
    generateRepo(repo, { files, commits });
    const origin = join(dir, 'origin.git');
    git(dir, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
    git(repo, 'remote', 'add', 'origin', origin);
    git(repo, 'push', '--quiet', 'origin', 'main');
    writeFileSync(join(dir, 'claude.yaml'), CLAUDE);
    writeFileSync(join(dir, 'codex.yaml'), CODEX);
    const link = (harness, scenario) => ({ harness, simulate: scenario, passEnv: Object.keys(IDENTITY) });
    const task = resolveTask(
      TaskFile.parse({
        name: 'bench',
        repo: 'repo',
        baseRef: 'main',
        prompt: 'Benchmark the failover.',
        harness: link('claude-code', 'claude.yaml'),
        fallbacks: [link('codex', 'codex.yaml')],
      }),
      (path) => join(dir, path),
    );
    const home = harmflowHome(join(dir, 'home'));
    mkdirSync(home.root, { recursive: true });
    const store = openSqliteStore(home.database);
    const samples = [];
    const inspections = [];
    for (let i = 0; i < runs + 1; i++) {
      let exitedAt = 0;
      let spawnedAt = 0;
      const result = await runTask(task, {
        home,
        store,
        hostEnv: { ...process.env, ...IDENTITY },
        onAttemptExited: (n) => {
          if (n === 1) exitedAt = performance.now();
        },
        onAttemptSpawned: (n) => {
          if (n === 2) spawnedAt = performance.now();
        },
        onRecord: (record) => {
          if (record.type === 'workspace.inspected' && record.attempt === 1) inspections.push(record.data.durationMs);
        },
      });
      if (result.state !== 'succeeded' || result.attempts.length !== 2) {
        throw new Error(`${label}: run ${i} ended ${result.state} after ${result.attempts.length} attempts`);
      }
      if (i > 0) samples.push(spawnedAt - exitedAt); // the first run warms the caches and is not counted
    }
    await store.close();
    return { label, files, commits, runs, overheadMs: stats(samples), inspectionMs: stats(inspections.slice(1)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: round(at(0.5)), p90: round(at(0.9)), max: round(sorted.at(-1)) };
}

function round(value) {
  return Math.round(value * 10) / 10;
}

function git(cwd, ...args) {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...IDENTITY } });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
}

const large = await measure('10,000 files, 1,000 commits', 10_000, 1_000);
const baseline = await measure('baseline: 1 file, 1 commit', 1, 1);
const machine = `${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}`;
console.log(
  JSON.stringify(
    { benchmark: 'failover', machine, date: new Date().toISOString(), results: [large, baseline] },
    null,
    2,
  ),
);
