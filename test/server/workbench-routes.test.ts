/**
 * The API additions the Workbench reads: the list with each execution's attempts
 * (`GET /api/executions?include=attempts`) and the files an execution changed
 * (`GET /api/executions/:id/changes`). Real executions run by the simulator through the real app,
 * then real git work in their worktrees.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExecutionRecord } from '../../src/store/store.js';
import { type ChangedFile, MAX_DIFF_BYTES } from '../../src/workspace/changes.js';
import { git, simulated } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench } from '../service/bench.js';
import { request, serviceBenchApp, UNKNOWN_ID } from './fixture.js';

let bench: ServiceBench;
let app: Hono;

beforeEach(() => {
  bench = makeServiceBench();
  app = serviceBenchApp(bench);
});
afterEach(async () => {
  await bench.cleanup();
});

interface Changes {
  base: string;
  files: ChangedFile[];
  diff: string;
  truncated: boolean;
}

/** Submits a task through the API, waits until every execution settled and returns this one's record. */
async function runExecution(chain: Record<string, unknown>): Promise<ExecutionRecord> {
  const response = await request(app, '/api/executions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task: { name: 'api-task', repo: bench.repo, baseRef: 'main', prompt: 'Do it.', ...chain } }),
  });
  expect(response.status).toBe(201);
  const { execution } = (await response.json()) as { execution: { id: string } };
  await bench.registry.settled();
  const record = await bench.store.getExecution(execution.id);
  if (record === undefined) throw new Error(`execution ${execution.id} was not stored`);
  return record;
}

/** A chain link that completes at once. */
function quick(harness: 'claude-code' | 'codex' = 'claude-code'): Record<string, unknown> {
  return simulated(harness, bench.scenario('quick', { pace: '20ms', steps: [{ end: 'complete' }] }));
}

async function getJson<T>(path: string): Promise<{ status: number; body: T }> {
  const response = await request(app, path);
  return { status: response.status, body: (await response.json()) as T };
}

type ErrorBody = { error: { name: string; message: string } };

/** Writes `content` at `path` under `root`, creating its folders. */
async function put(root: string, path: string, content: string | Buffer): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
}

describe('GET /api/executions?include=attempts', () => {
  it('maps each listed execution to its attempts, ordered by number, as GET /:id has them', {
    timeout: 30_000,
  }, async () => {
    const quota = bench.scenario('quota', { pace: '20ms', steps: [{ say: 'starting' }, { end: 'quota' }] });
    const switched = await runExecution({ harness: simulated('claude-code', quota), fallbacks: [quick('codex')] });
    const single = await runExecution({ harness: quick() });

    const { status, body } = await getJson<{
      executions: { id: string }[];
      attempts: Record<string, { number: number; harness: string; outcome?: string }[]>;
    }>('/api/executions?include=attempts');
    expect(status).toBe(200);
    expect(body.executions.map((execution) => execution.id)).toEqual([single.id, switched.id]);
    expect(Object.keys(body.attempts).sort()).toEqual([single.id, switched.id].sort());
    expect(body.attempts[switched.id]?.map(({ number, harness, outcome }) => [number, harness, outcome])).toEqual([
      [1, 'claude-code', 'quota_exhausted'],
      [2, 'codex', 'completed'],
    ]);
    for (const id of [switched.id, single.id]) {
      const shown = await getJson<{ attempts: unknown[] }>(`/api/executions/${id}`);
      expect(body.attempts[id]).toEqual(shown.body.attempts);
    }

    const live = await getJson<unknown>('/api/executions?state=live&include=attempts');
    expect(live.body).toEqual({ executions: [], attempts: {} });
    const plain = await getJson<Record<string, unknown>>('/api/executions?state=ended');
    expect(Object.keys(plain.body)).toEqual(['executions']);
  });

  it('refuses any other include with 400 UsageError', async () => {
    for (const include of ['events', 'attempts,events', '']) {
      const { status, body } = await getJson<ErrorBody>(`/api/executions?include=${encodeURIComponent(include)}`);
      expect({ status, name: body.error.name }).toEqual({ status: 400, name: 'UsageError' });
      expect(body.error.message).toMatch(/include/);
    }
  });
});

