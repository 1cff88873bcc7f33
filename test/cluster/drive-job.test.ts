/**
 * driveClusterJob end to end: an execution created as an API node creates it (no checkout), its task's
 * prompt enqueued as turn t1, dispatched through BullMQ, and driven by dispatch workers on machines of
 * their own (a state directory and a mirror cache each), with the simulator playing the harness. The
 * crash test also runs a worker process (drive-worker.mjs). Both need dist/ built (`npm run build`),
 * and PostgreSQL and Redis, as the other cluster tests.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dispatchExecution } from '../../src/cluster/dispatch.js';
import { ConflictError } from '../../src/core/errors.js';
import { git } from '../execution/fixture.js';
import { POSTGRES_AVAILABLE } from '../store/postgres.js';
import { BUILT, driveClusters, killMidAttempt, logLines, mirroredLines, startDriveWorker } from './drive-fixture.js';
import { waitFor } from './fixture.js';
import { REDIS_AVAILABLE } from './redis.js';
import { newMachine } from './workspace-fixture.js';

describe.runIf(REDIS_AVAILABLE && POSTGRES_AVAILABLE)('driveClusterJob', () => {
  const { admin, setUp } = driveClusters();

  it('drives a dispatched execution to success: history mirrored in order, turn done, commit on the branch', async () => {
    const { opened, startDriving, inbox, mirrored, contexts, remote, reported, create, writeScenario, settled } =
      await setUp();
    await writeScenario([{ write: { path: 'b.txt', content: 'b\n' } }, { commit: 'Add b' }, { end: 'complete' }]);
    const created = await create();
    const execution = created.id;
    const machine = await newMachine();
    await startDriving('worker-a', machine);
    await dispatchExecution(opened.queue, execution);
    await settled(execution);
    expect(opened.errors).toEqual([]);
    expect(reported).toEqual([]);

    const local = logLines(machine.home.eventsFile(execution));
    expect(local.length).toBeGreaterThan(3);
    expect(await mirroredLines(mirrored, execution)).toEqual(local);
    expect(local.map((line) => JSON.parse(line).type)).toContain('execution.ended');

    const turns = await admin().query(
      `SELECT number, state FROM ${opened.schema}.execution_turns WHERE execution = $1 ORDER BY number`,
      [execution],
    );
    expect(turns.rows).toEqual([{ number: 1, state: 'done' }]);
    await expect(inbox.enqueueTurn(execution, 'too late')).rejects.toThrow(ConflictError);

    expect(git(machine.home.worktree(execution), 'log', '-1', '--format=%s', created.branch)).toBe('Add b');
    // The checkpoint pushed at the attempt's exit carries the commit to the remote.
    expect(git(remote, 'log', '-1', '--format=%s', `refs/harmflow/checkpoints/${execution}^1`)).toBe('Add b');
    // The context written at the end is in PostgreSQL as on disk; the owner file is released.
    const onDisk = JSON.parse(readFileSync(machine.home.contextFile(execution), 'utf8'));
    expect(await contexts.get(execution)).toEqual(onDisk);
    expect(existsSync(machine.home.ownerFile(execution))).toBe(false);
  }, 60_000);

  it('finishes, as one execution, the execution of a worker process SIGKILLed mid-turn: attempt 1 crashed', async () => {
    if (!existsSync(BUILT)) throw new Error('dist/cluster/drive-job.js is missing: run `npm run build` first');
    const { opened, startDriving, store, mirrored, env, reported, create, writeScenario, settled, onClose } =
      await setUp();
    await writeScenario([{ write: { path: 'b.txt', content: 'b\n' } }, { commit: 'Add b' }, { end: 'hang' }]);
    const created = await create();
    const execution = created.id;

    const doomedMachine = await newMachine();
    const doomed = await startDriveWorker(opened, doomedMachine, env);
    onClose(async () => {
      doomed.child.kill('SIGKILL');
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
    await writeScenario([{ write: { path: 'c.txt', content: 'c\n' } }, { commit: 'Add c' }, { end: 'complete' }]);
    await killMidAttempt(doomed, doomedMachine, execution, 1);

    const machine = await newMachine();
    await startDriving('survivor', machine);
    await settled(execution);
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
    // The doomed worker's commit was never checkpointed (its attempt never exited, and the periodic
    // checkpoint is a minute away): the survivor starts from the base, and its own commit is on the branch.
    expect(git(machine.home.worktree(execution), 'log', '-1', '--format=%s', created.branch)).toBe('Add c');
  }, 90_000);
});
