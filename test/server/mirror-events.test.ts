/**
 * The events route of cluster mode, over a real PostgreSQL schema: records are mirrored with
 * EventMirror.append (as a worker mirrors them) while clients stream them from PgEventSource through
 * `mirrorEventsRoute`, served on a loopback socket.
 */
import { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newExecutionId } from '../../src/core/ids.js';
import type { ExecutionState } from '../../src/core/outcome.js';
import type { EventDraft } from '../../src/events/log.js';
import { type EventMirror, openEventMirror } from '../../src/events/mirror/event-mirror.js';
import { openPgEventSource, type PgEventSource } from '../../src/events/mirror/event-source.js';
import { mirrorEventsRoute } from '../../src/server/routes/mirror-events.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { Store } from '../../src/store/store.js';
import { ended, logDirectory, message, writeLog } from '../events/mirror/logs.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL, testSchemas } from '../store/postgres.js';
import { executionRecord } from './fixture.js';
import { listen, type SseFrame, sseFrames } from './sse-client.js';

const reopened: EventDraft = {
  source: 'executor',
  type: 'execution.reopened',
  data: { deadline: '2030-01-01T00:00:00.000Z' },
};

/** A follow-up queued on a succeeded execution: recorded before the execution is reopened for it. */
const queued: EventDraft = {
  source: 'executor',
  type: 'message.queued',
  data: { turn: 't2', text: 'one more thing', queued: 1 },
};

