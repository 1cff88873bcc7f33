/**
 * `POST /api/executions` on a single-machine service and the agent's git identity (issue 20): the
 * service resolves the identity its user has (a HOME of the test's own, GIT_CONFIG_NOSYSTEM=1),
 * keeps it with the task and gives it to the harness; with none, the task is refused with 400 and
 * one line naming the fix, and nothing is created. The bench's repository says
 * `user.useConfigOnly`, so git never guesses an address from this machine's name.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { taskFromStore } from '../../src/core/task.js';
import { createApp } from '../../src/server/app.js';
import { git } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench } from '../service/bench.js';
import { PORT, request, TOKEN } from './fixture.js';

const IDENTITY_VARIABLES = [
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'EMAIL',
];

let bench: ServiceBench | undefined;
let userHome: string | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await bench?.cleanup();
  if (userHome !== undefined) rmSync(userHome, { recursive: true, force: true });
  bench = undefined;
  userHome = undefined;
});

/** A service run by a user whose HOME is a fresh folder, with Ann's git config when `config`. */
function startService(config: boolean): { bench: ServiceBench; app: Hono } {
  const home = mkdtempSync(join(tmpdir(), 'harmflow-user-'));
  userHome = home;
  if (config) writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Ann Example\n\temail = ann@example.com\n');
  // The service reads the host from the environment it is given, or from its own: both are the user's.
  vi.stubEnv('HOME', home);
  vi.stubEnv('GIT_CONFIG_NOSYSTEM', '1');
  for (const name of IDENTITY_VARIABLES) vi.stubEnv(name, undefined);
  const service = makeServiceBench({ hostEnv: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1' } });
  bench = service;
  git(service.repo, 'config', 'user.useConfigOnly', 'true');
  const app = createApp({
    home: service.home,
    store: service.store,
    registry: service.registry,
    admission: service.admission,
    stop: () => {},
    token: TOKEN,
    port: PORT,
  });
  return { bench: service, app };
}

function post(app: Hono, body: unknown): Promise<Response> {
  return request(app, '/api/executions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A task as `harmflow submit` sends it, its one link committing and giving no identity of its own. */
function committingTask(service: ServiceBench) {
  const scenario = service.scenario('commit', {
    steps: [{ write: { path: 'notes.txt', content: 'noted\n' } }, { commit: 'Add notes' }, { end: 'complete' }],
  });
  return {
    name: 'identity',
    repo: service.repo,
    baseRef: 'main',
    prompt: 'Take a note.',
    harness: { harness: 'claude-code', simulate: scenario },
  };
}

describe('POST /api/executions and the git identity', () => {
  it('refuses with 400 and one line naming the fix when the service knows no identity, and creates nothing', async () => {
    const { bench: service, app } = startService(false);
    const response = await post(app, { task: committingTask(service) });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        name: 'TaskFileError',
        message: `no git identity for the agent's commits in ${service.repo} (git: no email was given and auto-detection is disabled): set one (git config --global user.name "Your Name" && git config --global user.email "you@example.com") or give GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL in the env of claude-code (the primary harness)`,
      },
    });
    expect(await service.store.listExecutions()).toEqual([]);
    expect(existsSync(join(service.home.root, 'worktrees'))).toBe(false);
    expect(git(service.repo, 'branch', '--list', 'harmflow/*')).toBe('');
  });

  it("keeps the user's identity with the task and commits with it", { timeout: 30_000 }, async () => {
    const { bench: service, app } = startService(true);
    const response = await post(app, { task: committingTask(service) });
    expect(response.status).toBe(201);
    const { execution } = (await response.json()) as { execution: { id: string; taskId: string; branch: string } };
    await service.registry.settled();
    const stored = await service.store.getTask(execution.taskId);
    expect(taskFromStore(stored?.definition).gitIdentity).toEqual({
      authorName: 'Ann Example',
      authorEmail: 'ann@example.com',
      committerName: 'Ann Example',
      committerEmail: 'ann@example.com',
    });
    expect(await service.store.getExecution(execution.id)).toMatchObject({ state: 'succeeded' });
    expect(git(service.repo, 'log', '-1', '--format=%an <%ae> / %s', execution.branch)).toBe(
      'Ann Example <ann@example.com> / Add notes',
    );
  });
});
