import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApi } from '../../src/web/api.js';
import { DONE_ID, QUEUED_ID, RUNNING_ID, type ServedApp, serveApp, TOKEN, UNKNOWN_ID } from './served-app.js';

let served: ServedApp;
beforeAll(async () => {
  served = await serveApp();
});
afterAll(() => served.close());

/** The rejection of `promise`, which must reject. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

describe('createApi against the service', () => {
  it('GETs an API path with its query and resolves with the parsed JSON', async () => {
    const api = createApi({ baseUrl: served.url, token: TOKEN });
    const live = (await api.get('/api/executions?state=live')) as { executions: { id: string }[] };
    expect(live.executions.map((execution) => execution.id).sort()).toEqual([QUEUED_ID, RUNNING_ID].sort());
    const done = (await api.get(`/api/executions/${DONE_ID}`)) as { execution: { state: string }; attempts: unknown[] };
    expect(done).toMatchObject({ execution: { id: DONE_ID, state: 'succeeded' }, attempts: [] });
  });

  it('POSTs a JSON body, and a POST without one', async () => {
    const api = createApi({ baseUrl: `${served.url}/`, token: TOKEN }); // a trailing slash is dropped
    expect(await api.post('/api/admission/hold', { reason: 'disk maintenance' })).toMatchObject({
      held: true,
      reasons: [expect.stringContaining('disk maintenance')],
    });
    expect(await api.post('/api/admission/release')).toMatchObject({ held: false });
  });

  it("rejects a non-2xx answer with an ApiError carrying the API's status, name and message", async () => {
    const api = createApi({ baseUrl: served.url, token: TOKEN });
    const unknown = await rejection(api.get(`/api/executions/${UNKNOWN_ID}`));
    expect(unknown).toBeInstanceOf(ApiError);
    expect(unknown).toMatchObject({ status: 404, name: 'NotFoundError', message: `no execution ${UNKNOWN_ID}` });
    expect(await rejection(api.get('/api/executions?state=nope'))).toMatchObject({ status: 400, name: 'UsageError' });
    expect(await rejection(api.post('/api/admission/hold', { reason: '' }))).toMatchObject({
      status: 400,
      name: 'UsageError',
      message: expect.stringMatching(/^bad body/),
    });
  });

  it('rejects with 401 Unauthorized for a wrong token', async () => {
    const api = createApi({ baseUrl: served.url, token: 'wrong-token' });
    expect(await rejection(api.get('/api/executions'))).toMatchObject({
      status: 401,
      name: 'Unauthorized',
      message: 'wrong API token',
    });
  });

  it('rejects a path that is not absolute without sending it', async () => {
    let sent = 0;
    const api = createApi({
      baseUrl: served.url,
      token: TOKEN,
      fetch: (url, init) => {
        sent += 1;
        return fetch(url, init);
      },
    });
    expect(await rejection(api.get('api/executions'))).toBeInstanceOf(TypeError);
    expect(sent).toBe(0);
  });
});

describe('createApi over scripted answers', () => {
  const answering = (body: string, init: ResponseInit) => (): Promise<Response> =>
    Promise.resolve(new Response(body, init));

  it('names an error answer without the API error body by its status text', async () => {
    const api = createApi({
      baseUrl: 'http://127.0.0.1:1',
      token: TOKEN,
      fetch: answering('starting', { status: 503, statusText: 'Service Unavailable' }),
    });
    expect(await rejection(api.get('/api/executions'))).toMatchObject({
      status: 503,
      name: 'HttpError',
      message: 'Service Unavailable',
    });
    const shapeless = createApi({
      baseUrl: 'http://127.0.0.1:1',
      token: TOKEN,
      fetch: answering('{"error":"nope"}', { status: 502 }),
    });
    expect(await rejection(shapeless.get('/api/executions'))).toMatchObject({
      status: 502,
      name: 'HttpError',
      message: 'HTTP 502',
    });
  });

  it('rejects a 2xx answer that is not JSON with InvalidResponse', async () => {
    const api = createApi({ baseUrl: 'http://127.0.0.1:1', token: TOKEN, fetch: answering('<html>', { status: 200 }) });
    expect(await rejection(api.get('/api/executions'))).toMatchObject({ status: 200, name: 'InvalidResponse' });
  });
});