describe.runIf(POSTGRES_AVAILABLE)('GET /api/executions/:id/events from the PostgreSQL mirror', () => {
  const schemas = testSchemas();
  const logs = logDirectory();
  let store: Store;
  let mirror: EventMirror;
  let source: PgEventSource;
  let server: { url: string; close: () => Promise<void> };

  beforeEach(async () => {
    const schema = schemas.newSchema();
    store = await openPostgresStore(TEST_POSTGRES_URL, { schema });
    mirror = await openEventMirror(TEST_POSTGRES_URL, { schema });
    source = await openPgEventSource(TEST_POSTGRES_URL, { schema });
    await store.insertTask({
      id: 'task-1',
      name: 'fix-login',
      definition: { prompt: 'hi' },
      createdAt: '2025-03-01T10:00:00.000Z',
    });
    const route = mirrorEventsRoute({ source, store, heartbeatMs: 100, settleMs: 400 });
    server = await listen(new Hono().route('/', route));
  });

  afterEach(async () => {
    await server.close();
    await Promise.all([source.close(), mirror.close(), store.close()]);
  });

  /** An execution in `state` whose log holds `drafts`; returns its id and the log's lines (not mirrored yet). */
  async function execution(
    state: ExecutionState,
    drafts: readonly EventDraft[],
  ): Promise<{ id: string; lines: string[] }> {
    const id = newExecutionId();
    await store.insertExecution(executionRecord(id, state));
    return { id, lines: writeLog(logs.path(id), id, drafts) };
  }

  async function mirrorLines(id: string, lines: readonly string[], from: number, to = lines.length): Promise<void> {
    for (let position = from; position < to; position++) {
      await mirror.append(id, position, lines[position] as string);
    }
  }

  function open(id: string, query = '', headers: Record<string, string> = {}) {
    return fetch(`${server.url}/api/executions/${id}/events${query}`, { headers });
  }

  /** The frames of a stream to its end, heartbeats left out; fails the test if it does not end in time. */
  async function readAll(response: Response, timeoutMs = 4000): Promise<SseFrame[]> {
    const frames: SseFrame[] = [];
    const reading = (async () => {
      for await (const frame of sseFrames(response)) if (frame.comment === undefined) frames.push(frame);
    })();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the stream did not end within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([reading, late]);
    } finally {
      clearTimeout(timer);
    }
    return frames;
  }

  /** `[id, text]` of each record frame; `END` for execution.ended, `REOPENED` for execution.reopened. */
  const records = (frames: SseFrame[]) =>
    frames
      .filter((frame) => frame.event === undefined)
      .map((frame) => {
        const record = JSON.parse(frame.data ?? '') as { type: string; data: { text?: string } };
        const text =
          record.type === 'execution.ended'
            ? 'END'
            : record.type === 'execution.reopened'
              ? 'REOPENED'
              : record.data.text;
        return [frame.id, text];
      });

  it('streams records mirrored while the client reads, in order with id = position + 1, and ends after execution.ended', {
    timeout: 10_000,
  }, async () => {
    const { id, lines } = await execution('running', [message('a'), message('b'), message('c'), message('d'), ended]);
    await mirrorLines(id, lines, 0, 2);
    const response = await open(id);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const all = readAll(response);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await mirrorLines(id, lines, 2, 4);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await mirrorLines(id, lines, 4);
    const frames = await all;
    expect(frames[0]).toEqual({ event: 'connected', data: JSON.stringify({ execution: id, from: 0 }) });
    expect(records(frames)).toEqual([
      ['1', 'a'],
      ['2', 'b'],
      ['3', 'c'],
      ['4', 'd'],
      ['5', 'END'],
    ]);
  });

  it('resumes from Last-Event-ID (which wins over ?from) with the rest, once, in order', {
    timeout: 10_000,
  }, async () => {
    const { id, lines } = await execution('running', [message('a'), message('b'), message('c'), message('d'), ended]);
    await mirrorLines(id, lines, 0, 3);
    const controller = new AbortController();
    const first = await fetch(`${server.url}/api/executions/${id}/events`, { signal: controller.signal });
    const seen: SseFrame[] = [];
    for await (const frame of sseFrames(first)) {
      if (frame.comment !== undefined || frame.event !== undefined) continue;
      seen.push(frame);
      if (seen.length === 2) break;
    }
    controller.abort();
    expect(records(seen)).toEqual([
      ['1', 'a'],
      ['2', 'b'],
    ]);
    const again = readAll(await open(id, '?from=0', { 'Last-Event-ID': '2' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await mirrorLines(id, lines, 3);
    const frames = await again;
    expect(frames[0]).toEqual({ event: 'connected', data: JSON.stringify({ execution: id, from: 2 }) });
    expect(records(frames)).toEqual([
      ['3', 'c'],
      ['4', 'd'],
      ['5', 'END'],
    ]);
  });

  it("ends an ended execution's stream at its execution.ended, and at once when the client is past it", {
    timeout: 10_000,
  }, async () => {
    const { id, lines } = await execution('succeeded', [message('a'), ended]);
    await mirrorLines(id, lines, 0);
    expect(records(await readAll(await open(id)))).toEqual([
      ['1', 'a'],
      ['2', 'END'],
    ]);
    const started = performance.now();
    const past = await readAll(await open(id, '?from=2'));
    expect(records(past)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(300); // not the 400 ms settle
  });

  it('goes on past execution.ended when a reopening follows it, to the last execution.ended', {
    timeout: 10_000,
  }, async () => {
    const { id, lines } = await execution('succeeded', [message('a'), ended, reopened, message('b'), ended]);
    await mirrorLines(id, lines, 0);
    expect(records(await readAll(await open(id)))).toEqual([
      ['1', 'a'],
      ['2', 'END'],
      ['3', 'REOPENED'],
      ['4', 'b'],
      ['5', 'END'],
    ]);
  });

  it('sends the records between execution.ended and a reopening, from any position, once, in order', {
    timeout: 20_000,
  }, async () => {
    const { id, lines } = await execution('succeeded', [message('a'), ended, queued, reopened, message('b'), ended]);
    await mirrorLines(id, lines, 0);
    const all = records(await readAll(await open(id)));
    expect(all).toEqual([
      ['1', 'a'],
      ['2', 'END'],
      ['3', 'one more thing'],
      ['4', 'REOPENED'],
      ['5', 'b'],
      ['6', 'END'],
    ]);
    for (let from = 1; from < all.length; from++) {
      const resumed = records(await readAll(await open(id, '', { 'Last-Event-ID': String(from) })));
      expect(resumed, `from ${from}`).toEqual(all.slice(from));
    }
  });

  it('follows a live client on past execution.ended when a follow-up is mirrored after it', {
    timeout: 10_000,
  }, async () => {
    const { id, lines } = await execution('running', [message('a'), ended, queued, reopened, message('b'), ended]);
    await mirrorLines(id, lines, 0, 3);
    const all = readAll(await open(id));
    await new Promise((resolve) => setTimeout(resolve, 150));
    await mirrorLines(id, lines, 3);
    expect(records(await all)).toEqual([
      ['1', 'a'],
      ['2', 'END'],
      ['3', 'one more thing'],
      ['4', 'REOPENED'],
      ['5', 'b'],
      ['6', 'END'],
    ]);
  });

  it("waits for an ended execution's lagging mirror, and ends one that gets nothing within the settle time", {
    timeout: 10_000,
  }, async () => {
    const { id, lines } = await execution('succeeded', [message('a'), ended]);
    await mirrorLines(id, lines, 0, 1);
    const lagging = readAll(await open(id));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await mirrorLines(id, lines, 1);
    expect(records(await lagging)).toEqual([
      ['1', 'a'],
      ['2', 'END'],
    ]);

    const lost = await execution('failed', [message('x')]);
    const started = performance.now();
    expect(records(await readAll(await open(lost.id)))).toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(350);
  });

  it('sends heartbeats while a live execution is quiet', { timeout: 10_000 }, async () => {
    const { id } = await execution('running', []);
    const controller = new AbortController();
    const response = await fetch(`${server.url}/api/executions/${id}/events`, { signal: controller.signal });
    let heartbeats = 0;
    for await (const frame of sseFrames(response)) {
      if (frame.comment === 'heartbeat') heartbeats += 1;
      if (heartbeats === 2) break;
    }
    controller.abort();
    expect(heartbeats).toBe(2);
  });

  it('answers 400 for a bad position or id and 404 for an unknown execution', async () => {
    const { id } = await execution('running', []);
    const bad = await open(id, '?from=-1');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { name: string } }).error.name).toBe('UsageError');
    expect((await open(id, '', { 'Last-Event-ID': 'x' })).status).toBe(400);
    expect((await open('not-an-id')).status).toBe(400);
    const unknown = await open(newExecutionId());
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { name: string } }).error.name).toBe('NotFoundError');
  });
});
