/**
 * The Store conformance suite: every adapter runs it (sqlite.test.ts, postgres.test.ts).
 * `open` returns a new, empty store each call; the suite closes each store it opens.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/core/errors.js';
import {
  type AttemptRecord,
  type ExecutionRecord,
  type QuotaRecord,
  type Store,
  SubmitKeyTakenError,
  type TaskRecord,
} from '../../src/store/store.js';

const TASK: TaskRecord = {
  id: '01jf3k9x7q2m4n6p8r0s2t4v6w-task',
  name: 'fix-login',
  definition: {
    name: 'fix-login',
    prompt: 'Fix the login bug.\nThen run "npm test".',
    chain: [{ harness: 'claude-code', model: 'sonnet', args: [], env: { A: '1' } }, { harness: 'codex' }],
    maxSwitches: 1,
    timeoutMs: 1_800_000,
    switchOn: ['quota_exhausted'],
    nothing: null,
    flags: { dry: false, ratio: 0.25 },
  },
  createdAt: '2025-03-01T10:00:00.000Z',
};

const ID_A = '01jf3k9x7q2m4n6p8r0s2t4v6w';
const ID_B = '01jf3k9x7q2m4n6p8r0s2t4v6x';
const ID_C = '01jf3kaaaa2m4n6p8r0s2t4v6y';

/** An execution with only its required fields. */
function execution(id: string, createdAt = '2025-03-01T10:00:00.000Z'): ExecutionRecord {
  return {
    id,
    taskId: TASK.id,
    taskName: TASK.name,
    repo: '/repos/app',
    baseRef: 'main',
    baseSha: 'a'.repeat(40),
    branch: `harmflow/fix-login-${id}`,
    worktree: `/home/u/.harmflow/worktrees/${id}`,
    runDir: `/home/u/.harmflow/runs/${id}`,
    state: 'queued',
    createdAt,
    deadline: '2025-03-01T10:30:00.000Z',
    attemptCount: 0,
  };
}

/** An execution with every optional field set. */
function fullExecution(id: string): ExecutionRecord {
  return {
    ...execution(id),
    state: 'waiting',
    startedAt: '2025-03-01T10:00:01.000Z',
    endedAt: '2025-03-01T10:20:00.000Z',
    attemptCount: 2,
    currentHarness: 'codex',
    message: 'waiting for a quota reset at 11:00',
    pullRequestUrl: 'https://github.com/acme/app/pull/7',
    turnCount: 2,
  };
}

/** An attempt with only its required fields. */
function attempt(execution: string, number: number): AttemptRecord {
  return {
    execution,
    number,
    harness: 'claude-code',
    simulated: false,
    startedAt: `2025-03-01T10:0${number}:00.000Z`,
  };
}

/** An attempt with every optional field set. */
function fullAttempt(execution: string, number: number): AttemptRecord {
  return {
    ...attempt(execution, number),
    harness: 'codex',
    model: 'gpt-5-codex',
    simulated: true,
    sessionId: '0199a213-81c0-7800-8aa1-bbab2a035a53',
    endedAt: '2025-03-01T10:09:00.000Z',
    outcome: 'quota_exhausted',
    exitCode: 1,
    signal: null,
    message: "You've hit your usage limit.",
    resetsAt: '2025-03-01T15:00:00.000Z',
    inputTokens: 120_345,
    outputTokens: 4_321,
    costUsd: 0.4375,
  };
}

/** A quota record with only its required fields. */
function quota(harness: string, account: string, observedAt = '2025-03-01T10:00:00.000Z'): QuotaRecord {
  return { harness, account, state: 'ok', source: 'attempt.ended', observedAt };
}

/** A quota record with every optional field set. */
function fullQuota(harness: string, account: string, observedAt = '2025-03-01T10:00:00.000Z'): QuotaRecord {
  return {
    ...quota(harness, account, observedAt),
    state: 'exhausted',
    resetsAt: '2025-03-01T15:00:00.000Z',
    utilization: 1,
    source: 'quota.exhausted',
    message: "You've hit your usage limit.",
    execution: ID_A,
    attempt: 2,
  };
}

