/**
 * Fixtures for the tests of driveClusterJob (drive-job.test.ts, drive-commands.test.ts): a cluster
 * (fixture.ts) with the PostgreSQL parts a worker drives with in its schema, a remote, a task played
 * by the simulator (codex, with a claude-code fallback when asked) whose scenarios the test writes,
 * the dependencies of a worker on a machine of its own, and a worker process (drive-worker.mjs, which
 * runs dist/: `npm run build` first) to kill.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';
import { stringify } from 'yaml';
import { openExecutionContexts } from '../../src/cluster/contexts.js';
import { createClusterExecution } from '../../src/cluster/create-records.js';
import { type DriveJobDeps, driveClusterJob } from '../../src/cluster/drive-job.js';
import { openExecutionInbox } from '../../src/cluster/inbox.js';
import type { ExecutionState } from '../../src/core/outcome.js';
import { resolveTask, type Task, TaskFile } from '../../src/core/task.js';
import { openEventMirror } from '../../src/events/mirror/event-mirror.js';
import { openPgEventSource, type PgEventSource } from '../../src/events/mirror/event-source.js';
import { signalGroup } from '../../src/proc/group.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { FORGE_BIN, GIT_IDENTITY, simulated } from '../execution/fixture.js';
import { TEST_POSTGRES_URL } from '../store/postgres.js';
import { type Cluster, clusters, FAST_LEASE, FAST_LOCK, waitFor } from './fixture.js';
import { TEST_REDIS_URL } from './redis.js';
import { dirs, type Machine, newRemote } from './workspace-fixture.js';

const WORKER = fileURLToPath(new URL('./drive-worker.mjs', import.meta.url));
export const BUILT = fileURLToPath(new URL('../../dist/cluster/drive-job.js', import.meta.url));

/** Every line the mirror holds for `execution`, in order. */
export async function mirroredLines(source: PgEventSource, execution: string): Promise<string[]> {
  const lines: string[] = [];
  for (;;) {
    const read = await source.read(execution, lines.length);
    if (read.length === 0) return lines;
    lines.push(...read.map((record) => record.line));
  }
}

/** The lines of the log at `path`, without the last newline. */
export function logLines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').slice(0, -1);
}

/** What `setUp` gives a test. */
export type DriveSetUp = Awaited<ReturnType<ReturnType<typeof driveClusters>['setUp']>>;

