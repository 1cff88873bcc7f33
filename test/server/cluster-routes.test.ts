/**
 * The API of an API node in cluster mode: `createApp` with ClusterExecutions over a real PostgreSQL
 * schema (store, inboxes, leases, event mirror) and a BullMQ dispatch queue under a Redis prefix of
 * the test's own. No worker runs: the tests look at what a worker would find.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterAdmission } from '../../src/cluster/cluster-admission.js';
import { ClusterExecutions } from '../../src/cluster/cluster-executions.js';
import { type ClusterHold, openClusterHold } from '../../src/cluster/cluster-hold.js';
import { openDispatchQueue } from '../../src/cluster/dispatch.js';
import { type ExecutionInbox, openExecutionInbox } from '../../src/cluster/inbox.js';
import { type ExecutionLeases, openExecutionLeases } from '../../src/cluster/lease.js';
import { leaseOwners } from '../../src/cluster/lease-owners.js';
import { ServiceUnavailableError } from '../../src/core/errors.js';
import { harmflowHome } from '../../src/core/home.js';
import { newExecutionId } from '../../src/core/ids.js';
import type { ExecutionState } from '../../src/core/outcome.js';
import { taskFromStore } from '../../src/core/task.js';
import { type EventMirror, openEventMirror } from '../../src/events/mirror/event-mirror.js';
import { type MirrorLookup, openMirrorLookup } from '../../src/events/mirror/latest-record.js';
import { createApp } from '../../src/server/app.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { Store } from '../../src/store/store.js';
import { type Cluster, clusters } from '../cluster/fixture.js';
import { REDIS_AVAILABLE, TEST_REDIS } from '../cluster/redis.js';
import { CLUSTER_IDENTITY, clusterTask, newRemote } from '../cluster/workspace-fixture.js';
import { writeLog } from '../events/mirror/logs.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL } from '../store/postgres.js';
import { executionRecord, PORT, request, TOKEN } from './fixture.js';

/** A link that gives the git identity a cluster requires. */
const CODEX = { harness: 'codex', env: CLUSTER_IDENTITY };

const context = (execution: string) => ({
  version: 2,
  execution,
  task: 'fix-login',
  branch: `harmflow/fix-login-${execution}`,
  baseRef: 'main',
  baseSha: 'a'.repeat(40),
  worktree: '/w',
  writtenAt: '2025-03-01T10:00:00.000Z',
  attempts: [],
});

