/**
 * `Idempotency-Key` on an API node in cluster mode (ClusterExecutions over a real PostgreSQL schema
 * and a BullMQ queue of the test's own): a submit or a message sent again with its key makes one
 * execution, one turn, and gets the first answer; a submit cut off before its first turn is
 * finished by its retry; one whose first turn failed answers its retry the same 503.
 */
import type { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterAdmission } from '../../src/cluster/cluster-admission.js';
import { ClusterExecutions } from '../../src/cluster/cluster-executions.js';
import { type ClusterHold, openClusterHold } from '../../src/cluster/cluster-hold.js';
import { createClusterExecution } from '../../src/cluster/create-records.js';
import { type ExecutionInbox, openExecutionInbox } from '../../src/cluster/inbox.js';
import { ServiceUnavailableError } from '../../src/core/errors.js';
import { harmflowHome } from '../../src/core/home.js';
import { createApp } from '../../src/server/app.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { Store } from '../../src/store/store.js';
import { type Cluster, clusters } from '../cluster/fixture.js';
import { REDIS_AVAILABLE } from '../cluster/redis.js';
import { CLUSTER_IDENTITY, clusterTask, newRemote } from '../cluster/workspace-fixture.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL } from '../store/postgres.js';
import { PORT, request, TOKEN } from './fixture.js';

describe.runIf(POSTGRES_AVAILABLE && REDIS_AVAILABLE)('Idempotency-Key in cluster mode', () => {
  const testCluster = clusters();
  let cluster: Cluster;
  let store: Store;
  let inbox: ExecutionInbox;
  let hold: ClusterHold;
  let executions: ClusterExecutions;
  let app: Hono;

  beforeEach(async () => {
    cluster = await testCluster.open();
    store = await openPostgresStore(TEST_POSTGRES_URL, { schema: cluster.schema });
    inbox = await openExecutionInbox(TEST_POSTGRES_URL, { schema: cluster.schema });
    hold = await openClusterHold(TEST_POSTGRES_URL, { schema: cluster.schema });
    executions = new ClusterExecutions({ store, inbox, queue: cluster.queue, onDispatchError: () => {} });
    app = createApp({
      home: harmflowHome('/nonexistent/harmflow-home'),
      store,
      registry: executions,
      admission: new ClusterAdmission(cluster.queue, hold),
      stop: () => {},
      token: TOKEN,
      port: PORT,
      cluster: { readContext: async () => undefined, latestWait: async () => undefined, owners: async () => ({}) },
    });
  });
  afterEach(async () => {
    await Promise.all([inbox.close(), hold.close(), store.close()]);
  });

  async function post(path: string, body: unknown, key: string): Promise<{ status: number; body: string }> {
    const response = await request(app, path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.text() };
  }

  async function turns(id: string): Promise<string[]> {
    const { rows } = await testCluster.admin.query(
      `SELECT text FROM ${cluster.schema}.execution_turns WHERE execution = $1 ORDER BY number`,
      [id],
    );
    return rows.map((row) => row.text);
  }

  const taskBody = (remote: string, prompt = 'Fix it.') => ({
    task: {
      name: 'fix',
      repo: `file://${remote}`,
      baseRef: 'main',
      prompt,
      harness: { harness: 'codex', env: CLUSTER_IDENTITY },
    },
  });

  it('submits once: a retry and racing submits with one key answer the first execution', {
    timeout: 20_000,
  }, async () => {
    const { remote } = await newRemote();
    const first = await post('/api/executions', taskBody(remote), 'submit-1');
    expect(first.status).toBe(201);
    expect(await post('/api/executions', taskBody(remote), 'submit-1')).toEqual(first);
    const racing = await Promise.all(
      Array.from({ length: 4 }, () => post('/api/executions', taskBody(remote), 'submit-2')),
    );
    expect(racing.map((answer) => answer.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(racing.map((answer) => answer.body)).size).toBe(1);
    const listed = await store.listExecutions();
    expect(listed).toHaveLength(2);
    for (const record of listed) expect(await turns(record.id)).toEqual(['Fix it.']);
    expect((await post('/api/executions', taskBody(remote, 'Other.'), 'submit-1')).status).toBe(422);
  });

  it('finishes a submit cut off between its rows and its first turn', { timeout: 20_000 }, async () => {
    const { remote } = await newRemote();
    const key = { key: 'cut-off', requestHash: 'hash-of-the-body' };
    const task = clusterTask(`file://${remote}`);
    const rows = await createClusterExecution(task, store, key);
    expect(await turns(rows.id)).toEqual([]);
    expect(await executions.submit(task, { idempotency: key })).toStrictEqual(rows);
    expect(await turns(rows.id)).toEqual(['fix it']);
    expect((await cluster.queue.getWaiting()).map((job) => job.data.execution)).toEqual([rows.id]);
  });

  it('answers the retry of a submit whose first turn failed with the same 503', { timeout: 20_000 }, async () => {
    const { remote } = await newRemote();
    const key = { key: 'failed-first', requestHash: 'hash-of-the-body' };
    const task = clusterTask(`file://${remote}`);
    const closedInbox = await openExecutionInbox(TEST_POSTGRES_URL, { schema: cluster.schema });
    await closedInbox.close();
    const failing = new ClusterExecutions({
      store,
      inbox: closedInbox,
      queue: cluster.queue,
      onDispatchError: () => {},
    });
    const first = await failing.submit(task, { idempotency: key }).catch((error: Error) => error);
    const retry = await executions.submit(task, { idempotency: key }).catch((error: Error) => error);
    expect(first).toBeInstanceOf(ServiceUnavailableError);
    expect(retry).toBeInstanceOf(ServiceUnavailableError);
    expect((retry as Error).message).toBe((first as Error).message);
    expect((first as Error).message).toMatch(/failed: it could not be queued: .*; submit the task again$/);
    const [record] = await store.listExecutions();
    expect(record?.state).toBe('failed');
    expect(await turns(record?.id ?? '')).toEqual([]);
  });

  it('queues a message once, and answers its retry after the execution ended', { timeout: 20_000 }, async () => {
    const { remote } = await newRemote();
    const created = await executions.submit(clusterTask(`file://${remote}`));
    const path = `/api/executions/${created.id}/messages`;
    const first = await post(path, { text: 'and the docs' }, 'message-1');
    expect(first).toEqual({
      status: 202,
      body: JSON.stringify({ turn: { id: 't2', execution: created.id, queued: 2 } }),
    });
    expect(await post(path, { text: 'and the docs' }, 'message-1')).toEqual(first);
    await store.updateExecution(created.id, { state: 'failed' });
    expect(await post(path, { text: 'and the docs' }, 'message-1')).toEqual(first);
    expect((await post(path, { text: 'and the docs' }, 'message-2')).status).toBe(409);
    expect((await post(path, { text: 'other' }, 'message-1')).status).toBe(422);
    expect(await turns(created.id)).toEqual(['fix it', 'and the docs']);
  });
});
