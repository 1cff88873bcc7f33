/**
 * A loopback HTTP server that answers the list routes the terminal UI reads
 * (`GET /api/executions?state=live|ended&include=attempts,owners`, `GET /api/workflows/runs`, docs/api.md)
 * and a workflow run's (`GET /api/workflows/runs/:id`, for the runs it has steps of) from records the
 * test gives, behind a bearer token, so the UI runs through the CLI's real client. Anything else is
 * 404 with the API's error body. `close()` is idempotent.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutionList, WorkflowRun, WorkflowRunWithSteps } from '../../src/cli/client.js';

export const FAKE_TOKEN = 'fake-token';

export interface FakeService {
  readonly url: string;
  /** The lists it answers; replace them to change what the next poll sees. */
  lists: { live: ExecutionList; ended: ExecutionList };
  /** The workflow runs it lists, newest first; replace them to change what the next poll sees. */
  runs: WorkflowRun[];
  /** Each run's steps, by id: `GET /api/workflows/runs/:id` answers for these runs only. */
  steps: Record<string, WorkflowRunWithSteps['steps']>;
  /** How many list requests it answered. */
  requests: number;
  close(): Promise<void>;
}

export async function startFakeService(
  lists: FakeService['lists'],
  workflows: Pick<FakeService, 'runs' | 'steps'> = { runs: [], steps: {} },
): Promise<FakeService> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://loopback');
    const state = url.searchParams.get('state');
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.headers.authorization !== `Bearer ${FAKE_TOKEN}`) {
      return reply(401, { error: { name: 'UnauthorizedError', message: 'bad token' } });
    }
    if (request.method === 'GET' && url.pathname === '/api/workflows/runs') {
      fake.requests += 1;
      return reply(200, { runs: fake.runs });
    }
    const run = /^\/api\/workflows\/runs\/([^/]+)$/.exec(url.pathname)?.[1];
    const steps = run === undefined ? undefined : fake.steps[run];
    const shown = fake.runs.find((listed) => listed.id === run);
    if (request.method === 'GET' && steps !== undefined && shown !== undefined) {
      return reply(200, { run: shown, steps });
    }
    if (
      request.method !== 'GET' ||
      url.pathname !== '/api/executions' ||
      (state !== 'live' && state !== 'ended') ||
      url.searchParams.get('include') !== 'attempts,owners'
    ) {
      return reply(404, { error: { name: 'NotFoundError', message: `no route ${request.method} ${request.url}` } });
    }
    fake.requests += 1;
    reply(200, fake.lists[state]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let closed: Promise<void> | undefined;
  const fake: FakeService = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lists,
    runs: workflows.runs,
    steps: workflows.steps,
    requests: 0,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closed;
    },
  };
  return fake;
}

/** An execution record as the API lists it; `overrides` set what a test looks at. */
export function executionRecord(
  overrides: Partial<ExecutionList['executions'][number]> & { id: string; taskName: string },
): ExecutionList['executions'][number] {
  const createdAt = new Date(Date.now() - 90_000).toISOString();
  return {
    taskId: `${overrides.id}-task`,
    repo: '/repos/app',
    baseRef: 'main',
    baseSha: 'a3f1c0de',
    branch: `harmflow/${overrides.taskName}-${overrides.id}`,
    worktree: `/home/me/.harmflow/worktrees/${overrides.id}`,
    runDir: `/home/me/.harmflow/runs/${overrides.id}`,
    state: 'running',
    createdAt,
    startedAt: createdAt,
    deadline: new Date(Date.now() + 1_800_000).toISOString(),
    attemptCount: 1,
    ...overrides,
  };
}

/** A workflow run as `/api/workflows/runs` shows it; `overrides` set what a test looks at. */
export function workflowRun(overrides: Partial<WorkflowRun> & { id: string; workflow: string }): WorkflowRun {
  const createdAt = new Date(Date.now() - 600_000).toISOString();
  return {
    params: {},
    state: 'succeeded',
    module: `/work/flows/${overrides.workflow}.mjs`,
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  };
}
