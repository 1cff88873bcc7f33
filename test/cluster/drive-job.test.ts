/**
 * driveClusterJob end to end: an execution created as an API node creates it (no checkout), its task's
 * prompt enqueued as turn t1, dispatched through BullMQ, and driven by dispatch workers on machines of
 * their own (a state directory and a mirror cache each), with the simulator playing the harness. The
 * crash test also runs a worker process (drive-worker.mjs). Both need dist/ built (`npm run build`),
 * and PostgreSQL and Redis, as the other cluster tests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createClusterExecution } from '../../src/cluster/create-records.js';
import { dispatchExecution } from '../../src/cluster/dispatch.js';
import { type DriveJobDeps, driveClusterJob } from '../../src/cluster/drive-job.js';
import { openExecutionInbox } from '../../src/cluster/inbox.js';
import { ConflictError } from '../../src/core/errors.js';
import { resolveTask, type Task, TaskFile } from '../../src/core/task.js';
import { openEventMirror } from '../../src/events/mirror/event-mirror.js';
import { openPgEventSource, type PgEventSource } from '../../src/events/mirror/event-source.js';
import { signalGroup } from '../../src/proc/group.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { FORGE_BIN, GIT_IDENTITY, git, simulated } from '../execution/fixture.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL } from '../store/postgres.js';
import { type Cluster, clusters, FAST_LEASE, FAST_LOCK, waitFor } from './fixture.js';
import { REDIS_AVAILABLE, TEST_REDIS_URL } from './redis.js';
import { dirs, type Machine, newMachine, newRemote } from './workspace-fixture.js';

const WORKER = fileURLToPath(new URL('./drive-worker.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/cluster/drive-job.js', import.meta.url));

/** Every line the mirror holds for `execution`, in order. */
async function mirroredLines(source: PgEventSource, execution: string): Promise<string[]> {
  const lines: string[] = [];
  for (;;) {
    const read = await source.read(execution, lines.length);
    if (read.length === 0) return lines;
    lines.push(...read.map((record) => record.line));
  }
}

/** The lines of the log at `path`, without the last newline. */
function logLines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').slice(0, -1);
}

