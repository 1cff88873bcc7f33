/**
 * `POST /api/tasks/check` (the Workbench's task form's validator) and the submit's 400: every
 * problem of a task at once, each with its place, in the words `harmflow run` uses; the check
 * translates a task to YAML and back, and creates nothing.
 */
import type { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeServiceBench, type ServiceBench } from '../service/bench.js';
import { request, serviceBenchApp } from './fixture.js';

let bench: ServiceBench;
let app: Hono;

beforeEach(() => {
  bench = makeServiceBench();
  app = serviceBenchApp(bench);
});
afterEach(async () => {
  await bench.cleanup();
});

function post(path: string, body: unknown): Promise<Response> {
  return request(app, path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A task with four problems: a missing prompt, an unknown harness, a bad duration, an unknown field. */
const BROKEN = {
  name: 'fix',
  harness: 'codex',
  fallbacks: ['gemini', 'cluade'],
  timeout: '5 minutes',
  fallback: [],
};

describe('POST /api/tasks/check', () => {
  it('answers every problem of a task with its place, and its YAML', async () => {
    const response = await post('/api/tasks/check', { task: { ...BROKEN, repo: bench.repo } });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { yaml: string; problems: unknown[]; task: unknown };
    expect(answer.problems).toEqual([
      { path: 'prompt', message: 'required' },
      {
        path: 'fallbacks[1]',
        message: 'unknown harness "cluade" (known: claude-code, codex, gemini, opencode)',
      },
      { path: 'timeout', message: 'not a duration (examples: 45m, 1h30m, 90s, 600)' },
      { path: '', message: 'unknown field "fallback"' },
    ]);
    expect(answer.yaml).toBe(
      `name: fix\nharness: codex\nfallbacks:\n  - gemini\n  - cluade\ntimeout: 5 minutes\nfallback: []\nrepo: ${bench.repo}\n`,
    );
    expect(await bench.store.listExecutions()).toEqual([]);
  });

  it('reads YAML into the task, and refuses what only a service refuses: a relative path', async () => {
    const yaml =
      'name: fix\nrepo: app\nprompt: |\n  Fix it.\n  Then test.\nharness:\n  harness: codex\n  simulate: s.yaml\n';
    const answer = await (await post('/api/tasks/check', { yaml })).json();
    expect(answer).toEqual({
      task: {
        name: 'fix',
        repo: 'app',
        prompt: 'Fix it.\nThen test.\n',
        harness: { harness: 'codex', simulate: 's.yaml' },
      },
      yaml,
      problems: [
        {
          path: 'repo',
          message: '"app" must be an absolute path (the service has no task-file folder to resolve it in)',
        },
        {
          path: 'harness.simulate',
          message: '"s.yaml" must be an absolute path (the service has no task-file folder to resolve it in)',
        },
      ],
    });
  });

  it('names a relative path with the schema\'s problems, and the default repo "." as relative', async () => {
    const answer = (await (await post('/api/tasks/check', { task: { ...BROKEN, repo: 'app' } })).json()) as {
      problems: { path: string }[];
    };
    expect(answer.problems.map(({ path }) => path)).toEqual(['prompt', 'fallbacks[1]', 'timeout', '', 'repo']);
    const noRepo = await (
      await post('/api/tasks/check', { task: { name: 'fix', prompt: 'Fix it.', harness: 'codex' } })
    ).json();
    expect(noRepo).toMatchObject({
      problems: [
        {
          path: 'repo',
          message: '"." must be an absolute path (the service has no task-file folder to resolve it in)',
        },
      ],
    });
  });

  it('answers YAML it cannot read with its line and no task; a valid task with no problems', async () => {
    expect(await (await post('/api/tasks/check', { yaml: 'name: fix\nprompt: "open\n' })).json()).toEqual({
      problems: [{ path: '', line: 3, message: expect.stringMatching(/^not valid YAML: Missing closing "quote/) }],
    });
    const valid = { name: 'fix', repo: bench.repo, prompt: 'Fix it.', harness: 'codex' };
    expect(await (await post('/api/tasks/check', { task: valid })).json()).toMatchObject({ problems: [] });
  });

  it('refuses a body that is neither a task nor YAML with 400', async () => {
    const response = await post('/api/tasks/check', { yml: 'name: x' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { name: string } }).error.name).toBe('UsageError');
  });
});

describe('POST /api/executions with a bad task', () => {
  it('answers 400 naming every problem, and creates nothing', async () => {
    const response = await post('/api/executions', { task: { ...BROKEN, repo: bench.repo } });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        name: 'TaskFileError',
        message:
          'invalid task: prompt: required; fallbacks[1]: unknown harness "cluade" (known: claude-code, codex, gemini, opencode); timeout: not a duration (examples: 45m, 1h30m, 90s, 600); unknown field "fallback"',
      },
    });
    expect(await bench.store.listExecutions()).toEqual([]);
  });
});
