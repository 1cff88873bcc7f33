/**
 * A restart that admission holds: `harmflow serve` is killed while an execution runs, and starts
 * again with admission held (free disk below the floor). The execution waits for a slot, and the
 * API says so: `queued`, its lost attempt closed `crashed` (and its harness's process group gone),
 * admission 0 running and 1 queued — not `running` with an open attempt while nothing runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitGroupGone } from '../../src/proc/group.js';
import { type Bench, GIT_IDENTITY, makeBench, simulated } from '../execution/fixture.js';
import { type Daemon, startDaemon } from './daemon.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let bench: Bench;
let daemon: Daemon | undefined;
beforeAll(() => {
  bench = makeBench();
});
afterAll(async () => {
  await daemon?.kill('SIGKILL');
  await bench.cleanup();
});

describe('a restart held by admission', () => {
  it('shows the recovered execution queued, its lost attempt closed', { timeout: 60_000 }, async () => {
    const env = { ...process.env, ...GIT_IDENTITY };
    daemon = await startDaemon(bench.home.root, ['--disk-floor-gib', '0'], env);
    const scenario = bench.scenario('long', { pace: '200ms', steps: [{ say: 'working' }, { end: { hang: {} } }] });
    const task = {
      name: 'held',
      repo: bench.repo,
      baseRef: 'main',
      prompt: 'Work.',
      harness: simulated('codex', scenario),
    };
    const created = await daemon.api('POST', '/api/executions', { task });
    expect(created.status).toBe(201);
    const id = (created.body as { execution: { id: string } }).execution.id;
    for (;;) {
      const lines = readFileSync(bench.home.eventsFile(id), 'utf8');
      if (lines.includes('"type":"message"')) break;
      await sleep(50);
    }
    const pgid = Number(readFileSync(join(bench.home.attemptDir(id, 1), 'pgid'), 'utf8'));
    await daemon.kill('SIGKILL');

    // A floor no disk meets: admission is held from the start.
    daemon = await startDaemon(bench.home.root, ['--disk-floor-gib', '1000000'], env);
    let detail: {
      execution: { state: string };
      attempts: { number: number; outcome?: string; endedAt?: string }[];
      routing: { sessions: unknown[]; nextFollowUp: { kind: string } };
    };
    for (;;) {
      detail = (await daemon.api('GET', `/api/executions/${id}`)).body as typeof detail;
      if (detail.execution.state === 'queued') break;
      await sleep(50);
    }
    expect(detail.attempts).toEqual([
      expect.objectContaining({ number: 1, outcome: 'crashed', endedAt: expect.any(String) }),
    ]);
    // Its session, as codex reported it before the kill, from its closed row; a follow-up waits for t1.
    expect(detail.routing.sessions).toEqual([{ harness: 'codex', sessionId: expect.any(String), attempts: [1] }]);
    expect(detail.routing.nextFollowUp.kind).toBe('waits');
    const admission = (await daemon.api('GET', '/api/admission')).body as {
      running: number;
      queued: number;
      held: boolean;
    };
    expect(admission).toMatchObject({ running: 0, queued: 1, held: true });
    expect(await waitGroupGone(pgid, 2_000)).toBe(true);
    await daemon.kill('SIGKILL');
  });
});
