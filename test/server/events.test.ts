import { appendFileSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HomePaths, harmflowHome } from '../../src/core/home.js';
import { newExecutionId } from '../../src/core/ids.js';
import type { ExecutionState } from '../../src/core/outcome.js';
import { type EventLog, LOG_START, openEventLog, readEvents } from '../../src/events/log.js';
import { notifyAppended } from '../../src/events/tail.js';
import { eventsRoute } from '../../src/server/routes/events.js';
import { type FeedItem, Feeds } from '../../src/server/sse/feed.js';
import { Outbox, type Sink } from '../../src/server/sse/outbox.js';
import type { ExecutionRecord, Store } from '../../src/store/store.js';
import { listen, type SseFrame, sseFrames } from './sse-client.js';

let dir: string;
let home: HomePaths;
let executions: Map<string, ExecutionRecord>;
let store: Pick<Store, 'getExecution'>;
let server: { url: string; close: () => Promise<void> };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'harmflow-events-'));
  home = harmflowHome(dir);
  executions = new Map();
  store = { getExecution: async (id: string) => executions.get(id) };
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

const queue = (log: EventLog, text: string) =>
  log.append({ source: 'executor', type: 'message.queued', data: { turn: 't2', text, queued: 1 } });
const reopen = (log: EventLog) =>
  log.append({ source: 'executor', type: 'execution.reopened', data: { deadline: '2026-01-01T00:00:00.000Z' } });