/** Registers the hooks of the calling describe block; `setUp()` makes one test's cluster. */
export function driveClusters() {
  const cluster = clusters();
  const closers: (() => Promise<void>)[] = [];
  // Registered after the cluster's hooks, so it runs before them (the schema is dropped last).
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** The cluster, its PostgreSQL parts in its schema, a remote, and scenario files to fill. */
  async function setUp(options: { readonly fallback?: boolean } = {}) {
    const opened = await cluster.open();
    const schema = { schema: opened.schema };
    const store = await openPostgresStore(TEST_POSTGRES_URL, schema);
    closers.push(() => store.close());
    const inbox = await openExecutionInbox(TEST_POSTGRES_URL, schema);
    closers.push(() => inbox.close());
    const mirror = await openEventMirror(TEST_POSTGRES_URL, schema);
    closers.push(() => mirror.close());
    const mirrored = await openPgEventSource(TEST_POSTGRES_URL, schema);
    closers.push(() => mirrored.close());
    const contexts = await openExecutionContexts(TEST_POSTGRES_URL, schema);
    closers.push(() => contexts.close());
    const { remote } = await newRemote();
    const folder = await dirs.make();
    const scenarios = {
      codex: join(folder, 'codex.scenario.yaml'),
      'claude-code': join(folder, 'claude.scenario.yaml'),
    };
    const task: Task = resolveTask(
      TaskFile.parse({
        name: 'fix',
        repo: `file://${remote}`,
        baseRef: 'main',
        prompt: 'Add b.',
        harness: simulated('codex', scenarios.codex),
        ...(options.fallback === true && { fallbacks: [simulated('claude-code', scenarios['claude-code'])] }),
        timeout: '10m',
      }),
      (path) => path,
    );
    const env = { ...GIT_IDENTITY, HARMFLOW_FORGE_DIR: folder };
    const reported: Error[] = [];
    const deps = (machine: Machine, more: Partial<DriveJobDeps> = {}): DriveJobDeps => ({
      store,
      inbox,
      mirror,
      mirrored,
      contexts,
      home: machine.home,
      cacheDir: machine.cacheDir,
      engine: { extraPath: [FORGE_BIN], hostEnv: { ...process.env, ...env }, interruptBudgetMs: 1_000 },
      onError: (error) => reported.push(error),
      ...more,
    });
    /** Creates the execution, enqueues its prompt as t1 (createClusterExecution writes no inbox). */
    const create = async () => {
      const created = await createClusterExecution(task, store);
      expect(await inbox.enqueueTurn(created.id, task.prompt)).toEqual({ turn: 't1', queued: 1 });
      return created;
    };
    const writeScenario = (steps: unknown[], harness: keyof typeof scenarios = 'codex') =>
      writeFile(scenarios[harness], stringify({ steps }));
    /** Waits for `execution` to reach `state` and for the queue to be empty (its job settled). */
    const settled = async (execution: string, state: ExecutionState = 'succeeded') => {
      await waitFor(
        `the execution to be ${state}`,
        async () => ((await store.getExecution(execution))?.state === state ? true : undefined),
        30_000,
      );
      // The job settles once the handler returned: after its last catch-up and the inbox's settling.
      await waitFor('an empty queue', async () => {
        const { waiting, active, delayed } = await opened.pending();
        return waiting + active + delayed === 0 ? true : undefined;
      });
    };
    /** Starts a dispatch worker in this process, one job at a time, driving with `deps(machine, more)`. */
    const startDriving = (workerId: string, machine: Machine, more: Partial<DriveJobDeps> = {}) =>
      opened.startWorker({
        workerId,
        concurrency: 1,
        handle: (id, context) => driveClusterJob(id, context, deps(machine, more)),
      });
    return {
      opened,
      startDriving,
      store,
      inbox,
      mirrored,
      contexts,
      remote,
      env,
      reported,
      deps,
      create,
      writeScenario,
      settled,
      onClose: (close: () => Promise<void>) => closers.push(close),
    };
  }

  return { admin: () => cluster.admin, setUp };
}

/** A drive-worker.mjs process on `machine`, once it is taking jobs. */
export async function startDriveWorker(
  opened: Cluster,
  machine: Machine,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; exited: Promise<unknown> }> {
  const config = {
    redisUrl: TEST_REDIS_URL,
    prefix: opened.prefix,
    postgresUrl: TEST_POSTGRES_URL,
    schema: opened.schema,
    workerId: 'doomed',
    lock: FAST_LOCK,
    lease: FAST_LEASE,
    home: machine.home.root,
    cacheDir: machine.cacheDir,
    extraPath: [FORGE_BIN],
    env,
  };
  const child = spawn(process.execPath, [WORKER, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await waitFor('the worker process to be ready', () => {
    if (child.exitCode !== null) throw new Error(`the worker process exited (${child.exitCode}): ${stderr}`);
    return stdout.includes('"ready"') ? true : undefined;
  });
  return { child, exited };
}

/**
 * Kills `doomed` (a drive-worker.mjs process on `machine`) with SIGKILL while it runs attempt
 * `attempt` of `execution`, then that attempt's harness, which a killed worker leaves running (as on a
 * lost machine; the test stops it).
 */
export async function killMidAttempt(
  doomed: { readonly child: ChildProcess; readonly exited: Promise<unknown> },
  machine: Machine,
  execution: string,
  attempt: number,
): Promise<void> {
  const pgid = Number(readFileSync(join(machine.home.attemptDir(execution, attempt), 'pgid'), 'utf8'));
  doomed.child.kill('SIGKILL');
  await doomed.exited;
  signalGroup(pgid, 'SIGKILL');
}
