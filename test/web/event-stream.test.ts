import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, type Fetch } from '../../src/web/api.js';
import {
  type Connected,
  ConnectionLostError,
  type EventStream,
  type MalformedEventError,
  openEventStream,
  type StreamRecord,
} from '../../src/web/event-stream.js';
import { DONE_ID, ended, RUNNING_ID, type ServedApp, serveApp, TOKEN, UNKNOWN_ID, warning } from './served-app.js';

/** One request the stream made: when, and the Last-Event-ID it sent. */
interface Sent {
  readonly at: number;
  readonly lastEventId: string | null;
}

/** Everything a stream reported, and the requests it made. */
interface Watch {
  readonly stream: EventStream;
  /** `[id, what]`: a warning's message, else the record's type. */
  readonly records: [number, string][];
  readonly connected: Connected[];
  readonly errors: Error[];
  readonly requests: Sent[];
  ends: number;
}

const realFetch: Fetch = (url, init) => fetch(url, init);

function watch(
  url: string,
  options: { readonly token?: string; readonly retryMs?: number; readonly fetch?: Fetch } = {},
): Watch {
  const requests: Sent[] = [];
  const inner = options.fetch ?? realFetch;
  const seen: Omit<Watch, 'stream'> = { records: [], connected: [], errors: [], requests, ends: 0 };
  const stream = openEventStream({
    url,
    token: options.token ?? TOKEN,
    ...(options.retryMs !== undefined && { retryMs: options.retryMs }),
    fetch: (target, init) => {
      requests.push({ at: Date.now(), lastEventId: new Headers(init.headers).get('last-event-id') });
      return inner(target, init);
    },
    onRecord: (record, id) => seen.records.push([id, label(record)]),
    onConnected: (connected) => seen.connected.push(connected),
    onError: (error) => seen.errors.push(error),
    onEnd: () => {
      seen.ends += 1;
    },
  });
  return Object.assign(seen, { stream });
}

function label(record: StreamRecord): string {
  const data = record.data as { message?: string } | undefined;
  return record.type === 'warning' ? (data?.message ?? '?') : record.type;
}

