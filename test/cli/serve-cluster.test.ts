/**
 * `harmflow serve --store … --queue …` as users start it: the built bin (`npx tsc -p
 * tsconfig.build.json` first) as API nodes of a cluster, on free ports, over the test PostgreSQL (a
 * schema of its own, `--schema`) and Redis (a key prefix of its own, `--queue-prefix`); with a
 * `harmflow worker` for the run end to end, the simulator playing the harness.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { openDispatchQueue } from '../../src/cluster/dispatch.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { waitFor } from '../cluster/fixture.js';
import { REDIS_AVAILABLE, TEST_REDIS, TEST_REDIS_URL, testPrefixes } from '../cluster/redis.js';
import { newRemote } from '../cluster/workspace-fixture.js';
import { FORGE_BIN, GIT_IDENTITY, simulated } from '../execution/fixture.js';
import { type SseFrame, sseFrames } from '../server/sse-client.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL, testSchemas } from '../store/postgres.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
const TOKEN = 'test-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };

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
    const schemas = testSchemas();
    const prefixes = testPrefixes();
    const children: ChildProcess[] = [];
    const dirs: string[] = [];
    afterEach(async () => {
      for (const child of children.splice(0)) {
        if (child.exitCode !== null || child.signalCode !== null) continue;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    });

    /** A process of the bin and what it printed; `ready` resolves to the first match of `started` in its stdout. */
    function start(args: readonly string[], started: RegExp, env: Record<string, string> = {}) {
      const child = spawn(process.execPath, [BIN, ...args], {
        env: { PATH: process.env.PATH, HARMFLOW_TOKEN: TOKEN, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      const printed = { out: '', err: '' };
      child.stderr?.on('data', (chunk: Buffer) => {
        printed.err += String(chunk);
      });
      const ready = new Promise<string>((resolve, reject) => {
        child.stdout?.on('data', (chunk: Buffer) => {
          printed.out += String(chunk);
          const found = started.exec(printed.out)?.[1];
          if (found) resolve(found);
        });
        child.once('exit', () => reject(new Error(`${args[0]} did not start: ${printed.out}${printed.err}`)));
      });
      return { child, printed, ready };
    }

    function cluster() {
      const schema = schemas.newSchema();
      const prefix = prefixes.newPrefix();
      const shared = [
        '--store',
        TEST_POSTGRES_URL,
        '--queue',
        TEST_REDIS_URL,
        '--schema',
        schema,
        '--queue-prefix',
        prefix,
      ];
      const home = () => {
        const dir = mkdtempSync(join(tmpdir(), 'harmflow-serve-cluster-'));
        dirs.push(dir);
        return dir;
      };
      const apiNode = () =>
        start(
          ['serve', '--port', '0', '--home', home(), ...shared],
          /^HarmFlow API node \(cluster mode\) on (http:\/\/127\.0\.0\.1:\d+)/m,
        );
      return { schema, prefix, shared, home, apiNode };
    }

    it('names the mode at start and takes a submit over HTTP into the store and the queue', {
      timeout: 30_000,
    }, async () => {
      const { schema, prefix, apiNode } = cluster();
      const node = apiNode();
      const url = await node.ready;

      const { remote } = await newRemote();
      const body = JSON.stringify({
        task: { name: 'fix', repo: remote, baseRef: 'main', prompt: 'Fix it.', harness: 'codex' },
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
      expect(admission).toEqual({ mode: 'cluster', queue: { waiting: 1, active: 0, delayed: 0 } });

      const exited = new Promise<number | null>((resolve) => node.child.once('exit', resolve));
      node.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(node.printed.out).toMatch(/stopped\n$/);
      expect(node.printed.err).toBe('');
    });

    it('runs a task submitted to one API node on a worker, and streams its events from another to the end', {
      timeout: 60_000,
    }, async () => {
      const { shared, home, apiNode } = cluster();
      const folder = home();
      const scenario = join(folder, 'codex.scenario.yaml');
      writeFileSync(scenario, stringify({ steps: [{ say: 'hello from the worker' }, { end: 'complete' }] }));
      const env = { ...GIT_IDENTITY, HARMFLOW_FORGE_DIR: folder };
      const worker = start(
        ['worker', '--home', home(), '--worker-id', 'w1', ...shared],
        /^(worker w1 taking executions)/m,
        { ...env, PATH: `${FORGE_BIN}${delimiter}${process.env.PATH ?? ''}` },
      );
      const [first, second] = [apiNode(), apiNode()];
      const [url1, url2] = await Promise.all([first.ready, second.ready]);
      await worker.ready;

      const { remote } = await newRemote();
      const task = {
        name: 'e2e',
        repo: `file://${remote}`,
        baseRef: 'main',
        prompt: 'hi',
        harness: simulated('codex', scenario),
      };
      const submitted = await fetch(`${url1}/api/executions`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ task }),
      });
      expect(submitted.status).toBe(201);
      const { execution } = (await submitted.json()) as { execution: { id: string } };

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
