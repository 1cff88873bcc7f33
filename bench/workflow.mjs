/**
 * The workflow engine's overhead (issue 5), on a file database (a temporary HARMFLOW_HOME's
 * harmflow.db, WAL), each figure beside a floor measured in the same run:
 *
 * 1. Item-step throughput: a workflow over 2,000 items × 7 trivial code steps (each step reads the
 *    previous one's output for the same item and returns a small JSON value computed from it), run
 *    with `startRun` through the real SQLite ResumeStore; item-steps/s = 14,000 / the run's wall time.
 *    Floor: a plain loop computing the same values and writing each one to SQLite in its own
 *    transaction (better-sqlite3, WAL, `synchronous = NORMAL`, one autocommitted INSERT into a
 *    (step, item, value) table). Target: ≥ 50% of the floor. Each repetition has a fresh
 *    HARMFLOW_HOME and measures both, in alternating order; the ratio is taken per repetition.
 * 2. A plan over 2,000 × 7 (`planResume` of the completed run): after a version bump of step 2, and
 *    with everything cached. Target: ≤ 200 ms.
 * 3. A resume that finds everything cached (`resumeRun` of the completed run, same definition), with
 *    the time it spends in each store method (a mean per resume). Target: ≤ 300 ms.
 *    Floor for 2 and 3: what any fingerprint-based resume must do at least — read the 14,000
 *    results back from the floor's table (one SELECT, a JSON.parse each) and hash each one (SHA-256).
 *
 * Warm-up, not measured: one run, plan and resume over 200 items (the JIT, the statements' caches).
 *
 *   node bench/workflow.mjs [--items N] [--reps N] [--plans N]     (after `npm run build`)
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/workflow.mjs     # profiled
 */

import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { harmflowHome } from '../dist/core/home.js';
import { openSqliteResumeStore } from '../dist/store/sqlite/resume-store.js';
import { planResume } from '../dist/workflows/plan.js';
import { resumeRun, startRun } from '../dist/workflows/run.js';
import { machine } from './machine.mjs';
import { option } from './options.mjs';
import { median, round, summary } from './stats.mjs';

const items = option('--items', 2000);
const reps = option('--reps', 5);
const plans = option('--plans', 15);
/** 7 steps: the workload (2,000 items × 7 trivial steps). */
const STEPS = 7;
/** 200 items: enough to compile every path of the run, the plan and the resume before measuring. */
const WARM_UP_ITEMS = 200;
const TARGETS = { throughputShareOfFloor: 0.5, planMs: 200, resumeMs: 300 };

