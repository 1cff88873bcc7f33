/**
 * `harmflow worker` as users start it: the built bin (`npm run build` first) against the test
 * PostgreSQL and Redis, in a schema and under a key prefix of the test's own, driving an execution
 * created as an API node creates it, with the simulator playing the harness.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openClusterHold } from '../../src/cluster/cluster-hold.js';
import { dispatchExecution } from '../../src/cluster/dispatch.js';
import { driveClusterJob } from '../../src/cluster/drive-job.js';
import { EXIT } from '../../src/core/errors.js';
import type { HomePaths } from '../../src/core/home.js';
import { groupAlive, signalGroup } from '../../src/proc/group.js';
import { type DriveSetUp, driveClusters } from '../cluster/drive-fixture.js';
import { waitFor } from '../cluster/fixture.js';
import { REDIS_AVAILABLE, TEST_REDIS_URL } from '../cluster/redis.js';
import { newMachine } from '../cluster/workspace-fixture.js';
import { FORGE_BIN } from '../execution/fixture.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL } from '../store/postgres.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));

interface RunningWorker {
  readonly child: ChildProcess;
  /** What it printed so far, on stdout and on stderr. */
  readonly out: () => string;
  readonly err: () => string;
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/** `harmflow worker` on the set-up's cluster, in a state directory of its own unless given one. */
async function startWorker(
  setUp: DriveSetUp,
  more: readonly string[] = [],
  home: HomePaths | undefined = undefined,
): Promise<RunningWorker> {
  const root = (home ?? (await newMachine()).home).root;
  const child = spawn(
    process.execPath,
    [
      BIN,
      'worker',
      '--store',
      TEST_POSTGRES_URL,
      '--queue',
      TEST_REDIS_URL,
      '--schema',
      setUp.opened.schema,
      '--queue-prefix',
      setUp.opened.prefix,
      '--home',
      root,
      '--worker-id',
      'cli-worker',
      '--interrupt-budget',
      '1s',
      ...more,
    ],
    {
      env: { ...process.env, ...setUp.env, PATH: `${FORGE_BIN}${delimiter}${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  setUp.onClose(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += String(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += String(chunk);
  });
  await waitFor(
    'the worker to take executions',
    () => {
      if (child.exitCode !== null) throw new Error(`harmflow worker exited ${child.exitCode}: ${stderr}`);
      return stdout.includes('taking executions') ? true : undefined;
    },
    20_000,
  );
  return { child, out: () => stdout, err: () => stderr, exited };
}

describe.runIf(REDIS_AVAILABLE && POSTGRES_AVAILABLE)('harmflow worker', () => {
  const { setUp } = driveClusters();

  it('drives a dispatched execution to success, then stops on SIGTERM with exit 0', async () => {
    const cluster = await setUp();
    await cluster.writeScenario([
      { write: { path: 'b.txt', content: 'b\n' } },
      { commit: 'Add b' },
      { end: 'complete' },
    ]);
    const worker = await startWorker(cluster, ['--concurrency', '2']);
    expect(worker.out()).toBe(
      `worker cli-worker taking executions from ${new URL(TEST_REDIS_URL).hostname}:${new URL(TEST_REDIS_URL).port || 6379} (concurrency 2)\n` +
        'worker cli-worker taking workflow items (item concurrency 4; models: none)\n',
    );
    const { id } = await cluster.create();
    await dispatchExecution(cluster.opened.queue, id);
    await cluster.settled(id);
    const attempts = await cluster.store.listAttempts(id);
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['completed']);

    worker.child.kill('SIGTERM');
    const [code] = await worker.exited;
    expect(worker.err()).toBe('');
    expect(code).toBe(EXIT.ok);
    expect(worker.out()).toContain('worker cli-worker stopped\n');
  }, 60_000);

  it('on SIGTERM mid-turn suspends its execution and hands it back: another worker finishes it', async () => {
    const cluster = await setUp();
    await cluster.writeScenario([{ write: { path: 'b.txt', content: 'b\n' } }, { commit: 'Add b' }, { end: 'hang' }]);
    const worker = await startWorker(cluster, ['--concurrency', '1']);
    const { id } = await cluster.create();
    await dispatchExecution(cluster.opened.queue, id);
    await waitFor(
      'the harness to commit',
      async () => ((await cluster.store.listAttempts(id)).length === 1 ? true : undefined),
      30_000,
    );
    await cluster.writeScenario([
      { write: { path: 'c.txt', content: 'c\n' } },
      { commit: 'Add c' },
      { end: 'complete' },
    ]);
    worker.child.kill('SIGTERM');
    const [code] = await worker.exited;
    expect(code).toBe(EXIT.ok);
    expect(worker.out()).toContain('stopping: suspending its executions');
    // Left open, its lease released, its job back in the queue for another worker.
    expect((await cluster.store.getExecution(id))?.state).toBe('running');
    expect(await cluster.opened.leases.leaseHolder(id)).toBeUndefined();
    const { waiting, delayed } = await cluster.opened.pending();
    expect(waiting + delayed).toBe(1);

    const machine = await newMachine();
    await cluster.opened.startWorker({
      workerId: 'successor',
      concurrency: 1,
      handle: (execution, context) => driveClusterJob(execution, context, cluster.deps(machine)),
    });
    await cluster.settled(id);
    expect(cluster.reported).toEqual([]);
    const attempts = await cluster.store.listAttempts(id);
    expect(attempts.map((attempt) => attempt.outcome).at(-1)).toBe('completed');
    expect(attempts.some((attempt) => attempt.outcome === 'crashed')).toBe(false);
  }, 90_000);

  it('kills, when restarted on the same state directory, the harness a SIGKILLed worker left running', async () => {
    const cluster = await setUp();
    await cluster.writeScenario([{ say: 'working' }, { end: 'hang' }]);
    const { home } = await newMachine();
    const killed = await startWorker(cluster, [], home);
    const { id } = await cluster.create();
    await dispatchExecution(cluster.opened.queue, id);
    // Its first message recorded: the harness runs, its group id written before.
    await waitFor(
      'the harness to say it works',
      () =>
        existsSync(home.eventsFile(id)) && readFileSync(home.eventsFile(id), 'utf8').includes('"type":"message"')
          ? true
          : undefined,
      30_000,
    );
    const pgid = Number(readFileSync(join(home.attemptDir(id, 1), 'pgid'), 'utf8'));
    expect(pgid).toBeGreaterThan(1);
    cluster.onClose(async () => {
      signalGroup(pgid, 'SIGKILL');
    });
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(groupAlive(pgid)).toBe(true);

    const restarted = await startWorker(cluster, [], home);
    expect(restarted.out()).toContain(
      `killed the harness a lost worker left running: execution ${id}, attempt 1 (process group ${pgid})\n`,
    );
    await waitFor('the orphaned harness to be gone', () => (groupAlive(pgid) ? undefined : true));
    restarted.child.kill('SIGTERM');
    expect((await restarted.exited)[0]).toBe(EXIT.ok);
  }, 60_000);

  it('takes no execution while free disk is below its floor, and says so once', async () => {
    const cluster = await setUp();
    await cluster.writeScenario([{ end: 'complete' }]);
    // A floor no disk reaches: 1 PiB.
    const worker = await startWorker(cluster, ['--disk-floor-gib', String(1024 ** 2)]);
    await waitFor('the pause line', () => (worker.out().includes('paused:') ? true : undefined), 10_000);
    const { id } = await cluster.create();
    await dispatchExecution(cluster.opened.queue, id);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await cluster.opened.pending()).toEqual({ waiting: 1, active: 0, delayed: 0 });
    expect((await cluster.store.getExecution(id))?.state).toBe('queued');
    const lines = worker
      .out()
      .split('\n')
      .filter((line) => line.includes('paused:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^worker cli-worker paused: free disk .* is below the 1 PiB floor$/);
    worker.child.kill('SIGTERM');
    expect((await worker.exited)[0]).toBe(EXIT.ok);
  }, 60_000);

  it('pauses while an operator holds the cluster and takes the execution once it is released', async () => {
    const cluster = await setUp();
    await cluster.writeScenario([{ end: 'complete' }]);
    const hold = await openClusterHold(TEST_POSTGRES_URL, { schema: cluster.opened.schema });
    cluster.onClose(() => hold.close());
    const worker = await startWorker(cluster);
    await hold.hold('database upgrade');
    // Seen at the worker's next admission check, within 5 s.
    await waitFor('the pause line', () => (worker.out().includes('paused:') ? true : undefined), 10_000);
    expect(worker.out()).toContain('worker cli-worker paused: held by an operator: database upgrade\n');
    const { id } = await cluster.create();
    await dispatchExecution(cluster.opened.queue, id);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await cluster.store.getExecution(id))?.state).toBe('queued');
    await hold.release();
    await cluster.settled(id);
    expect(worker.out()).toContain('worker cli-worker resumed: admission is open again\n');
    worker.child.kill('SIGTERM');
    expect((await worker.exited)[0]).toBe(EXIT.ok);
  }, 60_000);
});

describe.runIf(POSTGRES_AVAILABLE)('harmflow worker, cut off', () => {
  const { setUp } = driveClusters();

  it.each([
    ['store', 'postgres://postgres@127.0.0.1:1/test', TEST_REDIS_URL],
    ['queue', TEST_POSTGRES_URL, 'redis://127.0.0.1:1'],
  ])('exits 8 with one line when its %s does not answer', async (what, store, queue) => {
    const { opened } = await setUp();
    const { home } = await newMachine();
    const run = spawnSync(
      process.execPath,
      [BIN, 'worker', '--store', store, '--queue', queue, '--schema', opened.schema, '--home', home.root],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(run.status).toBe(EXIT.unavailable);
    expect(run.stderr).toMatch(new RegExp(`^harmflow: cannot reach the ${what} at 127\\.0\\.0\\.1:1: [^\\n]+\\n$`));
    expect(run.stdout).toBe('');
  });
});

describe('harmflow worker, misused', () => {
  it.each([
    [
      '--store',
      'mysql://db.example/cluster',
      'store URL "mysql://db.example/cluster" is refused: the scheme must be postgres:// or postgresql://',
    ],
    [
      '--queue',
      'http://cache.example:6379',
      'queue URL "http://cache.example:6379" is refused: the scheme must be redis:// or rediss://',
    ],
  ])('refuses %s %s with one line and exit 2', (option, url, message) => {
    const urls: Record<string, string> = {
      '--store': 'postgres://db.example/cluster',
      '--queue': 'redis://cache.example',
    };
    urls[option] = url;
    const run = spawnSync(
      process.execPath,
      [BIN, 'worker', '--store', urls['--store'] ?? '', '--queue', urls['--queue'] ?? ''],
      {
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(run.status).toBe(EXIT.usage);
    expect(run.stderr).toBe(`harmflow: ${message}\n`);
    expect(run.stdout).toBe('');
  });
});