describe.runIf(REDIS_AVAILABLE && POSTGRES_AVAILABLE)('driveClusterJob', () => {
  const cluster = clusters();
  const closers: (() => Promise<void>)[] = [];
  // Registered after the cluster's hooks, so it runs before them (the schema is dropped last).
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** The cluster, its PostgreSQL parts in its schema, a remote, and a scenario file to fill. */
  async function setUp() {
    const opened = await cluster.open();
    const options = { schema: opened.schema };
    const store = await openPostgresStore(TEST_POSTGRES_URL, options);
    closers.push(() => store.close());
    const inbox = await openExecutionInbox(TEST_POSTGRES_URL, options);
    closers.push(() => inbox.close());
    const mirror = await openEventMirror(TEST_POSTGRES_URL, options);
    closers.push(() => mirror.close());
    const mirrored = await openPgEventSource(TEST_POSTGRES_URL, options);
    closers.push(() => mirrored.close());
    const { remote } = await newRemote();
    const folder = await dirs.make();
    const scenario = join(folder, 'codex.scenario.yaml');
    const task: Task = resolveTask(
      TaskFile.parse({
        name: 'fix',
        repo: `file://${remote}`,
        baseRef: 'main',
        prompt: 'Add b.',
        harness: simulated('codex', scenario),
        timeout: '10m',
      }),
      (path) => path,
    );
    const env = { ...GIT_IDENTITY, HARMFLOW_FORGE_DIR: folder };
    const reported: Error[] = [];
    const deps = (machine: Machine): DriveJobDeps => ({
      store,
      inbox,
      mirror,
      mirrored,
      home: machine.home,
      cacheDir: machine.cacheDir,
      engine: { extraPath: [FORGE_BIN], hostEnv: { ...process.env, ...env }, interruptBudgetMs: 1_000 },
      onError: (error) => reported.push(error),
    });
    /** Creates the execution, enqueues its prompt as t1 (createClusterExecution writes no inbox). */
    const create = async () => {
      const created = await createClusterExecution(task, store);
      expect(await inbox.enqueueTurn(created.id, task.prompt)).toEqual({ turn: 't1', queued: 1 });
      return created;
    };
    const writeScenario = (steps: unknown[]) => writeFile(scenario, stringify({ steps }));
    return { opened, store, inbox, mirrored, remote, env, reported, deps, create, writeScenario };
  }

  async function settled(opened: Cluster, store: DriveJobDeps['store'], execution: string): Promise<void> {
    await waitFor(
      'the execution to succeed',
      async () => ((await store.getExecution(execution))?.state === 'succeeded' ? true : undefined),
      30_000,
    );
    // The job settles once the handler returned: after its last catch-up and the inbox's close.
    await waitFor('an empty queue', async () => {
      const { waiting, active, delayed } = await opened.pending();
      return waiting + active + delayed === 0 ? true : undefined;
    });
  }

  it('drives a dispatched execution to success: history mirrored in order, turn done, commit on the branch', async () => {
    const { opened, store, inbox, mirrored, remote, reported, deps, create, writeScenario } = await setUp();
    await writeScenario([{ write: { path: 'b.txt', content: 'b\n' } }, { commit: 'Add b' }, { end: 'complete' }]);
    const created = await create();
    const execution = created.id;
    const machine = await newMachine();
    await opened.startWorker({
      workerId: 'worker-a',
      concurrency: 1,
      handle: (id, context) => driveClusterJob(id, context, deps(machine)),
    });
    await dispatchExecution(opened.queue, execution);
    await settled(opened, store, execution);
    expect(opened.errors).toEqual([]);
    expect(reported).toEqual([]);

    const local = logLines(machine.home.eventsFile(execution));
    expect(local.length).toBeGreaterThan(3);
    expect(await mirroredLines(mirrored, execution)).toEqual(local);
    expect(local.map((line) => JSON.parse(line).type)).toContain('execution.ended');

    const turns = await cluster.admin.query(
      `SELECT number, state FROM ${opened.schema}.execution_turns WHERE execution = $1 ORDER BY number`,
      [execution],
    );
    expect(turns.rows).toEqual([{ number: 1, state: 'done' }]);
    await expect(inbox.enqueueTurn(execution, 'too late')).rejects.toThrow(ConflictError);

    expect(git(machine.home.worktree(execution), 'log', '-1', '--format=%s', created.branch)).toBe('Add b');
    // The checkpoint pushed at the attempt's exit carries the commit to the remote.
    expect(git(remote, 'log', '-1', '--format=%s', `refs/harmflow/checkpoints/${execution}^1`)).toBe('Add b');
  }, 60_000);

  it('finishes, as one execution, the execution of a worker process SIGKILLed mid-turn: attempt 1 crashed', async () => {
    if (!existsSync(BUILT)) throw new Error('dist/cluster/drive-job.js is missing: run `npm run build` first');
    const { opened, store, mirrored, env, reported, deps, create, writeScenario } = await setUp();
    await writeScenario([{ write: { path: 'b.txt', content: 'b\n' } }, { commit: 'Add b' }, { end: 'hang' }]);
    const created = await create();
    const execution = created.id;

    const doomedMachine = await newMachine();
    const doomed = await startDriveWorker(opened, doomedMachine, env);
    closers.push(async () => {
      doomed.child.kill('SIGKILL');
    });
    let leftover: number | undefined;
    closers.push(async () => {
      if (leftover !== undefined) signalGroup(leftover, 'SIGKILL');
    });
    await dispatchExecution(opened.queue, execution);
    // Mid-turn: the commit is recorded and mirrored, the harness hangs.
    await waitFor(
      'the commit in the mirror',
      async () =>
        (await mirroredLines(mirrored, execution)).some((line) => {
          const record = JSON.parse(line);
          return record.type === 'operation' && record.data.kind === 'commit' ? true : undefined;
        }) || undefined,
      30_000,
    );
    const before = await mirroredLines(mirrored, execution);
    leftover = Number(readFileSync(join(doomedMachine.home.attemptDir(execution, 1), 'pgid'), 'utf8'));
    await writeScenario([{ write: { path: 'c.txt', content: 'c\n' } }, { commit: 'Add c' }, { end: 'complete' }]);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    // The doomed machine's harness is left running, as on a lost machine; the test stops it.
    signalGroup(leftover, 'SIGKILL');

    const machine = await newMachine();
    await opened.startWorker({
      workerId: 'survivor',
      concurrency: 1,
      handle: (id, context) => driveClusterJob(id, context, deps(machine)),
    });
    await settled(opened, store, execution);
    expect(reported).toEqual([]);

    const attempts = await store.listAttempts(execution);
    expect(attempts.map((attempt) => [attempt.number, attempt.outcome])).toEqual([
      [1, 'crashed'],
      [2, 'completed'],
    ]);
    const local = logLines(machine.home.eventsFile(execution));
    expect(local.slice(0, before.length)).toEqual(before);
    expect(await mirroredLines(mirrored, execution)).toEqual(local);
    const types = local.map((line) => JSON.parse(line).type);
    expect(types.filter((type) => type === 'execution.started')).toHaveLength(1);
    expect(types).toContain('execution.resumed');
    // The doomed worker's commit was never checkpointed (its attempt never exited): the survivor starts
    // from the base, and its own commit is on the branch.
    expect(git(machine.home.worktree(execution), 'log', '-1', '--format=%s', created.branch)).toBe('Add c');
  }, 90_000);
});

/** A drive-worker.mjs process on `machine`, once it is taking jobs. */
async function startDriveWorker(
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