describe.runIf(POSTGRES_AVAILABLE && REDIS_AVAILABLE)('the API in cluster mode', () => {
  const testCluster = clusters();
  let cluster: Cluster;
  let store: Store;
  let inbox: ExecutionInbox;
  let mirror: EventMirror;
  let lookup: MirrorLookup;
  let hold: ClusterHold;
  let leases: ExecutionLeases;
  let dir: string;
  let app: Hono;
  const contexts = new Map<string, unknown>();
  const dispatchErrors: Error[] = [];

  beforeEach(async () => {
    cluster = await testCluster.open();
    const schema = cluster.schema;
    store = await openPostgresStore(TEST_POSTGRES_URL, { schema });
    inbox = await openExecutionInbox(TEST_POSTGRES_URL, { schema });
    mirror = await openEventMirror(TEST_POSTGRES_URL, { schema });
    lookup = await openMirrorLookup(TEST_POSTGRES_URL, { schema });
    hold = await openClusterHold(TEST_POSTGRES_URL, { schema });
    leases = await openExecutionLeases(TEST_POSTGRES_URL, { schema });
    await store.insertTask({
      id: 'task-1',
      name: 'fix-login',
      definition: { prompt: 'hi' },
      createdAt: '2025-03-01T10:00:00.000Z',
    });
    dir = mkdtempSync(join(tmpdir(), 'harmflow-cluster-api-'));
    contexts.clear();
    dispatchErrors.length = 0;
    app = createApp({
      home: harmflowHome(join(dir, 'home')),
      store,
      registry: new ClusterExecutions({
        store,
        inbox,
        queue: cluster.queue,
        onDispatchError: (error) => dispatchErrors.push(error),
      }),
      admission: new ClusterAdmission(cluster.queue, hold),
      stop: () => {},
      token: TOKEN,
      port: PORT,
      cluster: {
        readContext: async (execution) => contexts.get(execution),
        latestWait: async (execution) => {
          const record = await lookup.latest(execution, 'quota.waiting');
          return record === undefined ? undefined : { ...record.data, since: record.ts };
        },
        owners: async (executions) => leaseOwners(await leases.leaseHolders(executions)),
      },
    });
  });

  afterEach(async () => {
    await Promise.all([inbox.close(), mirror.close(), lookup.close(), hold.close(), leases.close(), store.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  function post(path: string, body: unknown = {}): Promise<Response> {
    return request(app, path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  async function expectError(response: Response, status: number, name: string, message?: RegExp): Promise<void> {
    const body = (await response.json()) as { error: { name: string; message: string } };
    expect({ status: response.status, name: body.error.name }).toEqual({ status, name });
    if (message) expect(body.error.message).toMatch(message);
  }

  /** An execution in `state`, inserted as a submit would have made it (its t1 enqueued). */
  async function execution(state: ExecutionState): Promise<string> {
    const id = newExecutionId();
    await store.insertExecution(executionRecord(id, state));
    await inbox.enqueueTurn(id, 'hi');
    return id;
  }

  async function turns(id: string): Promise<{ number: number; text: string; state: string }[]> {
    const { rows } = await testCluster.admin.query(
      `SELECT number, text, state FROM ${cluster.schema}.execution_turns WHERE execution = $1 ORDER BY number`,
      [id],
    );
    return rows;
  }

  async function dispatched(): Promise<string[]> {
    const jobs = await cluster.queue.getWaiting();
    return jobs.map((job) => job.data.execution).sort();
  }

  /** The commands a worker holding `id` would take now. */
  async function commands(id: string): Promise<unknown[]> {
    const token = await cluster.leases.acquireLease(id, 'w1', 60_000);
    if (token === undefined) throw new Error(`could not lease ${id}`);
    return (await inbox.takeCommands(id, token)).map((taken) => taken.command);
  }

  it('submits: 201, the execution queued with no workspace, its prompt as t1, a job in the queue', {
    timeout: 20_000,
  }, async () => {
    const { remote, main } = await newRemote();
    const response = await post('/api/executions', {
      task: { name: 'fix', repo: `file://${remote}`, baseRef: 'main', prompt: 'Fix it.', harness: CODEX },
    });
    expect(response.status).toBe(201);
    const { execution } = (await response.json()) as { execution: { id: string; state: string; baseSha: string } };
    expect(execution).toMatchObject({ state: 'queued', repo: `file://${remote}`, baseSha: main, worktree: '' });
    expect(await store.getExecution(execution.id)).toMatchObject({ state: 'queued' });
    expect(await turns(execution.id)).toEqual([{ number: 1, text: 'Fix it.', state: 'queued' }]);
    expect(await dispatched()).toEqual([execution.id]);
    expect(await (await request(app, '/api/admission')).json()).toEqual({
      mode: 'cluster',
      held: false,
      reasons: [],
      queue: { waiting: 1, active: 0, delayed: 0 },
    });
  });

  it('refuses (400) a task whose links do not all give a git identity in their env, naming them, and creates nothing', async () => {
    const { remote } = await newRemote();
    const response = await post('/api/executions', {
      task: {
        name: 'fix',
        repo: `file://${remote}`,
        baseRef: 'main',
        prompt: 'Fix it.',
        harness: CODEX,
        fallbacks: ['claude-code', { harness: 'codex', env: { GIT_AUTHOR_NAME: 'Only A Name' } }],
      },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        name: 'TaskFileError',
        message:
          'no git identity for the agent\'s commits: on a cluster each harness\'s env must give GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL (GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL default to them), and claude-code (fallback 1) and codex (fallback 2) do not: add them, or submit with `harmflow submit`, which adds the identity your git config gives (git config --global user.name "Your Name" && git config --global user.email "you@example.com")',
      },
    });
    expect(await store.listExecutions()).toEqual([]);
    expect(await dispatched()).toEqual([]);
  });

  it("keeps each link's identity with the task, its committer defaulting to its author", {
    timeout: 20_000,
  }, async () => {
    const { remote } = await newRemote();
    const response = await post('/api/executions', {
      task: {
        name: 'fix',
        repo: `file://${remote}`,
        baseRef: 'main',
        prompt: 'Fix it.',
        harness: CODEX,
        fallbacks: [
          {
            harness: 'claude-code',
            env: {
              GIT_AUTHOR_NAME: 'B',
              GIT_AUTHOR_EMAIL: 'b@example.com',
              GIT_COMMITTER_NAME: 'CI',
              GIT_COMMITTER_EMAIL: 'ci@example.com',
            },
          },
        ],
      },
    });
    expect(response.status).toBe(201);
    const { execution } = (await response.json()) as { execution: { taskId: string } };
    const task = taskFromStore((await store.getTask(execution.taskId))?.definition);
    expect(task.chain.map((link) => link.env)).toEqual([
      { ...CLUSTER_IDENTITY, GIT_COMMITTER_NAME: 'Cluster Test', GIT_COMMITTER_EMAIL: 'cluster@harmflow.invalid' },
      {
        GIT_AUTHOR_NAME: 'B',
        GIT_AUTHOR_EMAIL: 'b@example.com',
        GIT_COMMITTER_NAME: 'CI',
        GIT_COMMITTER_EMAIL: 'ci@example.com',
      },
    ]);
    // A link added by a switch by hand that copies no link of the chain commits as the primary one.
    expect(task.gitIdentity).toEqual({
      authorName: 'Cluster Test',
      authorEmail: 'cluster@harmflow.invalid',
      committerName: 'Cluster Test',
      committerEmail: 'cluster@harmflow.invalid',
    });
  });

  it('refuses a task whose repository cannot be read (400) or is a relative path, and creates nothing', async () => {
    await expectError(
      await post('/api/executions', {
        task: { name: 'fix', repo: '/no/such/repository', baseRef: 'main', prompt: 'Fix it.', harness: CODEX },
      }),
      400,
      'RepositoryError',
      /cannot read the refs/,
    );
    await expectError(
      await post('/api/executions', {
        task: { name: 'fix', repo: 'relative/repo', baseRef: 'main', prompt: 'Fix it.', harness: 'codex' },
      }),
      400,
      'TaskFileError',
      /must be an absolute path/,
    );
    expect(await store.listExecutions()).toEqual([]);
    expect(await dispatched()).toEqual([]);
  });

  it('queues a message as the next turn (202) and dispatches; refuses one to an ended execution (409)', async () => {
    const id = await execution('running');
    const response = await post(`/api/executions/${id}/messages`, { text: 'also this' });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ turn: { id: 't2', execution: id, queued: 2 } });
    expect((await turns(id)).map((turn) => turn.text)).toEqual(['hi', 'also this']);
    expect(await dispatched()).toEqual([id]);

    const failed = await execution('failed');
    await expectError(
      await post(`/api/executions/${failed}/messages`, { text: 'x' }),
      409,
      'ConflictError',
      /ended \(failed\)/,
    );
    await expectError(await post(`/api/executions/${newExecutionId()}/messages`, { text: 'x' }), 404, 'NotFoundError');
  });

  it('reopens a succeeded execution while its queue is open, and refuses once its worker closed it', async () => {
    const id = await execution('succeeded');
    expect((await post(`/api/executions/${id}/messages`, { text: 'one more' })).status).toBe(202);
    expect((await turns(id)).map((turn) => turn.number)).toEqual([1, 2]);

    const closed = await execution('succeeded');
    const token = await cluster.leases.acquireLease(closed, 'w1', 60_000);
    if (token === undefined) throw new Error('no lease');
    const source = await inbox.openTurnSource(closed, token);
    await source.end();
    await source.stop();
    await expectError(
      await post(`/api/executions/${closed}/messages`, { text: 'late' }),
      409,
      'ConflictError',
      /ended/,
    );
  });

  it('cancels (202): a cancel command in the inbox and a dispatch; 409 once ended, 404 when unknown', async () => {
    const id = await execution('running');
    const response = await post(`/api/executions/${id}/cancel`);
    expect(response.status).toBe(202);
    expect(((await response.json()) as { execution: { id: string } }).execution.id).toBe(id);
    expect(await dispatched()).toEqual([id]);
    expect(await commands(id)).toEqual([{ kind: 'cancel' }]);

    await expectError(
      await post(`/api/executions/${await execution('canceled')}/cancel`),
      409,
      'ConflictError',
      /has ended/,
    );
    await expectError(await post(`/api/executions/${newExecutionId()}/cancel`), 404, 'NotFoundError');
  });

  it('resumes a waiting execution (202, a resume command); 409 when it is not waiting', async () => {
    const waiting = await execution('waiting');
    expect((await post(`/api/executions/${waiting}/resume`)).status).toBe(202);
    expect(await commands(waiting)).toEqual([{ kind: 'resume' }]);
    await expectError(
      await post(`/api/executions/${await execution('running')}/resume`),
      409,
      'ConflictError',
      /not waiting for a quota reset/,
    );
  });

  it('switches a running execution (202, a switch command); 409 unless running or waiting; 400 for a bad body', async () => {
    const id = await execution('running');
    const response = await post(`/api/executions/${id}/switch`, { to: 'gemini', reason: 'out of credit' });
    expect(response.status).toBe(202);
    expect(await commands(id)).toEqual([{ kind: 'switch', harness: 'gemini', by: 'api', reason: 'out of credit' }]);
    expect(await dispatched()).toEqual([id]);
    await expectError(
      await post(`/api/executions/${await execution('queued')}/switch`, { to: 'codex' }),
      409,
      'ConflictError',
      /only a running or waiting execution can switch/,
    );
    await expectError(await post(`/api/executions/${id}/switch`, { to: 'nope' }), 400, 'UsageError');
  });

  it('reads the context from the given reader and the waits from the mirror', async () => {
    const id = await execution('waiting');
    await expectError(await request(app, `/api/executions/${id}/context`), 404, 'NotFoundError', /no context.json yet/);
    contexts.set(id, context(id));
    expect(await (await request(app, `/api/executions/${id}/context`)).json()).toEqual(context(id));

    const wait = { harness: 'codex', until: '2030-01-01T00:00:00.000Z', known: true, waitMs: 60_000 };
    const lines = writeLog(join(dir, id, 'events.jsonl'), id, [
      { source: 'executor', type: 'quota.waiting', data: { ...wait, waitMs: 1 } },
      { source: 'executor', type: 'message.queued', data: { turn: 't2', text: '"quota.waiting"', queued: 1 } },
      { source: 'executor', type: 'quota.waiting', data: wait },
      { source: 'executor', type: 'message.queued', data: { turn: 't3', text: '"quota.waiting"', queued: 1 } },
    ]);
    for (const [position, line] of lines.entries()) await mirror.append(id, position, line);
    const listed = (await (await request(app, '/api/executions?include=waits,disk,owners')).json()) as {
      waits: Record<string, unknown>;
      disk: Record<string, unknown>;
      owners: Record<string, unknown>;
    };
    expect(listed.waits).toEqual({ [id]: { ...wait, since: JSON.parse(lines[2] as string).ts } });
    expect(listed.disk).toEqual({});
    // The owner files are in the workers' state directories; the node has the leases, and none is held yet.
    expect(listed.owners).toEqual({});
  });

  it('names the worker holding each execution lease as its owner: a default name as its pid and host', async () => {
    const [byDefault, byName, released] = [
      await execution('running'),
      await execution('running'),
      await execution('queued'),
    ];
    expect(await leases.acquireLease(byDefault, 'build-1:4242', 60_000)).toBe(1);
    expect(await leases.acquireLease(byName, 'gpu-worker', 60_000)).toBe(1);
    expect(await leases.acquireLease(released, 'build-2:77', 60_000)).toBe(1);
    expect(await leases.releaseLease(released, 'build-2:77', 1)).toBe(true);
    const listed = (await (await request(app, '/api/executions?include=owners')).json()) as {
      owners: Record<string, unknown>;
    };
    expect(listed.owners).toEqual({
      [byDefault]: { pid: 4242, host: 'build-1', worker: 'build-1:4242', alive: true },
      [byName]: { worker: 'gpu-worker', alive: true },
    });
  });

  it("maps an execution's sessions from its rows and the context the reader gives", async () => {
    const id = await execution('succeeded');
    await store.insertAttempt({
      execution: id,
      number: 1,
      harness: 'codex',
      simulated: true,
      startedAt: '2025-03-01T10:00:01.000Z',
    });
    await store.updateAttempt(id, 1, {
      endedAt: '2025-03-01T10:01:00.000Z',
      outcome: 'completed',
      sessionId: 'thread-1',
    });
    const routing = async () =>
      ((await (await request(app, `/api/executions/${id}`)).json()) as { routing: unknown }).routing;
    // No context.json in PostgreSQL yet: the ended attempt is read from its row, without its turns.
    expect(await routing()).toEqual({
      execution: id,
      sessions: [{ harness: 'codex', sessionId: 'thread-1', attempts: [1] }],
      nextFollowUp: { kind: 'resume', harness: 'codex', sessionId: 'thread-1', attempt: 1 },
    });
    const attempt = {
      number: 1,
      harness: 'codex',
      outcome: 'completed',
      startedAt: '2025-03-01T10:00:01.000Z',
      endedAt: '2025-03-01T10:01:00.000Z',
      sessionId: 'thread-1',
      turns: ['t1', 't2'],
      workItems: [],
    };
    contexts.set(id, { ...context(id), attempts: [attempt] });
    expect(await routing()).toMatchObject({
      sessions: [{ harness: 'codex', sessionId: 'thread-1', attempts: [1], turns: ['t1', 't2'] }],
    });
  });

  it('answers a stop with nothing suspended: an API node drives no execution', async () => {
    await execution('running');
    const stopped = await post('/api/stop');
    expect(stopped.status).toBe(202);
    expect(await stopped.json()).toEqual({ stopping: true, suspending: { running: 0, waiting: 0, queued: 0 } });
  });

  it("answers 409 for what is in a worker's worktree, naming where the changes are", async () => {
    const id = await execution('running');
    await expectError(
      await request(app, `/api/executions/${id}/changes`),
      409,
      'ConflictError',
      new RegExp(`branch harmflow/fix-login-${id}.*refs/harmflow/checkpoints/${id}`),
    );
    await expectError(await request(app, `/api/executions/${id}/disk`), 409, 'ConflictError', /on the worker/);
  });

  it('holds and releases the whole cluster, as every API node then reports it; refuses a hold without a reason', async () => {
    const held = await post('/api/admission/hold', { reason: 'database upgrade' });
    expect(held.status).toBe(200);
    expect(await held.json()).toMatchObject({
      mode: 'cluster',
      held: true,
      reasons: ['the cluster is held by an operator: database upgrade'],
    });
    // The hold is PostgreSQL's, not this node's: another handle on the schema sees it.
    const other = await openClusterHold(TEST_POSTGRES_URL, { schema: cluster.schema });
    try {
      expect(await other.read()).toMatchObject({ reason: 'database upgrade', since: expect.any(String) });
      const released = await post('/api/admission/release');
      expect(await released.json()).toMatchObject({ held: false, reasons: [] });
      expect(await other.read()).toBeUndefined();
    } finally {
      await other.close();
    }
    await expectError(await post('/api/admission/hold', { reason: ' ' }), 400, 'UsageError', /reason/);
  });

  it('accepts a submit, a message and a cancel whose dispatch fails once they are recorded, reporting it; the sweep dispatches them', {
    timeout: 20_000,
  }, async () => {
    const { remote } = await newRemote();
    const closed = openDispatchQueue({ connection: TEST_REDIS, prefix: cluster.prefix, onError: () => {} });
    await closed.close();
    const reported: Error[] = [];
    const executions = new ClusterExecutions({
      store,
      inbox,
      queue: closed,
      onDispatchError: (error) => reported.push(error),
    });
    const created = await executions.submit(clusterTask(remote));
    expect(created.state).toBe('queued');
    expect(await turns(created.id)).toEqual([{ number: 1, text: 'fix it', state: 'queued' }]);
    expect(await executions.send(created.id, 'and the docs')).toEqual({ turn: 't2', queued: 2 });
    await executions.cancel(created.id);
    expect(reported.map((error) => error.message)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^the submit of execution ${created.id} is recorded, but the execution could not be dispatched .*; the workers' sweep dispatches it$`,
        ),
      ),
      expect.stringMatching(/^message t2 of execution .* is recorded/),
      expect.stringMatching(/^the cancel of execution .* is recorded/),
    ]);
    expect(await dispatched()).toEqual([]);
  });

  it('marks a submitted execution failed (503) when its first turn cannot be enqueued, leaving none queued', async () => {
    const { remote } = await newRemote();
    const closedInbox = await openExecutionInbox(TEST_POSTGRES_URL, { schema: cluster.schema });
    await closedInbox.close();
    const executions = new ClusterExecutions({
      store,
      inbox: closedInbox,
      queue: cluster.queue,
      onDispatchError: () => {},
    });
    const error = await executions.submit(clusterTask(remote)).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as Error).message).toMatch(/failed: it could not be queued: .*; submit the task again/);
    const [record] = await store.listExecutions();
    expect(record).toMatchObject({ state: 'failed', message: expect.stringMatching(/could not be queued/) });
    expect(record?.endedAt).toBeDefined();
    expect(await dispatched()).toEqual([]);
  });
});