describe('GET /api/executions/:id/changes', () => {
  it('lists committed, uncommitted and untracked changes against the base, and leaves the worktree as it was', {
    timeout: 30_000,
  }, async () => {
    await put(bench.repo, 'src/a.txt', 'one\ntwo\nthree\n');
    await put(bench.repo, 'src/b.txt', 'alpha\nbeta\n');
    await put(bench.repo, 'docs/old.md', '# old\n\nremove me\n');
    await put(bench.repo, '.gitignore', '.cache/\n');
    git(bench.repo, 'add', '-A');
    git(bench.repo, 'commit', '--quiet', '-m', 'files the tests change');
    const execution = await runExecution({ harness: quick() });
    const { worktree } = execution;

    await put(worktree, 'src/a.txt', 'one\nTWO\nthree\n');
    git(worktree, 'rm', '--quiet', 'docs/old.md');
    git(worktree, 'commit', '--quiet', '-am', 'committed: a.txt and the deletion');
    await put(worktree, 'src/b.txt', 'alpha\nbeta\ngamma\n');
    await put(worktree, 'notes/new.txt', 'hello\n');
    // A name that is pathspec magic and a glob: taken literally, and parsed by position, not by look.
    await put(worktree, 'notes/:(glob)*.txt', 'odd\n');
    await put(worktree, 'image.bin', Buffer.from([0, 1, 2, 0, 255]));
    await put(worktree, '.cache/ignored.txt', 'not a change\n');
    const statusBefore = git(worktree, 'status', '--porcelain', '--untracked-files=all');

    const { status, body } = await getJson<Changes>(`/api/executions/${execution.id}/changes`);
    expect(status).toBe(200);
    expect(body.base).toBe(execution.baseSha);
    expect(body.files).toEqual([
      { path: 'docs/old.md', status: 'deleted', additions: 0, deletions: 3 },
      { path: 'image.bin', status: 'added', additions: 0, deletions: 0, binary: true },
      { path: 'notes/:(glob)*.txt', status: 'added', additions: 1, deletions: 0 },
      { path: 'notes/new.txt', status: 'added', additions: 1, deletions: 0 },
      { path: 'src/a.txt', status: 'modified', additions: 1, deletions: 1 },
      { path: 'src/b.txt', status: 'modified', additions: 1, deletions: 0 },
    ]);
    expect(body.truncated).toBe(false);
    expect(body.diff).toMatch(/^diff --git a\/docs\/old\.md b\/docs\/old\.md\ndeleted file mode 100644\n/);
    expect(body.diff).toContain('diff --git a/notes/new.txt b/notes/new.txt\nnew file mode 100644\n');
    expect(body.diff).toContain('--- /dev/null\n+++ b/notes/new.txt\n@@ -0,0 +1 @@\n+hello\n');
    expect(body.diff).toContain('Binary files /dev/null and b/image.bin differ\n');
    expect(body.diff).toContain(' one\n-two\n+TWO\n three\n');
    expect(body.diff).toContain(' alpha\n beta\n+gamma\n');
    expect(body.diff).not.toContain('ignored');
    // Read-only: the agent's index (what it staged) and its untracked files are as they were.
    expect(git(worktree, 'status', '--porcelain', '--untracked-files=all')).toBe(statusBefore);
  });

  it('reports a rename, with the path it came from', { timeout: 30_000 }, async () => {
    const execution = await runExecution({ harness: quick() });
    git(execution.worktree, 'mv', 'package.json', 'manifest.json');
    const { body } = await getJson<Changes>(`/api/executions/${execution.id}/changes`);
    expect(body.files).toEqual([
      { path: 'manifest.json', status: 'renamed', from: 'package.json', additions: 0, deletions: 0 },
    ]);
    expect(body.diff).toContain('rename from package.json\nrename to manifest.json\n');
  });

  it('cuts a diff over MAX_DIFF_BYTES at a line end, and still lists every file', { timeout: 30_000 }, async () => {
    const execution = await runExecution({ harness: quick() });
    const lines = 40_000;
    const big = Array.from({ length: lines }, (_, n) => `line ${n} of a file too large to show whole\n`).join('');
    expect(big.length).toBeGreaterThan(MAX_DIFF_BYTES);
    await put(execution.worktree, 'big.txt', big);
    await put(execution.worktree, 'small.txt', 'after the big one\n');

    const { status, body } = await getJson<Changes>(`/api/executions/${execution.id}/changes`);
    expect(status).toBe(200);
    expect(body.truncated).toBe(true);
    expect(body.files).toEqual([
      { path: 'big.txt', status: 'added', additions: lines, deletions: 0 },
      { path: 'small.txt', status: 'added', additions: 1, deletions: 0 },
    ]);
    const size = Buffer.byteLength(body.diff);
    expect(size).toBeLessThanOrEqual(MAX_DIFF_BYTES);
    expect(size).toBeGreaterThan(MAX_DIFF_BYTES - 100);
    expect(body.diff.startsWith('diff --git a/big.txt b/big.txt\n')).toBe(true);
    expect(body.diff.endsWith(' of a file too large to show whole\n')).toBe(true);
    expect(body.diff).not.toContain('small.txt');
  });

  it('answers 404 once the worktree is gone, and for an unknown execution', { timeout: 30_000 }, async () => {
    const removed = await runExecution({ harness: quick() });
    git(bench.repo, 'worktree', 'remove', '--force', removed.worktree);
    const gone = await getJson<ErrorBody>(`/api/executions/${removed.id}/changes`);
    expect({ status: gone.status, name: gone.body.error.name }).toEqual({ status: 404, name: 'NotFoundError' });
    expect(gone.body.error.message).toBe(
      `worktree ${removed.worktree} no longer exists (it was removed or cleaned up)`,
    );

    const emptied = await runExecution({ harness: quick() });
    rmSync(join(emptied.worktree, '.git'));
    writeFileSync(join(emptied.worktree, 'left-behind.txt'), 'a folder that is no worktree any more\n');
    const notWorktree = await getJson<ErrorBody>(`/api/executions/${emptied.id}/changes`);
    expect({ status: notWorktree.status, name: notWorktree.body.error.name }).toEqual({
      status: 404,
      name: 'NotFoundError',
    });

    const unknown = await getJson<ErrorBody>(`/api/executions/${UNKNOWN_ID}/changes`);
    expect({ status: unknown.status, name: unknown.body.error.name }).toEqual({ status: 404, name: 'NotFoundError' });
    expect(unknown.body.error.message).toBe(`no execution ${UNKNOWN_ID}`);
  });
});