/** Waits until `condition` holds, polling every 5 ms; fails after `ms`. */
async function until(what: string, condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const lost = (w: Watch) => w.errors.filter((error) => error instanceof ConnectionLostError);

describe('openEventStream against the service', () => {
  let served: ServedApp;
  const eventsUrl = (id: string) => `${served.url}/api/executions/${id}/events`;

  beforeEach(async () => {
    served = await serveApp({ heartbeatMs: 20 });
  });
  afterEach(async () => {
    await served.close();
  });

  it('replays an ended execution in order, then ends', async () => {
    const log = served.eventLog(DONE_ID);
    for (const message of ['a', 'b', 'c']) log.append(warning(message));
    log.append(ended);
    const w = watch(eventsUrl(DONE_ID));
    await until('the end', () => w.ends === 1);
    expect(w.records).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [4, 'execution.ended'],
    ]);
    expect(w.connected).toEqual([{ execution: DONE_ID, from: 0 }]);
    expect(w.errors).toEqual([]);
    expect(w.requests).toHaveLength(1);
  });

  it('delivers records appended while connected, through heartbeats, and ends after execution.ended', async () => {
    const log = served.eventLog(RUNNING_ID);
    log.append(warning('before'));
    const w = watch(eventsUrl(RUNNING_ID));
    await until('the first record', () => w.records.length === 1);
    await sleep(70); // three heartbeats, 20 ms apart
    log.append(warning('live 1'));
    log.append(warning('live 2'));
    await until('the live records', () => w.records.length === 3);
    expect(w.ends).toBe(0);
    log.append(ended);
    await until('the end', () => w.ends === 1);
    expect(w.records).toEqual([
      [1, 'before'],
      [2, 'live 1'],
      [3, 'live 2'],
      [4, 'execution.ended'],
    ]);
    expect(w.errors).toEqual([]);
    expect(w.requests).toHaveLength(1);
  });

  it('resumes a connection cut mid-stream with Last-Event-ID: every record once, in order', async () => {
    const log = served.eventLog(RUNNING_ID);
    for (const message of ['1', '2', '3']) log.append(warning(message));
    const w = watch(eventsUrl(RUNNING_ID), { retryMs: 50 });
    await until('three records', () => w.records.length === 3);
    served.dropConnections();
    log.append(warning('4')); // while the client is away
    await until('the reconnection', () => w.connected.length === 2);
    log.append(warning('5'));
    log.append(ended);
    await until('the end', () => w.ends === 1);
    expect(w.records).toEqual([
      [1, '1'],
      [2, '2'],
      [3, '3'],
      [4, '4'],
      [5, '5'],
      [6, 'execution.ended'],
    ]);
    expect(w.requests.map((sent) => sent.lastEventId)).toEqual([null, '3']);
    expect(w.connected.map((connected) => connected.from)).toEqual([0, 3]);
    expect(lost(w)).toHaveLength(1);
    expect(w.errors).toHaveLength(1);
  });

  it('retries while the service is down and resumes when it listens again on the same port', async () => {
    const log = served.eventLog(RUNNING_ID);
    log.append(warning('1'));
    log.append(warning('2'));
    const w = watch(eventsUrl(RUNNING_ID), { retryMs: 30 });
    await until('two records', () => w.records.length === 2);
    await served.stop();
    log.append(warning('3'));
    await until('refused attempts', () => w.requests.length >= 3);
    log.append(warning('4'));
    await served.start();
    await until('the reconnection', () => w.connected.length === 2);
    log.append(ended);
    await until('the end', () => w.ends === 1);
    expect(w.records.map(([id, what]) => `${id}:${what}`)).toEqual(['1:1', '2:2', '3:3', '4:4', '5:execution.ended']);
    expect(w.requests.slice(1).every((sent) => sent.lastEventId === '2')).toBe(true);
    expect(w.connected.map((connected) => connected.from)).toEqual([0, 2]);
    expect(lost(w).length).toBe(w.requests.length - 1);
    expect(w.errors.length).toBe(lost(w).length);
  });

  it('reports 401 for a wrong token through onError and does not retry', async () => {
    served.eventLog(DONE_ID).append(ended);
    const w = watch(eventsUrl(DONE_ID), { token: 'wrong-token', retryMs: 10 });
    await until('the error', () => w.errors.length === 1);
    await sleep(100); // ten reconnection times
    expect(w.errors[0]).toBeInstanceOf(ApiError);
    expect(w.errors[0]).toMatchObject({ status: 401, name: 'Unauthorized', message: 'wrong API token' });
    expect(w.requests).toHaveLength(1);
    expect(w.records).toEqual([]);
    expect(w.connected).toEqual([]);
    expect(w.ends).toBe(0);
  });

  it('reports 404 for an unknown execution and does not retry', async () => {
    const w = watch(eventsUrl(UNKNOWN_ID), { retryMs: 10 });
    await until('the error', () => w.errors.length === 1);
    await sleep(100);
    expect(w.errors[0]).toMatchObject({ status: 404, name: 'NotFoundError', message: `no execution ${UNKNOWN_ID}` });
    expect(w.requests).toHaveLength(1);
  });

  it('close() ends the connection, and no callback comes after it', async () => {
    const log = served.eventLog(RUNNING_ID);
    log.append(warning('1'));
    const w = watch(eventsUrl(RUNNING_ID));
    await until('the first record', () => w.records.length === 1);
    expect(served.answering()).toBe(1);
    w.stream.close();
    w.stream.close();
    log.append(warning('2'));
    log.append(ended);
    await until('the server to see the client go', () => served.answering() === 0, 1000);
    await sleep(50);
    expect(w.records).toEqual([[1, '1']]);
    expect({ ends: w.ends, errors: w.errors, requests: w.requests.length }).toEqual({
      ends: 0,
      errors: [],
      requests: 1,
    });
  });

  it('close() during the wait to reconnect stops the retries', async () => {
    served.eventLog(RUNNING_ID).append(warning('1'));
    const w = watch(eventsUrl(RUNNING_ID), { retryMs: 20 });
    await until('the first record', () => w.records.length === 1);
    await served.stop();
    await until('two attempts to reconnect', () => lost(w).length >= 2);
    w.stream.close();
    const made = w.requests.length;
    const reported = w.errors.length;
    await sleep(150); // seven reconnection times
    expect(w.requests.length).toBe(made);
    expect(w.errors.length).toBe(reported);
  });
});

