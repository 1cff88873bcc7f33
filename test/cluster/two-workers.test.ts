/**
 * Issue 9's end-to-end case, with the nodes as users start them (the built bin; `npx tsc -p
 * tsconfig.build.json` first): two `harmflow worker` processes and two `harmflow serve --store …
 * --queue …` API nodes over the test PostgreSQL and Redis, the simulator playing the harness. A task is
 * submitted to the first API node; a client streams its events from the second from the start; the
 * worker that took it is SIGKILLed mid-turn, after a commit. The other worker carries it on, with the
 * production lock and lease settings (a take-over within 25 s), and it ends as one execution:
 * attempt 1 crashed, attempt 2 completed, one `execution.started`, and the client has seen every
 * record once, in order, the same records as the PostgreSQL mirror holds.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { openExecutionLeases } from '../../src/cluster/lease.js';
import { openPgEventSource } from '../../src/events/mirror/event-source.js';
import { signalGroup } from '../../src/proc/group.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { simulated } from '../execution/fixture.js';
import { type SseFrame, sseFrames } from '../server/sse-client.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL } from '../store/postgres.js';
import { AUTH, submitTask, testClusters } from './cluster-processes.js';
import { waitFor } from './fixture.js';
import { REDIS_AVAILABLE } from './redis.js';
import { CLUSTER_IDENTITY, newRemote } from './workspace-fixture.js';

describe.runIf(POSTGRES_AVAILABLE && REDIS_AVAILABLE)('a cluster of two workers and two API nodes', () => {
  const clusters = testClusters();

  it('finishes the execution of a worker SIGKILLed mid-turn on the other worker, as one execution, streamed whole from the other API node', {
    timeout: 150_000,
  }, async () => {
    const cluster = clusters.newCluster();
    const folder = cluster.dir();
    const scenario = join(folder, 'codex.scenario.yaml');
    // The first attempt commits, then its harness hangs: the worker dies mid-turn.
    writeFileSync(
      scenario,
      stringify({ steps: [{ write: { path: 'b.txt', content: 'b\n' } }, { commit: 'Add b' }, { end: 'hang' }] }),
    );
    const env = { HARMFLOW_FORGE_DIR: folder };
    const workers = [cluster.worker('w1', env), cluster.worker('w2', env)];
    const [first, second] = [cluster.apiNode(), cluster.apiNode()];
    const [url1, url2] = await Promise.all([first.ready, second.ready]);
    await Promise.all(workers.map((worker) => worker.ready));

    const options = { schema: cluster.schema };
    const store = await openPostgresStore(TEST_POSTGRES_URL, options);
    const leases = await openExecutionLeases(TEST_POSTGRES_URL, options);
    const mirror = await openPgEventSource(TEST_POSTGRES_URL, options);
    let leftover: number | undefined;
    try {
      const { remote } = await newRemote();
      const task = {
        name: 'two-workers',
        repo: `file://${remote}`,
        baseRef: 'main',
        prompt: 'Add b.',
        harness: { ...simulated('codex', scenario), env: CLUSTER_IDENTITY },
      };
      const id = await submitTask(url1, task);

      // The client streams from the second API node from the first record to `execution.ended`.
      const frames: SseFrame[] = [];
      const streamed = (async () => {
        const stream = await fetch(`${url2}/api/executions/${id}/events`, { headers: AUTH });
        expect(stream.status).toBe(200);
        for await (const frame of sseFrames(stream)) if (frame.comment === undefined) frames.push(frame);
      })();

      // Mid-turn: the commit is in the mirror and the harness hangs.
      await waitFor(
        'the commit in the mirror',
        async () => {
          const read = await mirror.read(id, 0);
          return read.some((record) => record.line.includes('"kind":"commit"')) ? true : undefined;
        },
        60_000,
      );
      const holder = await leases.leaseHolder(id);
      const doomed = workers.find(
        (worker) => holder !== undefined && worker.printed.out.includes(`worker ${holder.worker} `),
      );
      if (doomed === undefined) throw new Error(`no worker holds execution ${id}: ${JSON.stringify(holder)}`);
      const survivor = workers.find((worker) => worker !== doomed);
      leftover = Number(readFileSync(join(doomed.home, 'runs', id, 'attempts', '1', 'pgid'), 'utf8'));
      writeFileSync(
        scenario,
        stringify({ steps: [{ write: { path: 'c.txt', content: 'c\n' } }, { commit: 'Add c' }, { end: 'complete' }] }),
      );
      doomed.child.kill('SIGKILL');
      await doomed.exited;
      // Its harness is left running, as on a lost machine; the test stops it.
      signalGroup(leftover, 'SIGKILL');

      await waitFor(
        'the execution to succeed on the other worker',
        async () => ((await store.getExecution(id))?.state === 'succeeded' ? true : undefined),
        90_000,
      );
      await streamed;

      const attempts = await store.listAttempts(id);
      expect(attempts.map((attempt) => [attempt.number, attempt.outcome])).toEqual([
        [1, 'crashed'],
        [2, 'completed'],
      ]);

      // Every record once, in order, as the mirror holds them; one execution from start to end.
      const lines: string[] = [];
      for (let read = await mirror.read(id, 0); read.length > 0; read = await mirror.read(id, lines.length)) {
        lines.push(...read.map((record) => record.line));
      }
      expect(frames[0]).toEqual({ event: 'connected', data: JSON.stringify({ execution: id, from: 0 }) });
      const records = frames.slice(1);
      expect(records.map((frame) => frame.id)).toEqual(lines.map((_, index) => String(index + 1)));
      expect(records.map((frame) => JSON.parse(frame.data ?? ''))).toEqual(lines.map((line) => JSON.parse(line)));
      const types = lines.map((line) => (JSON.parse(line) as { type: string }).type);
      expect(types.filter((type) => type === 'execution.started')).toHaveLength(1);
      expect(types.filter((type) => type === 'execution.ended')).toHaveLength(1);
      expect(types.at(-1)).toBe('execution.ended');
      // What the lost attempt did is in the context any API node serves: attempt 1 crashed, on codex.
      const context = (await (await fetch(`${url1}/api/executions/${id}/context`, { headers: AUTH })).json()) as {
        attempts: { number: number; harness: string; outcome: string }[];
      };
      expect(context.attempts.map(({ number, harness, outcome }) => ({ number, harness, outcome }))).toEqual([
        { number: 1, harness: 'codex', outcome: 'crashed' },
        { number: 2, harness: 'codex', outcome: 'completed' },
      ]);
      expect(survivor?.printed.err).toBe('');
    } finally {
      if (leftover !== undefined) signalGroup(leftover, 'SIGKILL');
      await mirror.close();
      await leases.close();
      await store.close();
    }
  });
});
