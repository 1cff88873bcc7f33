import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import {
  DONE_ID,
  type Fixture,
  openFixture,
  PORT,
  QUEUED_ID,
  RUNNING_ID,
  request,
  TOKEN,
  UNKNOWN_ID,
} from './fixture.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await openFixture();
});
afterAll(() => fixture.close());

// biome-ignore lint/suspicious/noExplicitAny: the tests assert on the shape of arbitrary JSON bodies
const json = async (path: string): Promise<{ status: number; body: any }> => {
  const response = await request(fixture.app, path);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: response.status, body: await response.json() };
};

describe('GET /api/executions', () => {
  it('lists every execution, newest first', async () => {
    const { status, body } = await json('/api/executions');
    expect(status).toBe(200);
    expect(body.executions.map((e: { id: string }) => e.id)).toEqual([QUEUED_ID, DONE_ID, RUNNING_ID]);
    expect(body.executions[2]).toMatchObject({ state: 'running', attemptCount: 2, currentHarness: 'codex' });
  });

  it('filters live and ended executions', async () => {
    const live = await json('/api/executions?state=live');
    expect(live.body.executions.map((e: { id: string }) => e.id)).toEqual([QUEUED_ID, RUNNING_ID]);
    const ended = await json('/api/executions?state=ended');
    expect(ended.body.executions.map((e: { id: string }) => e.id)).toEqual([DONE_ID]);
  });

  it('refuses an unknown state with 400', async () => {
    const { status, body } = await json('/api/executions?state=all');
    expect(status).toBe(400);
    expect(body.error.name).toBe('UsageError');
    expect(body.error.message).toMatch(/state/);
  });
});

describe('GET /api/executions/:id', () => {
  it('returns the execution and its attempts', async () => {
    const { status, body } = await json(`/api/executions/${RUNNING_ID}`);
    expect(status).toBe(200);
    expect(body.execution).toMatchObject({ id: RUNNING_ID, state: 'running', taskName: 'fix-login' });
    expect(body.attempts).toEqual([
      {
        execution: RUNNING_ID,
        number: 1,
        harness: 'claude-code',
        simulated: true,
        startedAt: '2025-03-01T10:00:01.000Z',
        endedAt: '2025-03-01T10:05:00.000Z',
        outcome: 'quota_exhausted',
      },
      { execution: RUNNING_ID, number: 2, harness: 'codex', simulated: true, startedAt: '2025-03-01T10:05:01.000Z' },
    ]);
  });

  it('answers 404 for an unknown id', async () => {
    const { status, body } = await json(`/api/executions/${UNKNOWN_ID}`);
    expect(status).toBe(404);
    expect(body.error).toEqual({ name: 'NotFoundError', message: `no execution ${UNKNOWN_ID}` });
  });
});

describe('GET /api/executions/:id/context', () => {
  const context = {
    version: 2,
    execution: RUNNING_ID,
    task: 'fix-login',
    branch: `harmflow/fix-login-${RUNNING_ID}`,
    baseRef: 'main',
    baseSha: 'a'.repeat(40),
    worktree: `/w/${RUNNING_ID}`,
    writtenAt: '2025-03-01T10:05:01.000Z',
    attempts: [
      {
        number: 1,
        harness: 'claude-code',
        outcome: 'quota_exhausted',
        startedAt: '2025-03-01T10:00:01.000Z',
        endedAt: '2025-03-01T10:05:00.000Z',
        workItems: [
          {
            text: 'fix the login',
            reported: { status: 'in_progress', by: 'claude-code plan' },
            filesChanged: ['src/login.ts'],
          },
        ],
      },
    ],
  };

  it('answers 404 while there is no context.json, and for an unknown id', async () => {
    const none = await json(`/api/executions/${QUEUED_ID}/context`);
    expect(none.status).toBe(404);
    expect(none.body.error.message).toMatch(/no context.json yet/);
    expect((await json(`/api/executions/${UNKNOWN_ID}/context`)).body.error.message).toBe(`no execution ${UNKNOWN_ID}`);
  });

  it('returns the parsed context.json', async () => {
    const file = fixture.home.contextFile(RUNNING_ID);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ ...context, unknownField: 'dropped' }));
    const { status, body } = await json(`/api/executions/${RUNNING_ID}/context`);
    expect(status).toBe(200);
    expect(body).toEqual(context);
  });

  it('serves a version 1 context.json as version 2: its plan statuses as what the harness reported', async () => {
    const file = fixture.home.contextFile(RUNNING_ID);
    mkdirSync(dirname(file), { recursive: true });
    const attempt = { ...context.attempts[0], workItems: [{ text: 'fix the login', status: 'in_progress' }] };
    writeFileSync(file, JSON.stringify({ ...context, version: 1, attempts: [attempt] }));
    const { status, body } = await json(`/api/executions/${RUNNING_ID}/context`);
    expect(status).toBe(200);
    expect(body.version).toBe(2);
    expect(body.attempts[0].workItems).toEqual([
      { text: 'fix the login', reported: { status: 'in_progress', by: 'claude-code plan' } },
    ]);
  });

  it('answers 500 with a JSON error for a context.json that does not parse', async () => {
    const file = fixture.home.contextFile(DONE_ID);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ version: 2 }));
    const { status, body } = await json(`/api/executions/${DONE_ID}/context`);
    expect(status).toBe(500);
    expect(body.error.name).toBe('InternalError');
  });
});

