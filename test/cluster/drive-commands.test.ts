/**
 * What reaches the worker that drives an execution besides its turns, and what it keeps for the next
 * worker: commands sent through the inbox (cancel, switch, resume), periodic checkpoints while an
 * attempt runs, and `context.json` carried to the worker that takes a lost execution over. The
 * simulator plays the harnesses; needs dist/ built (`npm run build`), PostgreSQL and Redis.
 */
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dispatchExecution } from '../../src/cluster/dispatch.js';
import { driveClusterJob } from '../../src/cluster/drive-job.js';
import { ConflictError } from '../../src/core/errors.js';
import { ExecutionContext } from '../../src/execution/context-schema.js';
import { git } from '../execution/fixture.js';
import { POSTGRES_AVAILABLE } from '../store/postgres.js';
import { BUILT, driveClusters, killMidAttempt, logLines, mirroredLines, startDriveWorker } from './drive-fixture.js';
import { waitFor } from './fixture.js';
import { REDIS_AVAILABLE } from './redis.js';
import { newMachine } from './workspace-fixture.js';

/** The records of the log at `path`, parsed. */
function records(path: string): { type: string; attempt?: number; data: Record<string, unknown> }[] {
  return logLines(path).map((line) => JSON.parse(line));
}

describe.runIf(REDIS_AVAILABLE && POSTGRES_AVAILABLE)('commands, checkpoints and contexts of a cluster drive', () => {
  const { setUp } = driveClusters();

  it('ends canceled, with no attempt and no workspace, an execution canceled before any worker took it', async () => {
    const { opened, startDriving, store, inbox, mirrored, reported, create, writeScenario, settled } = await setUp();
    await writeScenario([{ end: 'complete' }]);
    const { id: execution } = await create();
    await inbox.requestCommand(execution, { kind: 'cancel' });
    const machine = await newMachine();
    await startDriving('worker-a', machine);
    await dispatchExecution(opened.queue, execution);
    await settled(execution, 'canceled');
    expect(reported).toEqual([]);
    expect(opened.errors).toEqual([]);

    expect(await store.listAttempts(execution)).toEqual([]);
    expect(existsSync(machine.home.worktree(execution))).toBe(false);
    const local = records(machine.home.eventsFile(execution));
    expect(local.map((record) => record.type)).toEqual(['cancel.requested', 'execution.ended']);
    expect(local[1]?.data).toMatchObject({ state: 'canceled', attempts: 0, message: 'canceled while queued' });
    expect(await mirroredLines(mirrored, execution)).toEqual(logLines(machine.home.eventsFile(execution)));
    await expect(inbox.enqueueTurn(execution, 'too late')).rejects.toThrow(ConflictError);
  }, 60_000);

  it('checkpoints work committed mid-attempt before the attempt ends, and a cancel sent mid-turn ends it canceled', async () => {
    const { opened, startDriving, store, inbox, remote, reported, create, writeScenario, settled } = await setUp();
    await writeScenario([{ write: { path: 'b.txt', content: 'b\n' } }, { commit: 'Add b' }, { end: 'hang' }]);
    const { id: execution } = await create();
    const machine = await newMachine();
    await startDriving('worker-a', machine, { checkpointEveryMs: 200 });
    await dispatchExecution(opened.queue, execution);
    const ref = `refs/harmflow/checkpoints/${execution}`;
    await waitFor(
      'a checkpoint holding the commit',
      () => {
        try {
          return git(remote, 'log', '-1', '--format=%s', `${ref}^1`) === 'Add b' ? true : undefined;
        } catch {
          return undefined;
        }
      },
      30_000,
    );
    // The attempt still runs: its harness hangs, so the checkpoint was not its exit's.
    const [running] = await store.listAttempts(execution);
    expect(running?.endedAt).toBeUndefined();

    await inbox.requestCommand(execution, { kind: 'cancel' });
    await settled(execution, 'canceled');
    expect(reported).toEqual([]);
    const attempts = await store.listAttempts(execution);
    expect(attempts.map((attempt) => [attempt.number, attempt.outcome])).toEqual([[1, 'canceled']]);
    const cancel = records(machine.home.eventsFile(execution)).find((record) => record.type === 'cancel.requested');
    expect(cancel?.data).toEqual({ budgetMs: 1000 });
  }, 60_000);

  it('applies a switch by hand sent to the worker; refuses one to a harness it cannot start, and notes a resume with no wait', async () => {
    const { opened, store, inbox, reported, deps, create, writeScenario, settled } = await setUp({ fallback: true });
    await writeScenario([{ say: 'working' }, { end: 'hang' }]);
    await writeScenario(
      [{ write: { path: 'b.txt', content: 'b\n' } }, { commit: 'Add b' }, { end: 'complete' }],
      'claude-code',
    );
    const { id: execution } = await create();
    const machine = await newMachine();
    // A PATH on which no gemini can be found, whatever this machine has installed.
    const path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => !existsSync(join(dir, 'gemini')))
      .join(delimiter);
    const base = deps(machine);
    await opened.startWorker({
      workerId: 'worker-a',
      concurrency: 1,
      handle: (id, context) =>
        driveClusterJob(id, context, {
          ...base,
          engine: { ...base.engine, hostEnv: { ...base.engine?.hostEnv, PATH: path } },
        }),
    });
    await dispatchExecution(opened.queue, execution);
    await waitFor(
      'the first attempt to run',
      async () => ((await store.listAttempts(execution)).length === 1 ? true : undefined),
      30_000,
    );
    await inbox.requestCommand(execution, { kind: 'resume' });
    await inbox.requestCommand(execution, { kind: 'switch', harness: 'gemini', by: 'cli (alice)' });
    await inbox.requestCommand(execution, {
      kind: 'switch',
      harness: 'claude-code',
      by: 'cli (alice)',
      reason: 'try claude',
    });
    await settled(execution);
    expect(reported).toEqual([]);

    const attempts = await store.listAttempts(execution);
    expect(attempts.map((attempt) => [attempt.harness, attempt.outcome])).toEqual([
      ['codex', 'switched'],
      ['claude-code', 'completed'],
    ]);
    const local = records(machine.home.eventsFile(execution));
    const warnings = local.filter((record) => record.type === 'warning').map((record) => String(record.data.message));
    expect(warnings).toContainEqual(expect.stringContaining('nothing to resume'));
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^cli \(alice\) asked to switch to gemini, refused on this worker: harness gemini is not installed/,
      ),
    );
    const asked = local.filter((record) => record.type === 'switch.requested').map((record) => record.data);
    expect(asked).toEqual([{ harness: 'claude-code', by: 'cli (alice)', reason: 'try claude' }]);
  }, 60_000);

  it('hands the worker that takes over a lost execution the ended attempts of the earlier worker (context.json)', async () => {
    if (!existsSync(BUILT)) throw new Error('dist/cluster/drive-job.js is missing: run `npm run build` first');
    const { opened, startDriving, store, mirrored, contexts, env, reported, create, writeScenario, settled, onClose } =
      await setUp({ fallback: true });
    await writeScenario([{ write: { path: 'b.txt', content: 'b\n' } }, { commit: 'Add b' }, { end: 'quota' }]);
    await writeScenario([{ say: 'carrying on' }, { end: 'hang' }], 'claude-code');
    const { id: execution } = await create();

    const doomedMachine = await newMachine();
    const doomed = await startDriveWorker(opened, doomedMachine, env);
    onClose(async () => {
      doomed.child.kill('SIGKILL');
    });
    await dispatchExecution(opened.queue, execution);
    // Attempt 1 ended on quota; attempt 2 (claude-code) runs, and the context naming attempt 1 is stored.
    await waitFor(
      'the stored context to name attempt 1',
      async () => ((await contexts.get(execution))?.attempts.length === 1 ? true : undefined),
      30_000,
    );
    await waitFor(
      'attempt 2 to say it carries on',
      async () =>
        (await mirroredLines(mirrored, execution)).some((line) => {
          const record = JSON.parse(line);
          return record.type === 'message' && record.attempt === 2 ? true : undefined;
        }) || undefined,
      30_000,
    );
    await writeScenario([{ say: 'done' }, { end: 'complete' }], 'claude-code');
    await killMidAttempt(doomed, doomedMachine, execution, 2);

    const machine = await newMachine();
    await startDriving('survivor', machine);
    await settled(execution);
    expect(reported).toEqual([]);

    const attempts = await store.listAttempts(execution);
    expect(attempts.map((attempt) => [attempt.number, attempt.harness, attempt.outcome])).toEqual([
      [1, 'codex', 'quota_exhausted'],
      [2, 'claude-code', 'crashed'],
      [3, 'claude-code', 'completed'],
    ]);
    const handedOff = ExecutionContext.parse(JSON.parse(readFileSync(machine.home.contextFile(execution), 'utf8')));
    expect(handedOff.attempts.map((attempt) => [attempt.number, attempt.harness, attempt.outcome])).toEqual([
      [1, 'codex', 'quota_exhausted'],
      [2, 'claude-code', 'crashed'],
      [3, 'claude-code', 'completed'],
    ]);
    expect(handedOff.attempts[0]?.newCommits?.map((commit) => commit.subject)).toEqual(['Add b']);
    // Attempt 3's handoff prompt summarizes attempt 1, which ran on the lost machine.
    const started = records(machine.home.eventsFile(execution)).find(
      (record) => record.type === 'attempt.started' && record.attempt === 3,
    );
    expect(started?.data.handoff).toBe(true);
    expect(String(started?.data.prompt)).toContain('quota');
    expect(await contexts.get(execution)).toEqual(handedOff);
  }, 90_000);
});
