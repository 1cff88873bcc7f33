/**
 * A run's owner (issue 21 item 7): the engine records the process that drives a run and clears it
 * when the run stops; a reader shows a `running` run whose owner is gone as `interrupted`, and one
 * whose owner ran on another machine as stored (not checked); a resume refuses a run that another
 * live process of this machine drives, and takes one whose owner is gone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/core/errors.js';
import type { ResumeStore, RunOwner, RunRecord } from '../../src/store/resume-store.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import type { WorkflowDefinition } from '../../src/workflows/define.js';
import { resumeRun, startRun } from '../../src/workflows/run.js';
import { runStatus } from '../../src/workflows/run-owner.js';

const AT = '2026-12-01T09:00:00.000Z';

let store: ResumeStore;
let child: ChildProcess | undefined;
beforeEach(() => {
  store = openSqliteResumeStore(':memory:');
});
afterEach(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
  child = undefined;
  await store.close();
});

/** One code step of one item; `during` is called while the item computes. */
function oneStep(during: () => Promise<void> = async () => {}): WorkflowDefinition {
  return {
    name: 'one',
    steps: [
      {
        kind: 'code',
        name: 'only',
        version: '1',
        items: 'single',
        run: async () => {
          await during();
          return { done: true };
        },
      },
    ],
  };
}

/** A process of this machine that lives until the test ends it. */
async function liveProcess(): Promise<ChildProcess> {
  const started = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  await once(started, 'spawn');
  return started;
}

/** A `running` run as a process left it: owned by `owner`. */
function left(owner: RunOwner): RunRecord {
  return { id: 'r-1', workflow: 'one', params: {}, state: 'running', owner, createdAt: AT, updatedAt: AT };
}

describe('a run’s owner', () => {
  it('is this process while it drives the run, and is cleared when the run stops', async () => {
    let during: RunRecord | undefined;
    const result = await startRun(
      oneStep(async () => {
        during = (await store.listRuns())[0];
      }),
      { store },
    );
    expect(during?.state).toBe('running');
    expect(during?.owner).toMatchObject({ pid: process.pid, host: hostname(), since: during?.createdAt });
    expect(runStatus(during as RunRecord)).toMatchObject({ state: 'running', owner: { alive: true } });
    const stored = await store.getRun(result.run.id);
    expect(stored?.state).toBe('succeeded');
    expect(stored).not.toHaveProperty('owner');
    expect(result.run).toStrictEqual(stored);
  });

  it('shows a running run interrupted once its owner is gone, and one of another machine as stored', async () => {
    child = await liveProcess();
    const owner: RunOwner = { pid: child.pid ?? 0, host: hostname(), startTime: '0', since: AT };
    expect(runStatus(left(owner))).toStrictEqual({ state: 'running', owner: { ...owner, alive: true } });
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    expect(runStatus(left(owner))).toStrictEqual({ state: 'interrupted', owner: { ...owner, alive: false } });
    const elsewhere = { ...owner, host: `not-${hostname()}` };
    expect(runStatus(left(elsewhere))).toStrictEqual({ state: 'running', owner: { ...elsewhere, alive: null } });
    expect(runStatus({ ...left(owner), state: 'crashed' }).state).toBe('crashed');
    const { owner: _none, ...unowned } = left(owner);
    expect(runStatus(unowned)).toStrictEqual({ state: 'running' });
  });

  it('refuses a resume while another live process drives the run, and resumes it once that one is gone', async () => {
    child = await liveProcess();
    const owner: RunOwner = { pid: child.pid ?? 0, host: hostname(), startTime: '0', since: AT };
    await store.createRun(left(owner));
    const refused = resumeRun(oneStep(), 'r-1', { store });
    await expect(refused).rejects.toBeInstanceOf(ConflictError);
    await expect(refused).rejects.toThrow(`run r-1 is being driven by pid ${owner.pid} on ${hostname()}`);
    expect(await store.getRun('r-1')).toStrictEqual(left(owner));

    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    const resumed = await resumeRun(oneStep(), 'r-1', { store });
    expect(resumed.run.state).toBe('succeeded');
    expect(await store.getRun('r-1')).not.toHaveProperty('owner');
  });
});