describe('openEventStream over scripted answers', () => {
  /** A scripted answer: a status and its content type, and the body as chunks (then its end). */
  interface Answer {
    readonly status?: number;
    readonly type?: string;
    readonly chunks: readonly string[];
  }

  /** A fetch answering each call with the next answer; past the last, one that never answers until aborted. */
  function scripted(answers: Answer[]): Fetch {
    return (_url, init) => {
      const answer = answers.shift();
      if (answer === undefined) {
        return new Promise((_resolve, reject) =>
          init.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
        );
      }
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => {
          for (const chunk of answer.chunks) controller.enqueue(encoder.encode(chunk));
          controller.close();
        },
      });
      return Promise.resolve(
        new Response(body, {
          status: answer.status ?? 200,
          headers: { 'content-type': answer.type ?? 'text/event-stream' },
        }),
      );
    };
  }

  const STREAM_URL = 'http://127.0.0.1:1/api/executions/01jf3k9x7q2m4n6p8r0s2t4v6w/events';

  it('parses CRLF and CR line ends, multi-line data, comments and lines cut across chunks', async () => {
    const w = watch(STREAM_URL, {
      fetch: scripted([
        {
          chunks: [
            'event: connected\r\ndata: {"execution":"e","from":0}\r\n\r\n: heartbeat\r',
            '\n\r\nid: 1\r\nda',
            'ta: {"type":"warning",\r\ndata: "data":{"message":"multi-line"}}\r\n\r\nid: 2\rdata: {"type":"execution.',
            'ended"}\r\r',
          ],
        },
      ]),
    });
    await until('the end', () => w.ends === 1);
    expect(w.connected).toEqual([{ execution: 'e', from: 0 }]);
    expect(w.records).toEqual([
      [1, 'multi-line'],
      [2, 'execution.ended'],
    ]);
    expect(w.errors).toEqual([]);
  });

  it('reports a malformed record through onError and goes on with the next', async () => {
    const w = watch(STREAM_URL, {
      fetch: scripted([
        {
          chunks: [
            'id: 1\ndata: not json\n\n',
            'id: 2\ndata: [1]\n\nid: 3\ndata: {"type":5}\n\n',
            'data: {"type":"warning","data":{"message":"no id"}}\n\n', // takes id 3 over: not malformed
            'id: x\ndata: {"type":"warning"}\n\n',
            'id: 5\ndata: {"type":"warning","data":{"message":"good"}}\n\n',
            'id: 6\ndata: {"type":"execution.ended"}\n\n',
          ],
        },
      ]),
    });
    await until('the end', () => w.ends === 1);
    expect(w.records).toEqual([
      [3, 'no id'],
      [5, 'good'],
      [6, 'execution.ended'],
    ]);
    expect(w.errors.map((error) => [error.name, (error as MalformedEventError).data])).toEqual([
      ['MalformedEventError', 'not json'],
      ['MalformedEventError', '[1]'],
      ['MalformedEventError', '{"type":5}'],
      ['MalformedEventError', '{"type":"warning"}'],
    ]);
  });

  it("reconnects after the server's retry: when it closes before execution.ended or answers 503", async () => {
    const connected = 'event: connected\ndata: {"execution":"e","from":1}\n\n';
    const w = watch(STREAM_URL, {
      fetch: scripted([
        { chunks: ['retry: 40\n\nid: 1\ndata: {"type":"warning","data":{"message":"a"}}\n\n'] },
        // `connected` has no id: the stream must still resume after record 1, not from the start.
        { chunks: [connected] },
        { status: 503, type: 'text/plain', chunks: ['starting'] },
        { chunks: ['id: 2\ndata: {"type":"execution.ended"}\n\n'] },
      ]),
    });
    await until('the end', () => w.ends === 1);
    expect(w.records).toEqual([
      [1, 'a'],
      [2, 'execution.ended'],
    ]);
    expect(w.requests.map((sent) => sent.lastEventId)).toEqual([null, '1', '1', '1']);
    expect(w.errors.map((error) => [error.name, (error as ConnectionLostError).retryMs])).toEqual([
      ['ConnectionLostError', 40],
      ['ConnectionLostError', 40],
      ['ConnectionLostError', 40],
    ]);
    expect(w.errors[2]?.cause).toMatchObject({ status: 503, name: 'HttpError' });
    // Three waits of 40 ms, not of the default 1000 ms.
    const waited = (w.requests[3]?.at ?? 0) - (w.requests[0]?.at ?? 0);
    expect(waited).toBeGreaterThanOrEqual(115);
    expect(waited).toBeLessThan(900);
  });

  it('close() from a callback stops the records already received in the same chunk', async () => {
    const records: number[] = [];
    let ends = 0;
    const stream = openEventStream({
      url: STREAM_URL,
      token: TOKEN,
      fetch: scripted([{ chunks: [[1, 2, 3].map((id) => `id: ${id}\ndata: {"type":"warning"}\n\n`).join('')] }]),
      onRecord: (_record, id) => {
        records.push(id);
        stream.close();
      },
      onEnd: () => {
        ends += 1;
      },
    });
    await until('the first record', () => records.length > 0);
    await sleep(20);
    expect({ records, ends }).toEqual({ records: [1], ends: 0 });
  });

  it('refuses a 2xx answer that is not an event stream, without retrying', async () => {
    const w = watch(STREAM_URL, { retryMs: 10, fetch: scripted([{ type: 'application/json', chunks: ['{}'] }]) });
    await until('the error', () => w.errors.length === 1);
    await sleep(60);
    expect(w.errors[0]).toMatchObject({ status: 200, name: 'NotAnEventStream' });
    expect(w.requests).toHaveLength(1);
  });
});