export function describeStoreConformance(name: string, open: () => Promise<Store>): void {
  describe(`Store conformance: ${name}`, () => {
    let store: Store;

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      await store.close();
    });

    /** Inserts the task and the given executions. */
    async function seed(...executions: ExecutionRecord[]): Promise<void> {
      await store.insertTask(TASK);
      for (const record of executions) await store.insertExecution(record);
    }

    describe('tasks', () => {
      it('returns a task as it was inserted, its definition as JSON', async () => {
        await store.insertTask(TASK);
        expect(await store.getTask(TASK.id)).toStrictEqual(TASK);
      });

      it('returns undefined for an unknown task', async () => {
        expect(await store.getTask('no-such-task')).toBeUndefined();
      });

      it('rejects a task whose id exists', async () => {
        await store.insertTask(TASK);
        await expect(store.insertTask({ ...TASK, name: 'other' })).rejects.toThrow();
        expect((await store.getTask(TASK.id))?.name).toBe(TASK.name);
      });
    });

    describe('executions', () => {
      it('returns an execution with only required fields without the optional keys', async () => {
        await seed(execution(ID_A));
        const read = await store.getExecution(ID_A);
        expect(read).toStrictEqual(execution(ID_A));
        expect(Object.keys(read ?? {}).sort()).toEqual(Object.keys(execution(ID_A)).sort());
      });

      it('returns an execution with every optional field as it was inserted', async () => {
        await seed(fullExecution(ID_A));
        expect(await store.getExecution(ID_A)).toStrictEqual(fullExecution(ID_A));
      });

      it('returns undefined for an unknown execution', async () => {
        await seed(execution(ID_A));
        expect(await store.getExecution(ID_B)).toBeUndefined();
      });

      it('rejects an execution whose id exists, and one whose task does not', async () => {
        await seed(execution(ID_A));
        await expect(store.insertExecution({ ...execution(ID_A), state: 'running' })).rejects.toThrow();
        await expect(store.insertExecution({ ...execution(ID_B), taskId: 'no-such-task' })).rejects.toThrow();
        expect((await store.getExecution(ID_A))?.state).toBe('queued');
        expect(await store.getExecution(ID_B)).toBeUndefined();
      });
    });

    describe('submissions', () => {
      const KEY = { key: 'submit-key-1', requestHash: 'b'.repeat(64) };
      const taskOf = (id: string): TaskRecord => ({ ...TASK, id: `${id}-task` });
      const submitted = (id: string): ExecutionRecord => ({ ...execution(id), taskId: `${id}-task` });

      it('inserts the task and the execution, and records the key with the execution as inserted', async () => {
        await store.insertSubmission({ task: taskOf(ID_A), execution: submitted(ID_A) }, KEY);
        expect(await store.getTask(`${ID_A}-task`)).toStrictEqual(taskOf(ID_A));
        expect(await store.getExecution(ID_A)).toStrictEqual(submitted(ID_A));
        await store.updateExecution(ID_A, { state: 'running', startedAt: '2025-03-01T10:00:01.000Z' });
        const recorded = await store.getSubmitKey(KEY.key);
        expect(recorded).toStrictEqual({ ...KEY, execution: submitted(ID_A), createdAt: recorded?.createdAt });
        expect(Object.keys(recorded?.execution ?? {})).toEqual(Object.keys(submitted(ID_A)));
        expect(Number.isNaN(Date.parse(recorded?.createdAt ?? ''))).toBe(false);
        expect(await store.getSubmitKey('no-such-key')).toBeUndefined();
      });

      it('inserts without a key, recording none', async () => {
        await store.insertSubmission({ task: taskOf(ID_A), execution: submitted(ID_A) });
        expect(await store.getExecution(ID_A)).toStrictEqual(submitted(ID_A));
        expect(await store.getSubmitKey(KEY.key)).toBeUndefined();
      });

      it('refuses a key recorded already with SubmitKeyTakenError, and inserts nothing of it', async () => {
        await store.insertSubmission({ task: taskOf(ID_A), execution: submitted(ID_A) }, KEY);
        const again = store.insertSubmission({ task: taskOf(ID_B), execution: submitted(ID_B) }, KEY);
        await expect(again).rejects.toBeInstanceOf(SubmitKeyTakenError);
        expect(await store.getTask(`${ID_B}-task`)).toBeUndefined();
        expect(await store.getExecution(ID_B)).toBeUndefined();
        expect((await store.getSubmitKey(KEY.key))?.execution.id).toBe(ID_A);
      });

      it('inserts nothing when the execution cannot be inserted', async () => {
        await seed(execution(ID_A));
        const task = { ...TASK, id: 'another-task' };
        const clash = store.insertSubmission({ task, execution: { ...execution(ID_A), taskId: task.id } }, KEY);
        await expect(clash).rejects.toThrow();
        expect(await store.getTask(task.id)).toBeUndefined();
        expect(await store.getSubmitKey(KEY.key)).toBeUndefined();
      });

      it('keeps one of submissions racing with one key; the others are refused', async () => {
        const ids = [ID_A, ID_B, ID_C];
        const results = await Promise.allSettled(
          ids.map((id) => store.insertSubmission({ task: taskOf(id), execution: submitted(id) }, KEY)),
        );
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
        for (const result of results) {
          if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(SubmitKeyTakenError);
        }
        const winner = (await store.getSubmitKey(KEY.key))?.execution.id;
        expect((await store.listExecutions()).map((record) => record.id)).toEqual([winner]);
      });
    });

    describe('updateExecution', () => {
      it('sets the present keys and keeps the absent ones', async () => {
        await seed(execution(ID_A), execution(ID_B));
        await store.updateExecution(ID_A, {
          state: 'running',
          startedAt: '2025-03-01T10:00:02.000Z',
          attemptCount: 1,
          currentHarness: 'claude-code',
        });
        expect(await store.getExecution(ID_A)).toStrictEqual({
          ...execution(ID_A),
          state: 'running',
          startedAt: '2025-03-01T10:00:02.000Z',
          attemptCount: 1,
          currentHarness: 'claude-code',
        });
        expect(await store.getExecution(ID_B)).toStrictEqual(execution(ID_B));
      });

      it('sets every patchable field', async () => {
        await seed(execution(ID_A));
        const patch = {
          baseSha: 'b'.repeat(40),
          branch: 'harmflow/other',
          worktree: '/elsewhere/wt',
          runDir: '/elsewhere/run',
          state: 'succeeded',
          startedAt: '2025-03-01T10:00:02.000Z',
          endedAt: '2025-03-01T10:10:00.000Z',
          deadline: '2025-03-01T11:00:00.000Z',
          attemptCount: 3,
          currentHarness: 'codex',
          message: 'completed',
          pullRequestUrl: 'https://github.com/acme/app/pull/12',
          turnCount: 3,
        } as const;
        await store.updateExecution(ID_A, patch);
        expect(await store.getExecution(ID_A)).toStrictEqual({ ...execution(ID_A), ...patch });
      });

      it('removes an optional field patched with null', async () => {
        await seed(fullExecution(ID_A));
        await store.updateExecution(ID_A, {
          state: 'running',
          message: null,
          endedAt: null,
          pullRequestUrl: null,
          turnCount: null,
        });
        const {
          message: _message,
          endedAt: _endedAt,
          pullRequestUrl: _pullRequestUrl,
          turnCount: _turnCount,
          ...rest
        } = fullExecution(ID_A);
        const read = await store.getExecution(ID_A);
        expect(read).toStrictEqual({ ...rest, state: 'running' });
        expect(read).not.toHaveProperty('message');
      });

      it('leaves the execution as it was for an empty patch', async () => {
        await seed(fullExecution(ID_A));
        await store.updateExecution(ID_A, {});
        expect(await store.getExecution(ID_A)).toStrictEqual(fullExecution(ID_A));
      });

      it('rejects with NotFoundError for an unknown execution', async () => {
        await seed(execution(ID_A));
        await expect(store.updateExecution(ID_B, { state: 'running' })).rejects.toBeInstanceOf(NotFoundError);
        expect(await store.getExecution(ID_B)).toBeUndefined();
      });
    });

    describe('findExecutions', () => {
      beforeEach(async () => {
        await seed(
          execution(ID_A, '2025-03-01T10:00:00.000Z'),
          execution(ID_B, '2025-03-01T11:00:00.000Z'),
          execution(ID_C, '2025-03-01T12:00:00.000Z'),
        );
      });

      const ids = async (prefix: string) => (await store.findExecutions({ prefix })).map((record) => record.id);

      it('returns the executions whose id starts with the prefix, newest first', async () => {
        expect(await ids('01jf3k')).toEqual([ID_C, ID_B, ID_A]);
        expect(await ids('01jf3k9')).toEqual([ID_B, ID_A]);
        expect(await ids(ID_A)).toEqual([ID_A]);
      });

      it('returns whole records', async () => {
        expect(await store.findExecutions({ prefix: '01jf3ka' })).toStrictEqual([
          execution(ID_C, '2025-03-01T12:00:00.000Z'),
        ]);
      });

      it('matches exactly: no match, case, wildcard characters, longer than an id', async () => {
        expect(await ids('zz')).toEqual([]);
        expect(await ids('01JF3K')).toEqual([]);
        expect(await ids('01jf3k9x7q2m4n6p8r0s2t4v6_')).toEqual([]);
        expect(await ids('01jf3k%')).toEqual([]);
        expect(await ids(`${ID_A}0`)).toEqual([]);
      });
    });

    describe('listExecutions', () => {
      beforeEach(async () => {
        await seed(
          { ...execution(ID_B, '2025-03-01T11:00:00.000Z'), state: 'succeeded' },
          { ...execution(ID_A, '2025-03-01T11:00:00.000Z'), state: 'running' },
          { ...execution(ID_C, '2025-03-01T09:00:00.000Z'), state: 'waiting' },
        );
      });

      const ids = (records: readonly ExecutionRecord[]) => records.map((record) => record.id);

      it('lists every execution newest first, ties by id, newest first', async () => {
        expect(ids(await store.listExecutions())).toEqual([ID_B, ID_A, ID_C]);
        expect(ids(await store.listExecutions({}))).toEqual([ID_B, ID_A, ID_C]);
      });

      it('filters by state; an empty list of states matches none', async () => {
        expect(ids(await store.listExecutions({ states: ['running', 'waiting'] }))).toEqual([ID_A, ID_C]);
        expect(ids(await store.listExecutions({ states: ['canceled'] }))).toEqual([]);
        expect(ids(await store.listExecutions({ states: [] }))).toEqual([]);
      });

      it('returns at most limit executions, after filtering', async () => {
        expect(ids(await store.listExecutions({ limit: 2 }))).toEqual([ID_B, ID_A]);
        expect(ids(await store.listExecutions({ limit: 1, states: ['running', 'waiting'] }))).toEqual([ID_A]);
        expect(ids(await store.listExecutions({ limit: 0 }))).toEqual([]);
      });

      it('returns whole records', async () => {
        expect(await store.listExecutions({ states: ['waiting'] })).toStrictEqual([
          { ...execution(ID_C, '2025-03-01T09:00:00.000Z'), state: 'waiting' },
        ]);
      });
    });

    describe('attempts', () => {
      it('returns an attempt with only required fields without the optional keys', async () => {
        await seed(execution(ID_A));
        await store.insertAttempt(attempt(ID_A, 1));
        const [read] = await store.listAttempts(ID_A);
        expect(read).toStrictEqual(attempt(ID_A, 1));
        expect(Object.keys(read ?? {}).sort()).toEqual(Object.keys(attempt(ID_A, 1)).sort());
      });

      it('returns an attempt with every optional field as it was inserted', async () => {
        await seed(execution(ID_A));
        await store.insertAttempt(fullAttempt(ID_A, 1));
        expect(await store.listAttempts(ID_A)).toStrictEqual([fullAttempt(ID_A, 1)]);
      });

      it('keeps a null exitCode and a null signal apart from absent ones', async () => {
        await seed(execution(ID_A));
        await store.insertAttempt({ ...attempt(ID_A, 1), exitCode: null, signal: 'SIGKILL' });
        await store.insertAttempt({ ...attempt(ID_A, 2), exitCode: 0, signal: null });
        await store.insertAttempt({ ...attempt(ID_A, 3), exitCode: null });
        expect(await store.listAttempts(ID_A)).toStrictEqual([
          { ...attempt(ID_A, 1), exitCode: null, signal: 'SIGKILL' },
          { ...attempt(ID_A, 2), exitCode: 0, signal: null },
          { ...attempt(ID_A, 3), exitCode: null },
        ]);
      });

      it('lists an execution’s attempts by number, whatever the insertion order', async () => {
        await seed(execution(ID_A), execution(ID_B));
        for (const number of [3, 1, 2]) await store.insertAttempt(attempt(ID_A, number));
        await store.insertAttempt(attempt(ID_B, 1));
        expect((await store.listAttempts(ID_A)).map((read) => read.number)).toEqual([1, 2, 3]);
        expect(await store.listAttempts(ID_B)).toStrictEqual([attempt(ID_B, 1)]);
        expect(await store.listAttempts(ID_C)).toEqual([]);
      });

      it('rejects an attempt whose number exists, and one whose execution does not', async () => {
        await seed(execution(ID_A));
        await store.insertAttempt(attempt(ID_A, 1));
        await expect(store.insertAttempt({ ...attempt(ID_A, 1), harness: 'codex' })).rejects.toThrow();
        await expect(store.insertAttempt(attempt(ID_B, 1))).rejects.toThrow();
        expect(await store.listAttempts(ID_A)).toStrictEqual([attempt(ID_A, 1)]);
      });
    });

    describe('updateAttempt', () => {
      beforeEach(async () => {
        await seed(execution(ID_A));
        await store.insertAttempt(attempt(ID_A, 1));
        await store.insertAttempt(attempt(ID_A, 2));
      });

      it('sets the present keys and keeps the absent ones, on that attempt only', async () => {
        await store.updateAttempt(ID_A, 1, { sessionId: 's-1', model: 'opus' });
        await store.updateAttempt(ID_A, 1, { endedAt: '2025-03-01T10:05:00.000Z', outcome: 'completed', exitCode: 0 });
        expect(await store.listAttempts(ID_A)).toStrictEqual([
          {
            ...attempt(ID_A, 1),
            sessionId: 's-1',
            model: 'opus',
            endedAt: '2025-03-01T10:05:00.000Z',
            outcome: 'completed',
            exitCode: 0,
          },
          attempt(ID_A, 2),
        ]);
      });

      it('sets every patchable field', async () => {
        const {
          execution: _execution,
          number: _number,
          harness: _harness,
          simulated: _simulated,
          startedAt: _startedAt,
          ...patch
        } = fullAttempt(ID_A, 1);
        await store.updateAttempt(ID_A, 1, patch);
        expect((await store.listAttempts(ID_A))[0]).toStrictEqual({ ...attempt(ID_A, 1), ...patch });
      });

      it('sets exitCode and signal to null, and removes other fields patched with null', async () => {
        await store.updateAttempt(ID_A, 2, { message: 'interrupted', exitCode: 3, signal: 'SIGTERM', costUsd: 0.5 });
        await store.updateAttempt(ID_A, 2, { message: null, exitCode: null, signal: null, costUsd: null });
        const read = (await store.listAttempts(ID_A))[1];
        expect(read).toStrictEqual({ ...attempt(ID_A, 2), exitCode: null, signal: null });
        expect(read).not.toHaveProperty('message');
        expect(read).not.toHaveProperty('costUsd');
      });

      it('rejects with NotFoundError for an unknown attempt', async () => {
        await expect(store.updateAttempt(ID_A, 3, { outcome: 'failed' })).rejects.toBeInstanceOf(NotFoundError);
        await expect(store.updateAttempt(ID_B, 1, { outcome: 'failed' })).rejects.toBeInstanceOf(NotFoundError);
        expect(await store.listAttempts(ID_A)).toStrictEqual([attempt(ID_A, 1), attempt(ID_A, 2)]);
      });
    });

    describe('quotas', () => {
      it('lists none on a new store', async () => {
        expect(await store.listQuotas()).toEqual([]);
      });

      it('returns a record with every optional field as it was put', async () => {
        await store.putQuota(fullQuota('codex', ''));
        expect(await store.listQuotas()).toStrictEqual([fullQuota('codex', '')]);
      });

      it('returns a record with only required fields without the optional keys', async () => {
        await store.putQuota({ ...quota('codex', ''), state: 'warning', utilization: 0.85 });
        await store.putQuota(quota('gemini', ''));
        const read = await store.listQuotas();
        expect(read).toStrictEqual([
          { ...quota('codex', ''), state: 'warning', utilization: 0.85 },
          quota('gemini', ''),
        ]);
        expect(Object.keys(read[1] ?? {}).sort()).toEqual(Object.keys(quota('gemini', '')).sort());
      });

      it('replaces the record of the same harness and account with a newer observation, whole', async () => {
        await store.putQuota(fullQuota('codex', '', '2025-03-01T10:00:00.000Z'));
        await store.putQuota(quota('codex', '', '2025-03-01T15:00:01.000Z'));
        expect(await store.listQuotas()).toStrictEqual([quota('codex', '', '2025-03-01T15:00:01.000Z')]);
      });

      it('replaces it with an observation of the same time: the last write wins', async () => {
        await store.putQuota(quota('codex', ''));
        await store.putQuota(fullQuota('codex', ''));
        expect(await store.listQuotas()).toStrictEqual([fullQuota('codex', '')]);
      });

      it('keeps the record when the one put was observed earlier, whichever writes last', async () => {
        await store.putQuota(fullQuota('codex', '', '2025-03-01T10:00:02.000Z'));
        await store.putQuota(quota('codex', '', '2025-03-01T10:00:01.000Z'));
        expect(await store.listQuotas()).toStrictEqual([fullQuota('codex', '', '2025-03-01T10:00:02.000Z')]);
      });

      it('keeps one record per harness and account, ordered by harness, then account', async () => {
        await store.putQuota(quota('codex', ''));
        await store.putQuota(fullQuota('claude-code', 'work'));
        await store.putQuota(quota('claude-code', ''));
        expect(await store.listQuotas()).toStrictEqual([
          quota('claude-code', ''),
          fullQuota('claude-code', 'work'),
          quota('codex', ''),
        ]);
      });

      it('rejects calls after close', async () => {
        await store.close();
        await expect(store.putQuota(quota('codex', ''))).rejects.toThrow();
        await expect(store.listQuotas()).rejects.toThrow();
      });
    });

    describe('close', () => {
      it('is idempotent, and calls after it reject', async () => {
        await store.close();
        await store.close();
        await expect(store.getExecution(ID_A)).rejects.toThrow();
        await expect(store.insertTask(TASK)).rejects.toThrow();
      });
    });
  });
}