/** `[id, text]` of each record frame: a warning's message, a queued message's text, `END`, `REOPENED`. */
const messages = (frames: SseFrame[]) =>
  frames
    .filter((f) => f.event === undefined)
    .map((f) => {
      const record = JSON.parse(f.data ?? '');
      const text =
        record.type === 'execution.ended' ? 'END' : record.type === 'execution.reopened' ? 'REOPENED' : undefined;
      return [f.id, text ?? record.data.message ?? record.data.text];
    });

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

  it('replays a reopened execution past its first execution.ended, to its last', { timeout: 5000 }, async () => {
    const { id, log } = execution('succeeded');
    warn(log, 'a');
    end(log);
    reopen(log);
    warn(log, 'b');
    end(log);
    log.close();
    const frames = await readAll(await open(id));
    expect(messages(frames)).toEqual([
      ['1', 'a'],
      ['2', 'END'],
      ['3', 'REOPENED'],
      ['4', 'b'],
      ['5', 'END'],
    ]);
  });

  it('sends the records between execution.ended and a reopening (a queued follow-up), every id once', {
    timeout: 5000,
  }, async () => {
    const { id, log } = execution('succeeded');
    warn(log, 'a');
    end(log);
    queue(log, 'one more thing');
    queue(log, 'and another');
    reopen(log);
    warn(log, 'b');
    end(log);
    log.close();
    const all = messages(await readAll(await open(id)));
    expect(all).toEqual([
      ['1', 'a'],
      ['2', 'END'],
      ['3', 'one more thing'],
      ['4', 'and another'],
      ['5', 'REOPENED'],
      ['6', 'b'],
      ['7', 'END'],
    ]);
    // A client that resumes anywhere gets the rest of the log, once, in order.
    for (let from = 0; from < all.length; from++) {
      expect(messages(await readAll(await open(id, '', { 'Last-Event-ID': String(from) }))), `from ${from}`).toEqual(
        all.slice(from),
      );
    }
  });

  it('ends after an execution.ended a follow-up waits behind, and the next connection gets the follow-up', {
    timeout: 5000,
  }, async () => {
    const { id, log } = execution('succeeded');
    warn(log, 'a');
    end(log);
    const first = await readAll(await open(id));
    expect(messages(first)).toEqual([
      ['1', 'a'],
      ['2', 'END'],
    ]);
    queue(log, 'one more thing'); // queued on the succeeded execution: it is reopened next
    expect(messages(await readAll(await open(id, '', { 'Last-Event-ID': '2' })))).toEqual([['3', 'one more thing']]);
    setState(id, 'running'); // the engine records the state before it appends execution.reopened
    reopen(log);
    warn(log, 'b');
    const seen: SseFrame[] = [];
    for await (const frame of sseFrames(await open(id, '', { 'Last-Event-ID': '1' }))) {
      if (frame.id !== undefined) seen.push(frame);
      if (frame.data?.includes('"message":"b"')) break;
    }
    expect(messages(seen)).toEqual([
      ['2', 'END'],
      ['3', 'one more thing'],
      ['4', 'REOPENED'],
      ['5', 'b'],
    ]);
    end(log);
    log.close();
  });

  it('keeps a live client on past execution.ended when the records after it arrive with it', {
    timeout: 5000,
  }, async () => {
    const { id, log } = execution('running');
    warn(log, 'a');
    const frames = sseFrames(await open(id));
    expect((await frames.next()).value).toMatchObject({ event: 'connected' });
    expect(messages([(await frames.next()).value as SseFrame])).toEqual([['1', 'a']]);
    // One turn of appends: the feed reads them in one batch.
    end(log);
    queue(log, 'one more thing');
    reopen(log);
    warn(log, 'b');
    const seen: SseFrame[] = [];
    while (seen.length < 4) {
      const frame = (await frames.next()).value as SseFrame | undefined;
      if (frame === undefined) break; // the stream ended
      if (frame.id !== undefined) seen.push(frame);
    }
    expect(messages(seen)).toEqual([
      ['2', 'END'],
      ['3', 'one more thing'],
      ['4', 'REOPENED'],
      ['5', 'b'],
    ]);
    end(log);
    log.close();
    const rest: SseFrame[] = [];
    for await (const frame of frames) if (frame.comment === undefined) rest.push(frame);
    expect(messages(rest)).toEqual([['6', 'END']]);
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
    // A valid record too big to send, as a writer other than `openEventLog` (which cuts records to
    // fit its bound) may leave one.
    const big = { ts: new Date().toISOString(), execution: id, source: 'gate', type: 'warning' };
    appendFileSync(log.path, `${JSON.stringify({ ...big, data: { message: 'x'.repeat(1024 * 1024 + 1) } })}\n`);
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

  it('ends the streams of a feed whose follower fails; they resume on a fresh feed', { timeout: 5000 }, async () => {
    const id = newExecutionId();
    setState(id, 'running'); // its log does not exist yet
    const path = home.eventsFile(id);
    const frames = sseFrames(await open(id));
    expect((await frames.next()).value).toMatchObject({ event: 'connected' });
    // Two heartbeats (100 ms apart): the replay of the missing log (one failed open) is long done, and
    // the feed it started waits for the log.
    expect((await frames.next()).value).toEqual({ comment: 'heartbeat' });
    expect((await frames.next()).value).toEqual({ comment: 'heartbeat' });
    mkdirSync(path, { recursive: true }); // a directory where the log should be: the follower's read fails
    notifyAppended(path); // wakes the follower now rather than at its next poll
    const rest: SseFrame[] = [];
    for await (const frame of frames) rest.push(frame); // ends cleanly: a failed replay would throw here
    expect(rest.every((frame) => frame.comment === 'heartbeat')).toBe(true);

    rmSync(path, { recursive: true });
    const log = openEventLog(path, { execution: id });
    warn(log, 'a');
    const again = sseFrames(await open(id, '', { 'Last-Event-ID': '0' }));
    expect((await again.next()).value).toMatchObject({ event: 'connected' });
    expect(messages([(await again.next()).value as SseFrame])).toEqual([['1', 'a']]);
    warn(log, 'b'); // only a working feed delivers it: the failed one was dropped
    let next = (await again.next()).value as SseFrame;
    while (next.comment !== undefined) next = (await again.next()).value as SseFrame;
    expect(messages([next])).toEqual([['2', 'b']]);
    end(log);
    log.close();
    for await (const _ of again); // ends
  });

  it('resumes a client from where the live feed is, reading only the log after it', { timeout: 5000 }, async () => {
    const { id, log } = execution('running');
    warn(log, 'a');
    warn(log, 'b');
    const first = sseFrames(await open(id));
    expect((await first.next()).value).toMatchObject({ event: 'connected' });
    expect(messages([(await first.next()).value as SseFrame, (await first.next()).value as SseFrame])).toEqual([
      ['1', 'a'],
      ['2', 'b'],
    ]);
    // A heartbeat: the first client's replay has ended, and started the feed after `b`.
    expect((await first.next()).value).toEqual({ comment: 'heartbeat' });
    warn(log, 'c');
    let next = (await first.next()).value as SseFrame;
    while (next.comment !== undefined) next = (await first.next()).value as SseFrame;
    expect(messages([next])).toEqual([['3', 'c']]);
    // Blank out `a` and `b` on disk: a client that read them now would number `c` 1, not 3.
    const prefix = readFileSync(log.path, 'utf8').split('\n').slice(0, 2).join('\n').length;
    const file = openSync(log.path, 'r+');
    writeSync(file, `${' '.repeat(prefix)}\n`, 0);
    closeSync(file);
    const resumed = sseFrames(await open(id, '', { 'Last-Event-ID': '2' }));
    expect((await resumed.next()).value).toMatchObject({ event: 'connected' });
    expect(messages([(await resumed.next()).value as SseFrame])).toEqual([['3', 'c']]);
    end(log);
    log.close();
    const rest: SseFrame[] = [];
    for await (const frame of resumed) if (frame.comment === undefined) rest.push(frame);
    expect(messages(rest)).toEqual([['4', 'END']]);
    for await (const _ of first); // ends
  });

  it('serves the same stream as a web ReadableStream where there is no Node response (app.request)', {
    timeout: 5000,
  }, async () => {
    const app = new Hono().route('/', eventsRoute({ home, store, heartbeatMs: 100 }));
    const { id, log } = execution('running');
    warn(log, 'before');
    const response = await app.request(`/api/executions/${id}/events`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const frames = sseFrames(response);
    expect((await frames.next()).value).toMatchObject({ event: 'connected' });
    expect(messages([(await frames.next()).value as SseFrame])).toEqual([['1', 'before']]);
    warn(log, 'live');
    let next = (await frames.next()).value as SseFrame;
    while (next.comment !== undefined) next = (await frames.next()).value as SseFrame;
    expect(messages([next])).toEqual([['2', 'live']]);
    end(log);
    log.close();
    const rest: SseFrame[] = [];
    for await (const frame of frames) if (frame.comment === undefined) rest.push(frame);
    expect(messages(rest)).toEqual([['3', 'END']]);
  });
});

describe('Feeds', () => {
  /** A line of `events.jsonl` that is a record (a warning saying `message`). */
  const recordLine = (message: string) =>
    `${JSON.stringify({ ts: new Date().toISOString(), execution: 'e', source: 'gate', type: 'warning', data: { message } })}\n`;

  /** A listener that collects what it is handed; `next()` resolves with the next batch. */
  function collector() {
    const batches: (readonly FeedItem[])[] = [];
    const failures: unknown[] = [];
    let wake: (() => void) | undefined;
    return {
      batches,
      failures,
      listener: {
        items: (items: readonly FeedItem[]) => {
          batches.push(items);
          wake?.();
        },
        failed: (error: unknown) => {
          failures.push(error);
          wake?.();
        },
      },
      next: () =>
        new Promise<void>((resolve) => {
          wake = resolve;
        }),
    };
  }

  it('starts its follower where the first client replay ended, numbering on from there without reading back', {
    timeout: 5000,
  }, async () => {
    const path = join(dir, 'started', 'events.jsonl');
    mkdirSync(dirname(path));
    // Not records: a follower that read them would number the next record 1, not 8.
    const history = `${'x'.repeat(99)}\n`;
    appendFileSync(path, history);
    const at = { bytes: history.length, records: 7 };
    const feeds = new Feeds();
    const first = collector();
    const a = feeds.listen(path, first.listener);
    const b = feeds.listen(path, collector().listener);
    expect(feeds.resumeAt(path, 7)).toEqual(LOG_START); // not started: it knows no position yet
    expect(b.startedAt()).toBeUndefined(); // asking does not start it
    expect(a.start(at)).toEqual(at);
    expect(b.startedAt()).toEqual(at);
    expect(b.start(LOG_START)).toEqual(at); // already started: a later client learns where
    const handed = first.next();
    appendFileSync(path, recordLine('live'));
    await handed;
    expect(first.batches.flat().map((item) => [item.id, item.record.type])).toEqual([[8, 'warning']]);
    const after = { bytes: history.length + recordLine('live').length, records: 8 };
    expect(feeds.resumeAt(path, 9)).toEqual(after);
    expect(feeds.resumeAt(path, 7)).toEqual(at);
    expect(feeds.resumeAt(path, 6)).toEqual(LOG_START);
    a.close();
    b.close();
    expect(feeds.resumeAt(path, 9)).toEqual(LOG_START); // the last close stopped and dropped it
  });

  it('tells every listener when its follower fails, and drops the feed so the next one starts afresh', {
    timeout: 5000,
  }, async () => {
    const path = join(dir, 'failing', 'events.jsonl');
    mkdirSync(path, { recursive: true }); // a directory where the log should be: reading it fails
    const feeds = new Feeds();
    const first = collector();
    const second = collector();
    const a = feeds.listen(path, first.listener);
    feeds.listen(path, second.listener);
    const told = Promise.all([first.next(), second.next()]);
    a.start(LOG_START);
    await told;
    expect(first.failures).toHaveLength(1);
    expect((first.failures[0] as NodeJS.ErrnoException).code).toBe('EISDIR');
    expect(second.failures).toEqual(first.failures);

    rmSync(path, { recursive: true });
    appendFileSync(path, recordLine('a'));
    const at = { bytes: recordLine('a').length, records: 1 };
    // The failed feed is gone, so this listener gets a new one, started where it says.
    expect(feeds.listen(path, collector().listener).start(at)).toEqual(at);
    expect(feeds.resumeAt(path, 1)).toEqual(at);
  });
});

describe('Outbox', () => {
  const text = (value: string) => new TextEncoder().encode(value);
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  /** A sink that keeps what it is given as text, and wants no more while `busy`. */
  function fakeSink() {
    const fake = { writes: [] as string[], busy: false, ended: false, failed: undefined as unknown };
    const sink: Sink = {
      write: (chunk) => {
        fake.writes.push(new TextDecoder().decode(chunk));
        return !fake.busy;
      },
      end: () => {
        fake.ended = true;
      },
      fail: (error) => {
        fake.failed = error;
      },
    };
    return { fake, sink };
  }

  it('writes what one turn pushed as one chunk, and what came while the sink was busy as the next', async () => {
    const { fake, sink } = fakeSink();
    const outbox = new Outbox(() => {});
    outbox.push(text('a')); // before the sink: kept
    outbox.attach(sink, true);
    expect(fake.writes).toEqual(['a']);
    outbox.push(text('b'));
    outbox.push(text('c'));
    expect(fake.writes).toEqual(['a']); // at the end of the turn
    await turn();
    expect(fake.writes).toEqual(['a', 'bc']);
    fake.busy = true;
    outbox.push(text('d'));
    await turn();
    expect(fake.writes).toEqual(['a', 'bc', 'd']); // taken, but the sink now wants no more
    outbox.push(text('e'));
    outbox.push(text('f'));
    let drained = false;
    void outbox.drained().then(() => {
      drained = true;
    });
    await turn();
    expect(fake.writes).toEqual(['a', 'bc', 'd']);
    expect(drained).toBe(false);
    outbox.ready(); // the socket drained
    expect(fake.writes).toEqual(['a', 'bc', 'd', 'ef']);
    await turn();
    expect(drained).toBe(true);
  });

  it('ends after what is pending, and stops for good when the client goes away', async () => {
    const { fake, sink } = fakeSink();
    let gone = 0;
    const outbox = new Outbox(() => {
      gone += 1;
    });
    outbox.attach(sink, false); // waits for its first `ready`
    outbox.push(text('x'.repeat(200 * 1024)));
    outbox.push(text('y'.repeat(100 * 1024)));
    expect(outbox.full).toBe(true);
    outbox.end();
    outbox.push(text('dropped'));
    expect(fake.ended).toBe(false);
    outbox.ready();
    expect(fake.writes.map((chunk) => chunk.length)).toEqual([300 * 1024]);
    expect(fake.ended).toBe(true);
    expect(outbox.full).toBe(false);

    const other = fakeSink();
    const closed = new Outbox(() => {
      gone += 1;
    });
    closed.attach(other.sink, true);
    closed.gone();
    closed.gone();
    closed.push(text('late'));
    closed.ready();
    expect(gone).toBe(1);
    expect(other.fake.writes).toEqual([]);
  });
});
