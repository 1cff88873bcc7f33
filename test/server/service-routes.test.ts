import { hostname } from 'node:os';
import type { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { simulated } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench } from '../service/bench.js';
import { PORT, request, TOKEN } from './fixture.js';

let bench: ServiceBench;
let app: Hono;
let stops: number;

beforeEach(() => {
  bench = makeServiceBench();
  stops = 0;
  app = createApp({
    home: bench.home,
    store: bench.store,
    registry: bench.registry,
    admission: bench.admission,
    stop: () => {
      stops += 1;
    },
    token: TOKEN,
    port: PORT,
  });
});
afterEach(async () => {
  await bench.cleanup();
});

function post(path: string, body: unknown): Promise<Response> {
  return request(app, path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function expectError(response: Response, status: number, name: string, message?: RegExp): Promise<void> {
  const body = (await response.json()) as { error: { name: string; message: string } };
  expect({ status: response.status, name: body.error.name }).toEqual({ status, name });
  if (message) expect(body.error.message).toMatch(message);
}

/** A task file's content as `harmflow submit` sends it: paths absolute. */
function taskBody(fields: Record<string, unknown> = {}) {
  const scenario = bench.scenario('quick', { pace: '150ms', steps: [{ say: 'working' }, { end: 'complete' }] });
  return {
    name: 'api-task',
    repo: bench.repo,
    baseRef: 'main',
    prompt: 'Do it.',
    harness: simulated('claude-code', scenario),
    ...fields,
  };
}

describe('POST /api/executions', () => {
  it('creates the execution (201, queued) and runs it', { timeout: 20_000 }, async () => {
    const response = await post('/api/executions', { task: taskBody() });
    expect(response.status).toBe(201);
    const { execution } = (await response.json()) as { execution: { id: string; state: string } };
    expect(execution.state).toBe('queued');
    await bench.registry.settled();
    const shown = (await (await request(app, `/api/executions/${execution.id}`)).json()) as {
      execution: { state: string };
      attempts: unknown[];
    };
    expect(shown.execution.state).toBe('succeeded');
    expect(shown.attempts).toHaveLength(1);
  });

  it('refuses bad bodies with 400 and creates nothing', async () => {
    await expectError(await post('/api/executions', 'not json'), 400, 'UsageError', /not JSON/);
    await expectError(await post('/api/executions', { task: taskBody(), extra: 1 }), 400, 'UsageError', /extra/);
    await expectError(
      await post('/api/executions', { task: taskBody({ prompt: '' }) }),
      400,
      'TaskFileError',
      /prompt/,
    );
    await expectError(
      await post('/api/executions', { task: taskBody({ repo: 'relative/repo' }) }),
      400,
      'TaskFileError',
      /absolute path/,
    );
    await expectError(
      await post('/api/executions', { task: taskBody({ repo: 'https://git.example.com/team/app.git' }) }),
      400,
      'TaskFileError',
      /is a URL; this service runs executions from repositories on its machine \(a URL needs cluster mode\)/,
    );
    await expectError(
      await post('/api/executions', { task: taskBody({ repo: '/nonexistent/harmflow-repo' }) }),
      400,
      'RepositoryError',
    );
    expect(await bench.store.listExecutions()).toEqual([]);
  });

  it('answers 503 with the reason while admission is held', async () => {
    const held = await post('/api/admission/hold', { reason: 'disk maintenance' });
    expect(held.status).toBe(200);
    expect(await held.json()).toMatchObject({ held: true, reasons: ['held by an operator: disk maintenance'] });
    await expectError(
      await post('/api/executions', { task: taskBody() }),
      503,
      'ServiceUnavailableError',
      /disk maintenance/,
    );
    const released = await post('/api/admission/release', {});
    expect(await released.json()).toMatchObject({ held: false, reasons: [] });
    expect((await post('/api/executions', { task: taskBody() })).status).toBe(201);
    await bench.registry.settled();
  });
});

describe('GET /api/admission', () => {
  it('reports the cap from idle cores, running, queued and the disk', async () => {
    bench.host.coreCount = 8;
    bench.host.load = 5.5;
    const status = await (await request(app, '/api/admission')).json();
    expect(status).toMatchObject({ cap: 2, capFrom: 'idle-cores', cores: 8, running: 0, queued: 0, held: false });
  });

  it('refuses a hold without a reason', async () => {
    await expectError(await post('/api/admission/hold', {}), 400, 'UsageError', /reason/);
  });
});

describe('messages and cancel', () => {
  it('queues a message (202 with its turn), refuses empty ones, and 409s once canceled', {
    timeout: 20_000,
  }, async () => {
    const { execution } = (await (await post('/api/executions', { task: taskBody() })).json()) as {
      execution: { id: string };
    };
    const sent = await post(`/api/executions/${execution.id}/messages`, { text: 'also the changelog' });
    expect(sent.status).toBe(202);
    expect(await sent.json()).toEqual({ turn: { id: 't2', execution: execution.id, queued: 2 } });
    await expectError(await post(`/api/executions/${execution.id}/messages`, { text: '  ' }), 400, 'UsageError');
    await bench.registry.settled();
    await expectError(await post(`/api/executions/${execution.id}/cancel`, {}), 409, 'ConflictError');
    // A succeeded execution is reopened by a message; a canceled one refuses it.
    expect((await post(`/api/executions/${execution.id}/messages`, { text: 'one more' })).status).toBe(202);
    await post(`/api/executions/${execution.id}/cancel`, {});
    await bench.registry.settled();
    await expectError(
      await post(`/api/executions/${execution.id}/messages`, { text: 'late' }),
      409,
      'ConflictError',
      /has ended \(canceled\)/,
    );
  });

  it('cancels (202) and the execution ends canceled', { timeout: 20_000 }, async () => {
    const slow = bench.scenario('slow', { pace: '2s', steps: [{ say: 'working' }, { end: 'complete' }] });
    const body = taskBody({ harness: simulated('codex', slow) });
    const { execution } = (await (await post('/api/executions', { task: body })).json()) as {
      execution: { id: string };
    };
    const canceled = await post(`/api/executions/${execution.id}/cancel`, {});
    expect(canceled.status).toBe(202);
    await bench.registry.settled();
    expect((await bench.store.getExecution(execution.id))?.state).toBe('canceled');
  });

  it('404s an unknown execution', async () => {
    const unknown = '01jf3kaaaa2m4n6p8r0s2t4v6z';
    await expectError(await post(`/api/executions/${unknown}/messages`, { text: 'hi' }), 404, 'NotFoundError');
    await expectError(await post(`/api/executions/${unknown}/cancel`, {}), 404, 'NotFoundError');
  });
});

describe('POST /api/executions/:id/resume', () => {
  it('ends a wait for a quota reset (202): the execution carries on; 409 when it is not waiting', {
    timeout: 30_000,
  }, async () => {
    const scenario = bench.scenario('out-for-an-hour', {
      steps: [{ say: 'working' }, { end: { quota: { resetsIn: '1h' } } }],
      turns: [{ when: 'Attempt 1 — claude-code', steps: [{ say: 'carrying on' }, { end: 'complete' }] }],
    });
    const body = taskBody({ harness: simulated('claude-code', scenario), waitForReset: true, timeout: '2h' });
    const { execution } = (await (await post('/api/executions', { task: body })).json()) as {
      execution: { id: string };
    };
    await expect
      .poll(async () => (await bench.store.getExecution(execution.id))?.state, { timeout: 20_000 })
      .toBe('waiting');
    const resumed = await post(`/api/executions/${execution.id}/resume`, {});
    expect(resumed.status).toBe(202);
    await bench.registry.settled();
    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
    await expectError(
      await post(`/api/executions/${execution.id}/resume`, {}),
      409,
      'ConflictError',
      /is succeeded, not waiting for a quota reset/,
    );
  });
});

describe('POST /api/executions/:id/switch', () => {
  it('switches a running execution (202) to the harness asked; 400 for a bad body; 409 once it has ended', {
    timeout: 30_000,
  }, async () => {
    const hang = bench.scenario('hang', { steps: [{ say: 'working' }, { end: 'hang' }] });
    const done = bench.scenario('done', { steps: [{ say: 'done' }, { end: 'complete' }] });
    const body = taskBody({ harness: simulated('claude-code', hang), fallbacks: [simulated('codex', done)] });
    const { execution } = (await (await post('/api/executions', { task: body })).json()) as {
      execution: { id: string };
    };
    await expect
      .poll(async () => (await bench.store.getExecution(execution.id))?.state, { timeout: 20_000 })
      .toBe('running');
    await expectError(
      await post(`/api/executions/${execution.id}/switch`, { to: 'gpt' }),
      400,
      'UsageError',
      /^bad body: to: /,
    );
    await expectError(
      await post(`/api/executions/${execution.id}/switch`, { to: 'codex', extra: 1 }),
      400,
      'UsageError',
      /^bad body: /,
    );
    const switched = await post(`/api/executions/${execution.id}/switch`, { to: 'codex', reason: 'stuck' });
    expect(switched.status).toBe(202);
    await bench.registry.settled();
    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
    const failover = bench.events(execution.id).find((record) => record.type === 'failover');
    expect(failover?.data).toMatchObject({ to: 'codex', requestedBy: 'api', note: 'stuck' });
    await expectError(
      await post(`/api/executions/${execution.id}/switch`, { to: 'codex' }),
      409,
      'ConflictError',
      /is succeeded; only a running or waiting execution can switch$/,
    );
  });
});

describe('GET /api/executions?include=owners', () => {
  it('names the process and host that drive a live execution, and none once it ended', {
    timeout: 20_000,
  }, async () => {
    const slow = bench.scenario('slow', {
      pace: '500ms',
      steps: [...Array.from({ length: 4 }, (_, at) => ({ say: `line ${at + 1}` })), { end: 'complete' }],
    });
    const submitted = await post('/api/executions', { task: taskBody({ harness: simulated('codex', slow) }) });
    const { execution } = (await submitted.json()) as { execution: { id: string } };
    const owners = async () =>
      ((await (await request(app, '/api/executions?include=owners')).json()) as { owners: Record<string, unknown> })
        .owners;
    expect(await owners()).toStrictEqual({ [execution.id]: { pid: process.pid, host: hostname(), alive: true } });
    await bench.registry.settled();
    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
    expect(await owners()).toStrictEqual({});
  });
});

describe('POST /api/stop', () => {
  it('answers 202 and stops the service', async () => {
    const response = await post('/api/stop', {});
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ stopping: true, suspending: { running: 0, waiting: 0, queued: 0 } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stops).toBe(1);
  });

  it('answers with what the stop suspends: the running and the queued executions', { timeout: 20_000 }, async () => {
    bench.host.coreCount = 1;
    const slow = bench.scenario('slow', {
      pace: '1s',
      steps: [...Array.from({ length: 8 }, (_, at) => ({ say: `line ${at + 1}` })), { end: 'complete' }],
    });
    for (const name of ['first', 'second']) {
      const submitted = await post('/api/executions', { task: taskBody({ name, harness: simulated('codex', slow) }) });
      expect(submitted.status).toBe(201);
    }
    await expect
      .poll(async () => (await bench.store.listExecutions({ states: ['running'] })).length, { timeout: 10_000 })
      .toBe(1);
    const response = await post('/api/stop', {});
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ stopping: true, suspending: { running: 1, waiting: 0, queued: 1 } });
  });
});