const dir = mkdtempSync(join(tmpdir(), 'harmflow-bench-workflow-'));
try {
  const load = [loadavg()[0]];
  await warmUp();
  load.push(loadavg()[0]);

  const repetitions = [];
  let last;
  for (let rep = 0; rep < reps; rep += 1) {
    const home = newHome(`rep-${rep}`);
    const order = rep % 2 === 0 ? ['floor', 'engine'] : ['engine', 'floor'];
    const figures = {};
    for (const which of order) {
      figures[which] = which === 'floor' ? floorRun(home.database, items) : await engineRun(home.database, items, rep);
    }
    repetitions.push({
      order,
      floorPerS: Math.round(figures.floor.perS),
      enginePerS: Math.round(figures.engine.perS),
      engineMs: round(figures.engine.ms),
      engineInStoreMs: round(Object.values(figures.engine.spent).reduce((sum, ms) => sum + ms, 0)),
      engineCommitMs: round(figures.engine.spent.commitItems ?? 0),
      floorMs: round(figures.floor.ms),
      share: round(figures.engine.perS / figures.floor.perS),
      loadAverage: round(loadavg()[0]),
    });
    last = { home, run: figures.engine.run, rep };
    process.stderr.write(
      `workflow: rep ${rep + 1}/${reps}: engine ${Math.round(figures.engine.perS)}/s, floor ${Math.round(figures.floor.perS)}/s\n`,
    );
  }
  load.push(loadavg()[0]);

  // Plans and resumes over the last repetition's completed run, each timing beside the floor's read.
  const store = openSqliteResumeStore(last.home.database);
  const resumeStore = timedStore(store);
  const definition = workflow(`bench-${last.rep}`, items, '1');
  const bumped = workflow(`bench-${last.rep}`, items, '2');
  const planBumped = [];
  const planCached = [];
  const resume = [];
  const readFloor = [];
  let planCheck;
  let resumeCheck;
  try {
    for (let n = 0; n < plans; n += 1) {
      readFloor.push(floorRead(last.home.database));
      planBumped.push(await timed(async () => (planCheck = await planResume(bumped, { store, run: last.run }))));
      planCached.push(await timed(() => planResume(definition, { store, run: last.run })));
      resume.push(
        await timed(async () => (resumeCheck = await resumeRun(definition, last.run, { store: resumeStore.store }))),
      );
    }
  } finally {
    await store.close();
  }
  load.push(loadavg()[0]);
  check(
    planCheck.steps[1].willRun.items === items && planCheck.steps[2].mayRun === items,
    'the bumped plan reruns step 2',
  );
  check(
    resumeCheck.steps.every((step) => step.cached === items && step.computed === 0),
    'the resume found all cached',
  );

  const floorShares = repetitions.map((r) => r.share);
  const engineRates = repetitions.map((r) => r.enginePerS);
  const floorRates = repetitions.map((r) => r.floorPerS);
  const result = {
    benchmark: 'workflow',
    machine: machine(),
    date: new Date().toISOString(),
    workload: `${items} items × ${STEPS} code steps (items: 'source', each reads the previous step's output for the same item), SQLite ResumeStore on a file (WAL)`,
    floor: `plain loop: one autocommitted INSERT per item-step into (step, item, value), better-sqlite3, WAL, synchronous = NORMAL, the same database file; for plan and resume: SELECT the ${items * STEPS} rows, JSON.parse and SHA-256 each`,
    oneMinuteLoadAverage: { before: round(load[0]), afterRuns: round(load[2]), after: round(load[3]) },
    throughput: {
      itemSteps: items * STEPS,
      repetitions,
      enginePerS: summary(engineRates),
      floorPerS: summary(floorRates),
      shareOfFloor: summary(floorShares),
      target: TARGETS.throughputShareOfFloor,
      met: median(floorShares) >= TARGETS.throughputShareOfFloor,
    },
    plan: {
      versionBumpOfStep2Ms: summary(planBumped),
      allCachedMs: summary(planCached),
      floorReadMs: summary(readFloor),
      target: TARGETS.planMs,
      met: Math.max(median(planBumped), median(planCached)) <= TARGETS.planMs,
    },
    resumeAllCached: {
      ms: summary(resume),
      storeMsByMethod: Object.fromEntries(
        Object.entries(resumeStore.spent).map(([name, ms]) => [name, round(ms / plans)]),
      ),
      floorReadMs: summary(readFloor),
      target: TARGETS.resumeMs,
      met: median(resume) <= TARGETS.resumeMs,
    },
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** One small run, plan and resume, plus a floor loop, in a home of their own: none of it is measured. */
async function warmUp() {
  const home = newHome('warm-up');
  floorRun(home.database, WARM_UP_ITEMS);
  floorRead(home.database);
  const { run } = await engineRun(home.database, WARM_UP_ITEMS, 'warm-up');
  const store = openSqliteResumeStore(home.database);
  try {
    await planResume(workflow('bench-warm-up', WARM_UP_ITEMS, '2'), { store, run: run });
    await planResume(workflow('bench-warm-up', WARM_UP_ITEMS, '1'), { store, run: run });
    await resumeRun(workflow('bench-warm-up', WARM_UP_ITEMS, '1'), run, { store });
  } finally {
    await store.close();
  }
}

/** A fresh HARMFLOW_HOME in the temporary directory. */
function newHome(name) {
  const home = harmflowHome(join(dir, name));
  mkdirSync(home.root, { recursive: true });
  return home;
}

/**
 * The workload: `count` source items, 7 code steps; step 1 reads the item's key, each later step
 * the previous step's output for the same item. `step2Version` is what the plan bumps.
 */
function workflow(name, count, step2Version) {
  const keys = Array.from({ length: count }, (_, n) => `item-${String(n).padStart(5, '0')}`);
  return {
    name,
    source: () => keys,
    steps: Array.from({ length: STEPS }, (_, n) => {
      const previous = n === 0 ? undefined : `s${n}`;
      return {
        kind: 'code',
        name: `s${n + 1}`,
        version: n === 1 ? step2Version : '1',
        items: 'source',
        ...(previous !== undefined && { reads: [{ step: previous, items: 'same' }] }),
        run: ({ key, inputs }) => value(n, key, previous === undefined ? undefined : inputs[previous][key]),
      };
    }),
  };
}

/** The trivial step: a small JSON value from the previous one (the floor computes the same). */
function value(step, key, previous) {
  const n = previous === undefined ? Number(key.slice(5)) : previous.n;
  return { n: n * 3 + step, step: step + 1 };
}

/**
 * A run of the workload through startRun and the SQLite ResumeStore: its wall time, item-steps/s,
 * and how much of the time was spent inside the store (SQLite and the row mapping; better-sqlite3 is
 * synchronous, so a call's duration is its work).
 */
async function engineRun(file, count, tag) {
  const { store, spent } = timedStore(openSqliteResumeStore(file));
  try {
    const definition = workflow(`bench-${tag}`, count, '1');
    const started = performance.now();
    const result = await startRun(definition, { store });
    const ms = performance.now() - started;
    check(result.run.state === 'succeeded', `the run succeeded (${result.run.message})`);
    return { ms, perS: (count * STEPS * 1000) / ms, run: result.run.id, spent };
  } finally {
    await store.close();
  }
}

/** The store, each method's time summed into `spent` (ms by method). */
function timedStore(inner) {
  const spent = {};
  const store = new Proxy(inner, {
    get(target, name) {
      const member = target[name];
      if (typeof member !== 'function') return member;
      return async (...args) => {
        const started = performance.now();
        try {
          return await member.apply(target, args);
        } finally {
          spent[name] = (spent[name] ?? 0) + performance.now() - started;
        }
      };
    },
  });
  return { store, spent };
}

/** The floor: the same values, each written in its own transaction (an autocommitted INSERT). */
function floorRun(file, count) {
  const db = openFloor(file);
  try {
    db.exec('DROP TABLE IF EXISTS bench_floor; CREATE TABLE bench_floor (step INTEGER, item TEXT, value TEXT)');
    const insert = db.prepare('INSERT INTO bench_floor (step, item, value) VALUES (?, ?, ?)');
    const started = performance.now();
    for (let n = 0; n < count; n += 1) {
      const key = `item-${String(n).padStart(5, '0')}`;
      let previous;
      for (let step = 0; step < STEPS; step += 1) {
        previous = value(step, key, previous);
        insert.run(step, key, JSON.stringify(previous));
      }
    }
    const ms = performance.now() - started;
    return { ms, perS: (count * STEPS * 1000) / ms };
  } finally {
    db.close();
  }
}

/** The floor of a plan or a resume: read every stored result back, parse it and hash it. */
function floorRead(file) {
  const db = openFloor(file);
  try {
    const select = db.prepare('SELECT step, item, value FROM bench_floor');
    const started = performance.now();
    for (const row of select.iterate()) {
      JSON.parse(row.value);
      createHash('sha256').update(`${row.step}\u0000${row.item}\u0000${row.value}`).digest('hex');
    }
    return performance.now() - started;
  } finally {
    db.close();
  }
}

function openFloor(file) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}

async function timed(work) {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

function check(condition, what) {
  if (!condition) throw new Error(`workflow bench: expected ${what}`);
}
