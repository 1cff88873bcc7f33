/**
 * An execution that takes its workers down is not handed to worker after worker: three worker
 * processes SIGKILLed in a row while they drive it (each attempt left open, closed `crashed` by the
 * next one's recovery), and the fourth ends it `failed`, saying why, instead of starting a fourth
 * attempt. The worker processes run the built dist/ (`npx tsc -p tsconfig.build.json` first).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dispatchExecution } from '../../src/cluster/dispatch.js';
import { POSTGRES_AVAILABLE } from '../store/postgres.js';
import { BUILT, driveClusters, killMidAttempt, mirroredLines, startDriveWorker } from './drive-fixture.js';
import { waitFor } from './fixture.js';
import { REDIS_AVAILABLE } from './redis.js';
import { newMachine } from './workspace-fixture.js';

describe.runIf(REDIS_AVAILABLE && POSTGRES_AVAILABLE)('an execution that takes its workers down', () => {
  const drive = driveClusters();

  it('fails on the worker after three lost in a row, without a fourth attempt', { timeout: 120_000 }, async () => {
    if (!existsSync(BUILT)) throw new Error('dist/cluster/drive-job.js is missing: run `npm run build` first');
    const { opened, startDriving, store, mirrored, env, create, writeScenario, settled, onClose } = await drive.setUp();
    // Each attempt says something, then its harness hangs: the worker is killed mid-turn.
    await writeScenario([{ say: 'working' }, { end: 'hang' }]);
    const { id } = await create();
    await dispatchExecution(opened.queue, id);

    for (let lost = 1; lost <= 3; lost += 1) {
      const machine = await newMachine();
      const doomed = await startDriveWorker(opened, machine, env);
      onClose(async () => {
        doomed.child.kill('SIGKILL');
      });
      const pgidFile = `${machine.home.attemptDir(id, lost)}/pgid`;
      await waitFor(`attempt ${lost} to run`, () => (existsSync(pgidFile) ? true : undefined), 30_000);
      await killMidAttempt(doomed, machine, id, lost);
    }
    // A healthy worker's stalled check finds the job lost a third time and fails it (maxStalledCount
    // 2); a later dispatch (an API node, the redispatch sweep) hands the execution to that worker.
    const machine = await newMachine();
    await startDriving('healthy', machine);
    await waitFor('the lost job to leave the queue', async () => {
      const { waiting, active, delayed } = await opened.pending();
      return waiting + active + delayed === 0 ? true : undefined;
    });
    await dispatchExecution(opened.queue, id);
    await settled(id, 'failed');

    const attempts = await store.listAttempts(id);
    expect(attempts.map((attempt) => [attempt.number, attempt.outcome])).toEqual([
      [1, 'crashed'],
      [2, 'crashed'],
      [3, 'crashed'],
    ]);
    expect((await store.getExecution(id))?.message).toBe(
      'its last 3 attempts were lost with the processes that drove them (crashed): failed rather than take down another',
    );
    // The last record is its end (the killed workers' own records may not have reached the mirror).
    const records = (await mirroredLines(mirrored, id)).map(
      (line) => JSON.parse(line) as { type: string; data: { state?: string } },
    );
    expect(records.at(-1)).toMatchObject({ type: 'execution.ended', data: { state: 'failed' } });
  });
});
