/**
 * The events route over a real execution that succeeds and is reopened by a follow-up (issue 21
 * item 6): a service bench runs it with the simulator while clients stream its `events.jsonl`. The
 * records written between the first `execution.ended` and `execution.reopened` (the follow-up's
 * `message.queued`, and whatever the service records while the execution waits for its slot) must
 * reach every client: each record once, in order, ids 1..N, the log's records line for line.
 */
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/events/log.js';
import type { EventRecord } from '../../src/events/schema.js';
import { eventsRoute } from '../../src/server/routes/events.js';
import { simulated } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench, until } from '../service/bench.js';
import { listen, sseFrames } from './sse-client.js';

let bench: ServiceBench | undefined;
let server: { url: string; close: () => Promise<void> } | undefined;
afterEach(async () => {
  await server?.close();
  await bench?.cleanup();
  server = undefined;
  bench = undefined;
});

/** A record as a client received it: its SSE id and the record. */
interface Received {
  readonly id: number;
  readonly record: EventRecord;
}

/**
 * A client that follows the stream of `id` from `from` as a browser's would: it reconnects with
 * Last-Event-ID whenever the server ends the stream, until `done()` holds once a stream has ended.
 */
async function follow(url: string, id: string, from: number, done: () => boolean): Promise<Received[]> {
  const received: Received[] = [];
  let last = from;
  for (;;) {
    const response = await fetch(`${url}/api/executions/${id}/events`, { headers: { 'Last-Event-ID': String(last) } });
    for await (const frame of sseFrames(response)) {
      if (frame.id === undefined) continue;
      last = Number(frame.id);
      received.push({ id: last, record: JSON.parse(frame.data ?? '') as EventRecord });
    }
    if (done()) return received;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The ids 1..count. */
const ids = (from: number, count: number) => Array.from({ length: count - from }, (_, index) => from + index + 1);

describe('the event stream of an execution reopened by a follow-up', () => {
  it('gives a following client, and one resuming from any id, every record once and in order', {
    timeout: 60_000,
  }, async () => {
    const service = makeServiceBench();
    bench = service;
    const listening = await listen(
      new Hono().route('/', eventsRoute({ home: service.home, store: service.store, heartbeatMs: 100 })),
    );
    server = listening;
    const scenario = service.scenario('done', { steps: [{ say: 'Done.' }, { end: 'complete' }] });
    const execution = await service.registry.submit(service.task({ harness: simulated('claude-code', scenario) }));
    let settled = false;
    const ended = () => service.events(execution.id).filter((record) => record.type === 'execution.ended').length;
    const following = follow(listening.url, execution.id, 0, () => settled && ended() === 2);

    await service.registry.settled();
    expect((await service.store.getExecution(execution.id))?.state).toBe('succeeded');
    await until(() => ended() === 1);
    await service.registry.send(execution.id, 'one more thing');
    await service.registry.settled();
    settled = true;

    const log = readEvents(service.home.eventsFile(execution.id));
    const types = log.map((record) => record.type);
    const reopenedAt = types.indexOf('execution.reopened');
    expect(types.indexOf('message.queued')).toBeGreaterThan(types.indexOf('execution.ended'));
    expect(reopenedAt).toBeGreaterThan(types.indexOf('message.queued'));

    const followed = await following;
    expect(followed.map((item) => item.id)).toEqual(ids(0, log.length));
    expect(followed.map((item) => item.record)).toEqual(log);

    // A client resuming from any id after the fact (the execution has ended: one connection each).
    for (let from = 0; from < log.length; from++) {
      const resumed = await follow(listening.url, execution.id, from, () => true);
      expect(
        resumed.map((item) => item.id),
        `from ${from}`,
      ).toEqual(ids(from, log.length));
      expect(resumed.map((item) => item.record)).toEqual(log.slice(from));
    }
  });
});
