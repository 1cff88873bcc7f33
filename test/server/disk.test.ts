/**
 * What executions take on disk, over the API: `GET /api/executions?include=disk` and
 * `GET /api/executions/:id/disk`, measured from real trees in the fixture's state directory, with
 * gc's record of a removed worktree, and each tree measured at most once per 30 s.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeWorktreeRemoved } from '../../src/execution/worktree-removed.js';
import { createApp } from '../../src/server/app.js';
import { DISK_SIZES_TTL_MS, DiskSizes } from '../../src/service/disk-sizes.js';
import { diskUsage } from '../../src/workspace/disk-usage.js';
import { DONE_ID, executionRecord, type Fixture, openFixture, PORT, RUNNING_ID, request, TOKEN } from './fixture.js';

const KEPT_ID = '01jf3kcccc2m4n6p8r0s2t4v6w';
const GONE_ID = '01jf3kcccc2m4n6p8r0s2t4v6x';

let fixture: Fixture;
beforeEach(async () => {
  fixture = await openFixture();
  const { home, store } = fixture;
  for (const id of [KEPT_ID, GONE_ID]) {
    await store.insertExecution({
      ...executionRecord(id, 'succeeded', '2025-03-01T10:05:00.000Z'),
      worktree: home.worktree(id),
      runDir: home.runDir(id),
    });
    mkdirSync(home.runDir(id), { recursive: true });
    writeFileSync(home.eventsFile(id), 'x'.repeat(10_000));
  }
  mkdirSync(join(home.worktree(KEPT_ID), 'src'), { recursive: true });
  writeFileSync(join(home.worktree(KEPT_ID), 'src', 'big.txt'), 'y'.repeat(100_000));
  writeWorktreeRemoved(home, GONE_ID, {
    removedAt: '2025-03-09T10:00:00.000Z',
    path: home.worktree(GONE_ID),
    branch: `harmflow/fix-login-${GONE_ID}`,
    head: 'b'.repeat(40),
  });
});
afterEach(async () => {
  await fixture.close();
});

async function getJson(path: string, app = fixture.app): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await request(app, path);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('GET /api/executions?include=disk', () => {
  it('maps every listed execution to its worktree and run directory bytes, and when gc removed its worktree', async () => {
    const { home } = fixture;
    const { status, body } = await getJson('/api/executions?state=ended&include=attempts,disk');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['executions', 'attempts', 'disk']);
    expect(body.disk).toEqual({
      [KEPT_ID]: {
        worktreeBytes: await diskUsage(home.worktree(KEPT_ID)),
        runBytes: await diskUsage(home.runDir(KEPT_ID)),
      },
      [GONE_ID]: {
        worktreeBytes: 0,
        runBytes: await diskUsage(home.runDir(GONE_ID)),
        worktreeRemovedAt: '2025-03-09T10:00:00.000Z',
      },
      // The fixture's own executions name folders that do not exist: nothing on disk.
      [DONE_ID]: { worktreeBytes: 0, runBytes: 0 },
    });
    expect((body.disk as Record<string, { worktreeBytes: number }>)[KEPT_ID]?.worktreeBytes).toBeGreaterThan(100_000);
  });

  it('refuses an unknown include, naming disk among the known ones', async () => {
    const { status, body } = await getJson('/api/executions?include=sizes');
    expect(status).toBe(400);
    expect((body.error as { message: string }).message).toContain('"attempts"|"waits"|"disk"');
  });

  it('measures each tree at most once per 30 s', async () => {
    let now = 1_000_000;
    const diskSizes = new DiskSizes({ now: () => now });
    const { home, store, registry, admission } = fixture;
    const app = createApp({ home, store, registry, admission, stop: () => {}, token: TOKEN, port: PORT, diskSizes });
    const worktreeBytes = async () =>
      ((await getJson('/api/executions?include=disk', app)).body.disk as Record<string, { worktreeBytes: number }>)[
        KEPT_ID
      ]?.worktreeBytes;
    const before = await worktreeBytes();
    writeFileSync(join(fixture.home.worktree(KEPT_ID), 'more.txt'), 'z'.repeat(200_000));
    now += DISK_SIZES_TTL_MS - 1;
    expect(await worktreeBytes()).toBe(before);
    now += 1;
    expect(await worktreeBytes()).toBeGreaterThan((before ?? 0) + 190_000);
  });
});

describe('GET /api/executions/:id/disk', () => {
  it("answers one execution's disk, and 404 for an unknown one", async () => {
    expect(await getJson(`/api/executions/${GONE_ID}/disk`)).toEqual({
      status: 200,
      body: {
        worktreeBytes: 0,
        runBytes: await diskUsage(fixture.home.runDir(GONE_ID)),
        worktreeRemovedAt: '2025-03-09T10:00:00.000Z',
      },
    });
    expect((await getJson(`/api/executions/${RUNNING_ID.replace(/w$/, 'y')}/disk`)).status).toBe(404);
  });
});
