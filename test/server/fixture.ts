/**
 * A service app over a temporary HARMFLOW_HOME and an in-memory SQLite store, filled through the
 * Store API, for socket-free tests with `app.request()`. `close()` removes the home.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { type HomePaths, harmflowHome } from '../../src/core/home.js';
import type { ExecutionState } from '../../src/core/outcome.js';
import { createApp } from '../../src/server/app.js';
import { Admission } from '../../src/service/admission.js';
import { Registry } from '../../src/service/registry.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { ExecutionRecord, Store } from '../../src/store/store.js';
import type { ServiceBench } from '../service/bench.js';
import { FakeHost } from '../service/fake-host.js';

export const TOKEN = 'test-token-0123456789abcdef';
export const PORT = 7878;
export const BASE = `http://127.0.0.1:${PORT}`;
export const AUTH = { authorization: `Bearer ${TOKEN}` } as const;

export const RUNNING_ID = '01jf3k9x7q2m4n6p8r0s2t4v6w';
export const DONE_ID = '01jf3k9x7q2m4n6p8r0s2t4v6x';
export const QUEUED_ID = '01jf3kaaaa2m4n6p8r0s2t4v6y';
export const UNKNOWN_ID = '01jf3kaaaa2m4n6p8r0s2t4v6z';

export interface Fixture {
  readonly dir: string;
  readonly home: HomePaths;
  readonly store: Store;
  readonly host: FakeHost;
  readonly admission: Admission;
  readonly registry: Registry;
  /** When `POST /api/stop` asked the service to stop, one entry per call. */
  readonly stops: readonly number[];
  readonly app: Hono;
  close(): Promise<void>;
}

/** An execution record in `state`, as the store (and the API) has it: task `fix-login`, no attempt yet. */
export function executionRecord(
  id: string,
  state: ExecutionState,
  createdAt = '2025-03-01T10:00:00.000Z',
): ExecutionRecord {
  return {
    id,
    taskId: 'task-1',
    taskName: 'fix-login',
    repo: '/repos/app',
    baseRef: 'main',
    baseSha: 'a'.repeat(40),
    branch: `harmflow/fix-login-${id}`,
    worktree: `/w/${id}`,
    runDir: `/r/${id}`,
    state,
    createdAt,
    deadline: '2025-03-01T11:00:00.000Z',
    attemptCount: 0,
  };
}

/** Opens a fixture: three executions (running with two attempts, succeeded, queued), a fake `claude` on PATH. */
export async function openFixture(): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'harmflow-server-'));
  const home = harmflowHome(join(dir, 'home'));
  mkdirSync(home.root, { recursive: true });
  const store = openSqliteStore(':memory:');
  await store.insertTask({
    id: 'task-1',
    name: 'fix-login',
    definition: { prompt: 'hi' },
    createdAt: '2025-03-01T10:00:00.000Z',
  });
  await store.insertExecution(executionRecord(RUNNING_ID, 'running', '2025-03-01T10:00:00.000Z'));
  await store.insertExecution(executionRecord(DONE_ID, 'succeeded', '2025-03-01T10:01:00.000Z'));
  await store.insertExecution(executionRecord(QUEUED_ID, 'queued', '2025-03-01T10:02:00.000Z'));
  await store.insertAttempt({
    execution: RUNNING_ID,
    number: 1,
    harness: 'claude-code',
    simulated: true,
    startedAt: '2025-03-01T10:00:01.000Z',
    endedAt: '2025-03-01T10:05:00.000Z',
    outcome: 'quota_exhausted',
  });
  await store.insertAttempt({
    execution: RUNNING_ID,
    number: 2,
    harness: 'codex',
    simulated: true,
    startedAt: '2025-03-01T10:05:01.000Z',
  });
  await store.updateExecution(RUNNING_ID, { attemptCount: 2, currentHarness: 'codex' });

  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'claude'), '#!/bin/sh\necho "2.1.332 (Claude Code)"\n');
  chmodSync(join(bin, 'claude'), 0o755);

  const host = new FakeHost();
  const admission = new Admission({ host, path: home.root });
  const registry = new Registry({ home, store, admission, engine: { hostEnv: { PATH: bin } } });
  const stops: number[] = [];
  const app = createApp({
    home,
    store,
    registry,
    admission,
    stop: () => stops.push(Date.now()),
    token: TOKEN,
    port: PORT,
    searchPath: bin,
  });
  return {
    dir,
    home,
    store,
    host,
    admission,
    registry,
    stops,
    app,
    close: async () => {
      await registry.stop();
      admission.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Sends `path` to the app as a GET with the token, unless `init` says otherwise. */
export function request(app: Hono, path: string, init: RequestInit = {}): Promise<Response> {
  return Promise.resolve(app.request(`${BASE}${path}`, { ...init, headers: { ...AUTH, ...(init.headers as object) } }));
}

/**
 * The service's app over a service bench (a real registry and simulator: test/service/bench.ts),
 * as `harmflow serve` builds it; `stop` does nothing.
 */
export function serviceBenchApp(bench: ServiceBench): Hono {
  return createApp({
    home: bench.home,
    store: bench.store,
    registry: bench.registry,
    admission: bench.admission,
    stop: () => {},
    token: TOKEN,
    port: PORT,
  });
}