describe('GET /api/harnesses', () => {
  it('reports each harness on the service PATH', async () => {
    const { status, body } = await json('/api/harnesses');
    expect(status).toBe(200);
    expect(body.harnesses.map((h: { harness: string }) => h.harness)).toEqual([
      'claude-code',
      'codex',
      'gemini',
      'opencode',
    ]);
    expect(body.harnesses[0]).toMatchObject({ binary: 'claude', version: '2.1.332', verified: true });
    expect(body.harnesses[0].path).toMatch(/\/bin\/claude$/);
    expect(body.harnesses[1]).toEqual({
      harness: 'codex',
      binary: 'codex',
      verifiedVersion: '0.171.0',
      verified: false,
      quota: [],
    });
  });
});

describe('GET /api/harnesses: quota', () => {
  it('gives each harness its quota records, with outUntil while it is out', async () => {
    const resetsAt = new Date(Date.now() + 3_600_000).toISOString();
    const observedAt = new Date().toISOString();
    await fixture.store.putQuota({
      harness: 'codex',
      account: '',
      state: 'exhausted',
      resetsAt,
      source: 'quota.exhausted',
      observedAt,
    });
    await fixture.store.putQuota({
      harness: 'gemini',
      account: '',
      state: 'warning',
      utilization: 0.96,
      source: 'rate_limit',
      observedAt,
    });
    const { body } = await json('/api/harnesses');
    const quota = (name: string) => body.harnesses.find((h: { harness: string }) => h.harness === name).quota;
    expect(quota('codex')).toEqual([
      {
        harness: 'codex',
        account: '',
        state: 'exhausted',
        resetsAt,
        outUntil: resetsAt,
        source: 'quota.exhausted',
        observedAt,
      },
    ]);
    expect(quota('gemini')).toEqual([
      { harness: 'gemini', account: '', state: 'warning', utilization: 0.96, source: 'rate_limit', observedAt },
    ]);
    expect(quota('opencode')).toEqual([]);
  });
});

describe('mount', () => {
  it('puts mounted routes behind the guards, :id included', async () => {
    const app = createApp({
      home: fixture.home,
      store: fixture.store,
      registry: fixture.registry,
      admission: fixture.admission,
      stop: () => {},
      token: TOKEN,
      port: PORT,
      mount: (root) => {
        root.get('/api/executions/:id/echo', (c) => c.json({ id: c.req.param('id') }));
      },
    });
    const ok = await request(app, `/api/executions/${RUNNING_ID}/echo`);
    expect(await ok.json()).toEqual({ id: RUNNING_ID });
    expect((await request(app, '/api/executions/..%2Fx/echo')).status).toBe(400);
    expect((await app.request(`http://127.0.0.1:${PORT}/api/executions/${RUNNING_ID}/echo`)).status).toBe(401);
  });
});
