/**
 * `harmflow serve --store … --queue …` as users start it: the built bin (`npx tsc -p
 * tsconfig.build.json` first) as API nodes of a cluster, on free ports, over the test PostgreSQL (a
 * schema of its own, `--schema`) and Redis (a key prefix of its own, `--queue-prefix`); with a
 * `harmflow worker` for the run end to end, the simulator playing the harness.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { openDispatchQueue } from '../../src/cluster/dispatch.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { AUTH, BIN, submitTask, TOKEN, testClusters } from '../cluster/cluster-processes.js';
import { waitFor } from '../cluster/fixture.js';
import { REDIS_AVAILABLE, TEST_REDIS } from '../cluster/redis.js';
import { CLUSTER_IDENTITY, newRemote } from '../cluster/workspace-fixture.js';
import { simulated } from '../execution/fixture.js';
import { type SseFrame, sseFrames } from '../server/sse-client.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL } from '../store/postgres.js';

describe('harmflow serve in cluster mode', () => {
  it('refuses --store without --queue: exit code 2 and one line', () => {
    const home = mkdtempSync(join(tmpdir(), 'harmflow-serve-cluster-'));
    try {
      const args = ['serve', '--port', '0', '--home', home, '--store', TEST_POSTGRES_URL];
      const result = spawnSync(process.execPath, [BIN, ...args], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HARMFLOW_TOKEN: TOKEN },
        timeout: 20_000,
      });
      expect(result.status).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/--store and --queue go together: give both \(cluster mode\) or neither/),
      ]);
      expect(result.stdout).toBe('');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  describe.runIf(POSTGRES_AVAILABLE && REDIS_AVAILABLE)('over PostgreSQL and Redis', () => {
    const clusters = testClusters();

    it('names the mode at start and takes a submit over HTTP into the store and the queue', {
      timeout: 30_000,
    }, async () => {
      const { schema, prefix, apiNode } = clusters.newCluster();
      const node = apiNode();
      const url = await node.ready;

      const { remote } = await newRemote();
      const body = JSON.stringify({
        task: {
          name: 'fix',
          repo: remote,
          baseRef: 'main',
          prompt: 'Fix it.',
          harness: { harness: 'codex', env: CLUSTER_IDENTITY },
        },
      });
      expect((await fetch(`${url}/api/executions`, { method: 'POST', body })).status).toBe(401);
      const response = await fetch(`${url}/api/executions`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(201);
      const { execution } = (await response.json()) as { execution: { id: string; state: string } };
      expect(execution.state).toBe('queued');

      const store = await openPostgresStore(TEST_POSTGRES_URL, { schema });
      const queue = openDispatchQueue({ connection: TEST_REDIS, prefix, onError: () => {} });
      try {
        expect(await store.getExecution(execution.id)).toMatchObject({ state: 'queued', repo: remote });
        expect((await queue.getWaiting()).map((job) => job.data.execution)).toEqual([execution.id]);
      } finally {
        await queue.close();
        await store.close();
      }
      const admission = await (await fetch(`${url}/api/admission`, { headers: AUTH })).json();
      expect(admission).toEqual({
        mode: 'cluster',
        held: false,
        reasons: [],
        queue: { waiting: 1, active: 0, delayed: 0 },
      });
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, [BIN, ...args], {
          encoding: 'utf8',
          env: { PATH: process.env.PATH, HARMFLOW_URL: url, HARMFLOW_TOKEN: TOKEN },
          timeout: 20_000,
        });
      const held = cli('admission', 'hold', 'database', 'upgrade');
      expect(held.stderr).toBe('');
      expect(held.stdout).toBe(
        'admission  held (cluster mode: each worker also pauses below its own disk floor)\n  - the cluster is held by an operator: database upgrade\nqueue      1 waiting, 0 being driven, 0 delayed\n',
      );
      expect(cli('admission', 'release').stdout).toMatch(/^admission {2}open /);

      const exited = new Promise<number | null>((resolve) => node.child.once('exit', resolve));
      node.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(node.printed.out).toMatch(/stopped\n$/);
      expect(node.printed.err).toBe('');
    });

    it('runs a task submitted to one API node on a worker, and streams its events from another to the end', {
      timeout: 60_000,
    }, async () => {
      const cluster = clusters.newCluster();
      const folder = cluster.dir();
      const scenario = join(folder, 'codex.scenario.yaml');
      writeFileSync(scenario, stringify({ steps: [{ say: 'hello from the worker' }, { end: 'complete' }] }));
      const worker = cluster.worker('w1', { HARMFLOW_FORGE_DIR: folder });
      const [first, second] = [cluster.apiNode(), cluster.apiNode()];
      const [url1, url2] = await Promise.all([first.ready, second.ready]);
      await worker.ready;

      const { remote } = await newRemote();
      const task = {
        name: 'e2e',
        repo: `file://${remote}`,
        baseRef: 'main',
        prompt: 'hi',
        harness: { ...simulated('codex', scenario), env: CLUSTER_IDENTITY },
      };
      const execution = { id: await submitTask(url1, task) };

      const stream = await fetch(`${url2}/api/executions/${execution.id}/events`, { headers: AUTH });
      const frames: SseFrame[] = [];
      for await (const frame of sseFrames(stream)) if (frame.comment === undefined) frames.push(frame);
      expect(frames[0]).toEqual({ event: 'connected', data: JSON.stringify({ execution: execution.id, from: 0 }) });
      const records = frames.slice(1);
      expect(records.map((frame) => frame.id)).toEqual(records.map((_, index) => String(index + 1)));
      const types = records.map((frame) => (JSON.parse(frame.data ?? '') as { type: string }).type);
      expect(types[0]).toBe('execution.started');
      expect(types.at(-1)).toBe('execution.ended');
      expect(records.some((frame) => frame.data?.includes('hello from the worker'))).toBe(true);

      // The worker records the final state just after it appends `execution.ended`.
      await waitFor('the execution to be succeeded', async () => {
        const shown = (await (await fetch(`${url2}/api/executions/${execution.id}`, { headers: AUTH })).json()) as {
          execution: { state: string };
        };
        return shown.execution.state === 'succeeded' ? true : undefined;
      });
      expect(worker.printed.err).toBe('');
    });
  });
});
