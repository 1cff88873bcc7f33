/**
 * The crash test: `harmflow serve` runs as a child process with several simulated executions and
 * queued messages, and is killed with SIGKILL at random points, 20 times in a row, restarted each
 * time. Afterwards every acknowledged message was delivered (no loss, no skip), none twice except as
 * a marked redelivery, the interrupted turns were marked redelivered, and every execution finished.
 * The random points come from a seeded generator; the seed is in the test's name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/events/log.js';
import { type Bench, GIT_IDENTITY, makeBench, simulated } from '../execution/fixture.js';
import { seededRandom } from '../seeded-random.js';
import { type Daemon, startDaemon } from './daemon.js';

const KILLS = 20;
const EXECUTIONS = 3;
const SEED = 20_261_129;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let bench: Bench;
let daemon: Daemon | undefined;
const ARGS = ['--max-running', '4', '--disk-floor-gib', '0', '--interrupt-budget', '1s', '--close-budget', '3s'];

beforeAll(() => {
  bench = makeBench();
});
afterAll(async () => {
  await daemon?.kill('SIGKILL');
  await bench.cleanup();
});

describe('the service under SIGKILL', () => {
  it(`delivers every message exactly once across ${KILLS} kills at random points (seed ${SEED})`, {
    timeout: 180_000,
  }, async () => {
    const next = seededRandom(SEED);
    const env = { ...process.env, ...GIT_IDENTITY };
    const start = async () => {
      daemon = await startDaemon(bench.home.root, ARGS, env);
      return daemon;
    };
    let live = await start();
    const scenario = bench.scenario('turn', {
      pace: '120ms',
      steps: [{ say: 'reading' }, { say: 'editing' }, { say: 'testing' }, { end: 'complete' }],
    });
    /** Turn ids the service acknowledged, per execution. */
    const acknowledged = new Map<string, string[]>();
    const send = async (id: string, text: string) => {
      const sent = await live.api('POST', `/api/executions/${id}/messages`, { text });
      if (sent.status === 202) acknowledged.get(id)?.push((sent.body as { turn: { id: string } }).turn.id);
      else expect(sent.status).toBe(409); // it had ended: refused, not lost
    };
    for (let n = 0; n < EXECUTIONS; n++) {
      const harness = n % 2 === 0 ? 'claude-code' : 'codex';
      const task = {
        name: `crash-${n}`,
        repo: bench.repo,
        baseRef: 'main',
        prompt: `Task ${n}.`,
        harness: simulated(harness, scenario),
      };
      const created = await live.api('POST', '/api/executions', { task });
      expect(created.status).toBe(201);
      const id = (created.body as { execution: { id: string } }).execution.id;
      acknowledged.set(id, ['t1']);
      await send(id, `first follow-up of ${n}`);
      await send(id, `second follow-up of ${n}`);
    }
    const ids = [...acknowledged.keys()];

    for (let kill = 0; kill < KILLS; kill++) {
      await sleep(150 + Math.floor(next() * 600));
      if (kill % 3 === 0) {
        const id = ids[Math.floor(next() * ids.length)] as string;
        await send(id, `message sent before kill ${kill}`);
      }
      await live.kill('SIGKILL');
      live = await start();
    }
    for (;;) {
      const listed = await live.api('GET', '/api/executions?state=live');
      if ((listed.body as { executions: unknown[] }).executions.length === 0) break;
      await sleep(200);
    }
    await live.kill('SIGTERM');

    let redeliveries = 0;
    for (const id of ids) {
      const records = readEvents(bench.home.eventsFile(id));
      const ended = records.filter((record) => record.type === 'execution.ended');
      expect(ended.map((record) => record.type === 'execution.ended' && record.data.state)).toEqual(['succeeded']);
      const starts = records.flatMap((record) => (record.type === 'turn.started' ? [record.data] : []));
      const marked = records.flatMap((record) => (record.type === 'turn.redelivered' ? [record.data.turn] : []));
      const completed = records.flatMap((record) =>
        record.type === 'turn.ended' && record.data.outcome === 'completed' ? [record.data.turn] : [],
      );
      // Every acknowledged message was delivered, in the order it was queued, and completed.
      const order = [...new Set(starts.map((start) => start.turn))];
      expect(order).toEqual(acknowledged.get(id));
      for (const turn of order) expect(completed).toContain(turn);
      for (const turn of order) {
        const deliveries = starts.filter((start) => start.turn === turn);
        // Delivered at most once unmarked; every other delivery is a marked redelivery.
        expect(deliveries.filter((start) => start.delivery !== 'redelivered').length).toBeLessThanOrEqual(1);
        const again = deliveries.filter((start) => start.delivery === 'redelivered').length;
        expect(marked.filter((marker) => marker === turn)).toHaveLength(again);
        // A turn completed twice only when it was redelivered (the kill fell after it ended).
        expect(completed.filter((done) => done === turn).length).toBeLessThanOrEqual(1 + again);
        redeliveries += again;
      }
    }
    expect(redeliveries).toBeGreaterThan(0);
  });
});
