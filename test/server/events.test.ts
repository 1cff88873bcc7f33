import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HomePaths, harmflowHome } from '../../src/core/home.js';
import { newExecutionId } from '../../src/core/ids.js';
import type { ExecutionState } from '../../src/core/outcome.js';
import { type EventLog, openEventLog, readEvents } from '../../src/events/log.js';
import { eventsRoute } from '../../src/server/routes/events.js';
import type { ExecutionRecord } from '../../src/store/store.js';
import { listen, type SseFrame, sseFrames } from './sse-client.js';

let dir: string;
let home: HomePaths;
let executions: Map<string, ExecutionRecord>;
let server: { url: string; close: () => Promise<void> };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'harmflow-events-'));
  home = harmflowHome(dir);
  executions = new Map();
  const store = { getExecution: async (id: string) => executions.get(id) };
  server = await listen(new Hono().route('/', eventsRoute({ home, store, heartbeatMs: 100 })));
});

afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function execution(state: ExecutionState): { id: string; log: EventLog } {
  const id = newExecutionId();
  setState(id, state);
  return { id, log: openEventLog(home.eventsFile(id), { execution: id }) };
}

function setState(id: string, state: ExecutionState): void {
  executions.set(id, {
    id,
    taskId: 't',
    taskName: 'task',
    repo: '/repo',
    baseRef: 'main',
    baseSha: 'abc',
    branch: 'b',
    worktree: '/w',
    runDir: home.runDir(id),
    state,
    createdAt: new Date().toISOString(),
    deadline: new Date().toISOString(),
    attemptCount: 1,
  });
}

const warn = (log: EventLog, message: string) => log.append({ source: 'executor', type: 'warning', data: { message } });
const end = (log: EventLog) =>
  log.append({ source: 'executor', type: 'execution.ended', data: { state: 'succeeded', attempts: 1, durationMs: 1 } });

function open(id: string, query = '', headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(`${server.url}/api/executions/${id}/events${query}`, { headers, ...(signal && { signal }) });
}

/** Reads frames until the stream ends, skipping heartbeats. */
async function readAll(response: Response): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  for await (const frame of sseFrames(response)) if (frame.comment === undefined) frames.push(frame);
  return frames;
}

const messages = (frames: SseFrame[]) =>
  frames.filter((f) => f.event === undefined).map((f) => [f.id, JSON.parse(f.data ?? '').data.message ?? 'END']);

