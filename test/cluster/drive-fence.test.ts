/**
 * driveClusterJob when the store's fence is what tells a worker it lost the lease: another worker
 * acquires the execution's lease while the harness runs and before this worker's keeper has noticed
 * (its renewals are far apart), so the first write of the execution's rows after that — the attempt's
 * end — is refused by the store (postgres-store.ts `fencedTo`). The drive must end as a lost lease
 * does: the refused row unchanged, the engine suspended (no end recorded, not even on this machine),
 * the job handed back rather than failed. Needs PostgreSQL and Redis, as the other cluster tests.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dispatchExecution } from '../../src/cluster/dispatch.js';
import { driveClusterJob } from '../../src/cluster/drive-job.js';
import { LeaseLostError } from '../../src/cluster/kept-lease.js';
import { DispatchFailedError } from '../../src/cluster/worker-loop.js';
import { POSTGRES_AVAILABLE } from '../store/postgres.js';
import { driveClusters, logLines } from './drive-fixture.js';
import { waitFor } from './fixture.js';
import { REDIS_AVAILABLE } from './redis.js';
import { newMachine } from './workspace-fixture.js';

const MINUTE = 60_000;

describe.runIf(REDIS_AVAILABLE && POSTGRES_AVAILABLE)('driveClusterJob fenced by the store', () => {
  const { admin, setUp } = driveClusters();

  it("ends quietly when the store refuses the attempt's end after another worker took the lease", async () => {
    const { opened, store, reported, deps, create, writeScenario } = await setUp();
    // The harness waits for the test's go (a file in its worktree, which its sandbox shows), then
    // crashes: its attempt's end is the first write after it.
    await writeScenario([{ run: 'while [ ! -e go ]; do sleep 0.05; done' }, { end: 'crash' }]);
    const { id: execution } = await create();
    const machine = await newMachine();
    await opened.startWorker({
      workerId: 'worker-a',
      concurrency: 1,
      // Renewed once a minute: the keeper does not notice the take-over before the store does.
      lease: { ttlMs: 2 * MINUTE, renewEveryMs: MINUTE },
      handle: (id, context) => driveClusterJob(id, context, deps(machine)),
    });
    await dispatchExecution(opened.queue, execution);
    await waitFor(
      'the first attempt to run',
      async () => ((await store.listAttempts(execution)).length === 1 ? true : undefined),
      30_000,
    );

    // Another worker takes the lease over, as after this one's lease expired unnoticed.
    await admin().query(
      `UPDATE ${opened.schema}.execution_leases SET expires_at = now() - interval '1 second' WHERE execution = $1`,
      [execution],
    );
    expect(await opened.leases.acquireLease(execution, 'worker-b', MINUTE)).toBe(2);
    await writeFile(join(machine.home.worktree(execution), 'go'), '');

    // The handler returns and the job is handed back, then waits for worker-b's lease.
    await waitFor(
      'the job to be handed back',
      async () => {
        const { active, delayed } = await opened.pending();
        return active === 0 && delayed === 1 && !existsSync(machine.home.ownerFile(execution)) ? true : undefined;
      },
      30_000,
    );
    const types = logLines(machine.home.eventsFile(execution)).map((line) => JSON.parse(line).type);
    expect(types).toContain('attempt.ended');
    expect(types).not.toContain('execution.ended');
    expect(existsSync(machine.home.endedMarker(execution))).toBe(false);
    // The refused write changed nothing: the attempt is open and the execution running, for worker-b.
    const [attempt] = await store.listAttempts(execution);
    expect(attempt?.outcome).toBeUndefined();
    expect((await store.getExecution(execution))?.state).toBe('running');
    expect(opened.errors.filter((error) => error instanceof DispatchFailedError)).toEqual([]);
    expect((await opened.queue.getJobCounts('failed')).failed ?? 0).toBe(0);
    // What was reported is the lease lost, by the writes that carry its token (the context, the inbox).
    expect(reported.every((error) => error instanceof LeaseLostError)).toBe(true);
  }, 60_000);
});