describe('GET /api/executions/:id/events', () => {
  it('replays an ended execution from disk, then ends', { timeout: 5000 }, async () => {
    const { id, log } = execution('succeeded');
    warn(log, 'a');
    warn(log, 'b');
    end(log);
    log.close();
    const response = await open(id);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const frames = await readAll(response);
    expect(frames[0]).toEqual({ event: 'connected', data: JSON.stringify({ execution: id, from: 0 }) });
    expect(messages(frames)).toEqual([
      ['1', 'a'],
      ['2', 'b'],
      ['3', 'END'],
    ]);
  });

  it('delivers live appends and ends after execution.ended; heartbeats keep a quiet stream alive', {
    timeout: 5000,
  }, async () => {
    const { id, log } = execution('running');
    warn(log, 'before');
    const frames = sseFrames(await open(id));
    expect((await frames.next()).value).toMatchObject({ event: 'connected' });
    expect((await frames.next()).value).toMatchObject({ id: '1' });
    expect((await frames.next()).value).toEqual({ comment: 'heartbeat' });
    warn(log, 'live');
    expect(messages([(await frames.next()).value as SseFrame])).toEqual([['2', 'live']]);
    end(log);
    log.close();
    const rest = [];
    for await (const frame of frames) if (frame.comment === undefined) rest.push(frame);
    expect(messages(rest)).toEqual([['3', 'END']]);
  });

  it('skips `from` records, and Last-Event-ID wins over from', { timeout: 5000 }, async () => {
    const { id, log } = execution('succeeded');
    for (const m of ['a', 'b', 'c', 'd']) warn(log, m);
    end(log);
    log.close();
    const fromQuery = await readAll(await open(id, '?from=2'));
    expect(fromQuery[0]?.data).toBe(JSON.stringify({ execution: id, from: 2 }));
    expect(messages(fromQuery)).toEqual([
      ['3', 'c'],
      ['4', 'd'],
      ['5', 'END'],
    ]);
    const both = await readAll(await open(id, '?from=1', { 'Last-Event-ID': '4' }));
    expect(messages(both)).toEqual([['5', 'END']]);
    expect(await readAll(await open(id, '?from=9'))).toHaveLength(1); // only `connected`
  });

  it('gives a client that disconnects at random points every record exactly once, in order', {
    timeout: 15_000,
  }, async () => {
    const total = 300;
    const { id, log } = execution('running');
    const writer = (async () => {
      for (let n = 1; n <= total; n++) {
        warn(log, String(n));
        if (n % 7 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      }
      end(log);
      log.close();
      setState(id, 'succeeded'); // later reconnects replay from disk
    })();
    let seed = Date.now() % 2 ** 31;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const startSeed = seed;
    const received: string[] = [];
    let lastId: string | undefined;
    let connections = 0;
    let ended = false;
    const deadline = Date.now() + 10_000;
    while (!ended && Date.now() < deadline) {
      connections += 1;
      const controller = new AbortController();
      const budget = 1 + Math.floor(random() * 40);
      const response = await open(id, '', lastId === undefined ? {} : { 'Last-Event-ID': lastId }, controller.signal);
      let taken = 0;
      try {
        for await (const frame of sseFrames(response)) {
          if (frame.id === undefined) continue;
          const record = JSON.parse(frame.data ?? '');
          received.push(record.type === 'execution.ended' ? 'END' : record.data.message);
          lastId = frame.id;
          if (record.type === 'execution.ended') ended = true;
          if (++taken >= budget) break;
        }
      } finally {
        controller.abort();
      }
    }
    await writer;
    const expected = [...Array.from({ length: total }, (_, i) => String(i + 1)), 'END'];
    expect(received, `seed ${startSeed}`).toEqual(expected);
    expect(lastId).toBe(String(total + 1));
    expect(connections).toBeGreaterThan(5);
  });

  it('holds a torn last line until its newline arrives', { timeout: 5000 }, async () => {
    const { id, log } = execution('running');
    warn(log, 'whole');
    const line = JSON.stringify({
      ts: new Date().toISOString(),
      execution: id,
      source: 'gate',
      type: 'warning',
      data: { message: 'torn' },
    });
    appendFileSync(log.path, line.slice(0, 20));
    const frames = sseFrames(await open(id));
    await frames.next(); // connected
    expect(messages([(await frames.next()).value as SseFrame])).toEqual([['1', 'whole']]);
    // Only heartbeats (every 100 ms) while the line is torn.
    expect((await frames.next()).value).toEqual({ comment: 'heartbeat' });
    expect((await frames.next()).value).toEqual({ comment: 'heartbeat' });
    appendFileSync(log.path, `${line.slice(20)}\n`);
    let next = (await frames.next()).value as SseFrame;
    while (next.comment !== undefined) next = (await frames.next()).value as SseFrame;
    expect(messages([next])).toEqual([['2', 'torn']]);
    end(log);
    log.close();
    for await (const _ of frames); // ends
  });

  it('skips garbage and oversized records, numbering as the log does', { timeout: 5000 }, async () => {
    const { id, log } = execution('succeeded');
    warn(log, 'a');
    appendFileSync(log.path, 'not json\n{"type":"warning"}\n');
    warn(log, 'x'.repeat(1024 * 1024 + 1)); // a valid record, too big to send
    warn(log, 'c');
    end(log);
    log.close();
    // The log numbers valid records only: a=1, big=2, c=3, end=4.
    expect(readEvents(log.path, { from: 2 }).map((r) => r.type)).toEqual(['warning', 'execution.ended']);
    expect(messages(await readAll(await open(id)))).toEqual([
      ['1', 'a'],
      ['3', 'c'],
      ['4', 'END'],
    ]);
    expect(messages(await readAll(await open(id, '?from=2')))).toEqual([
      ['3', 'c'],
      ['4', 'END'],
    ]);
  });

  it('refuses a bad position or id with 400 and an unknown execution with 404', async () => {
    const { id, log } = execution('running');
    log.close();
    for (const [query, headers] of [
      ['?from=-1', {}],
      ['?from=1.5', {}],
      ['?from=abc', {}],
      ['?from=', {}],
      ['', { 'Last-Event-ID': 'x' }],
      ['?from=1', { 'Last-Event-ID': '-2' }],
    ] as const) {
      const response = await open(id, query, headers);
      expect(response.status, `${query} ${JSON.stringify(headers)}`).toBe(400);
      expect(((await response.json()) as { error: { name: string } }).error.name).toBe('UsageError');
    }
    const traversal = await fetch(`${server.url}/api/executions/..%2F..%2Fetc/events`);
    expect(traversal.status).toBe(400);
    const unknown = await open(newExecutionId());
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { name: 'NotFoundError' } });
  });
});
