import { describe, expect, it } from 'vitest';
import { dataOf, post, readJson, readSse, startApi } from './helpers.js';

const API_KEY = { 'x-api-key': 'sk-ant-sim-0000', 'anthropic-version': '2023-06-01' };
const OAUTH = { authorization: 'Bearer sk-ant-oat01-sim-0000', 'anthropic-version': '2023-06-01' };

/** A Claude Code-like request: a system-reminder block beside the prompt, and its tools. */
function request(prompt: string, extra: Record<string, unknown> = {}) {
  return {
    model: 'claude-opus-5-5',
    max_tokens: 1024,
    stream: true,
    tools: [{ name: 'Bash' }, { name: 'Write' }, { name: 'Read' }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: '<system-reminder>\nsome context\n</system-reminder>\n' },
          { type: 'text', text: prompt },
        ],
      },
    ],
    ...extra,
  };
}

describe('Anthropic Messages API', () => {
  it('streams a text reply with the SSE events Claude Code reads, usage and stop reason', async () => {
    const api = await startApi({ scripts: { s: [{ text: 'All done here.' }] } });
    const response = await post(`${api.url}/s/v1/messages?beta=true`, request('hi'), API_KEY);
    expect(response.status).toBe(200);
    const events = await readSse(response);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      ...events.filter((e) => e.event === 'content_block_delta').map(() => 'content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const data = dataOf(events);
    for (const [i, event] of events.entries()) expect(data[i].type).toBe(event.event);
    expect(data[0].message).toMatchObject({ role: 'assistant', model: 'claude-opus-5-5', content: [] });
    expect(data[0].message.usage.input_tokens).toBeGreaterThan(0);
    const text = data
      .filter((d) => d.type === 'content_block_delta')
      .map((d) => d.delta.text)
      .join('');
    expect(text).toBe('All done here.');
    expect(data.filter((d) => d.type === 'content_block_delta').length).toBeGreaterThan(1);
    const delta = data.find((d) => d.type === 'message_delta');
    expect(delta.delta.stop_reason).toBe('end_turn');
    expect(delta.usage.output_tokens).toBeGreaterThan(0);
  });

  it('answers a write with a Write tool_use whose streamed input is {file_path, content}', async () => {
    const api = await startApi({ scripts: { s: [{ write: { path: 'a.txt', content: 'x\n' } }, 'done'] } });
    const data = dataOf(await readSse(await post(`${api.url}/s/v1/messages`, request('write it'), API_KEY)));
    const start = data.find((d) => d.type === 'content_block_start');
    expect(start.content_block).toMatchObject({ type: 'tool_use', name: 'Write', input: {} });
    const json = data
      .filter((d) => d.type === 'content_block_delta')
      .map((d) => {
        expect(d.delta.type).toBe('input_json_delta');
        return d.delta.partial_json;
      })
      .join('');
    expect(JSON.parse(json)).toEqual({ file_path: 'a.txt', content: 'x\n' });
    expect(data.find((d) => d.type === 'message_delta').delta.stop_reason).toBe('tool_use');
  });

  it('answers a shell reply with Bash, and without streaming with one JSON message', async () => {
    const api = await startApi({ scripts: { s: [{ shell: { command: 'ls' } }] } });
    const response = await post(`${api.url}/s/v1/messages`, request('list', { stream: false }), API_KEY);
    const message = await readJson(response);
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      stop_reason: 'tool_use',
      content: [{ type: 'tool_use', name: 'Bash', input: { command: 'ls' } }],
    });
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it('runs out of credit (400, never retried) for an API key, and of the 5-hour window for an OAuth token', async () => {
    const api = await startApi({ scripts: { s: [{ quota: true }] } });
    const credit = await post(`${api.url}/s/v1/messages`, request('hi'), API_KEY);
    expect(credit.status).toBe(400);
    const body = await readJson(credit);
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toMatch(/^Your credit balance is too low to access the Anthropic API/);

    const before = Math.floor(Date.now() / 1000);
    const window = await post(`${api.url}/s/v1/messages`, request('hi'), OAUTH);
    expect(window.status).toBe(429);
    expect((await readJson(window)).error.type).toBe('rate_limit_error');
    expect(window.headers.get('anthropic-ratelimit-unified-status')).toBe('rejected');
    expect(window.headers.get('anthropic-ratelimit-unified-representative-claim')).toBe('five_hour');
    expect(Number(window.headers.get('anthropic-ratelimit-unified-reset'))).toBeGreaterThan(before);
    expect(api.requests.map((r) => r.auth)).toEqual(['x-api-key', 'bearer']);
  });

  it('answers a limitWarning with text and, for an OAuth token, the unified headers saying allowed_warning', async () => {
    const api = await startApi({
      scripts: { s: [{ limitWarning: { text: 'First part done.', utilization: 0.96 } }] },
    });
    const before = Math.floor(Date.now() / 1000);
    const warned = await post(`${api.url}/s/v1/messages?beta=true`, request('hi'), OAUTH);
    expect(warned.status).toBe(200);
    const reset = Number(warned.headers.get('anthropic-ratelimit-unified-reset'));
    expect(reset - before).toBeGreaterThanOrEqual(2 * 60 * 60);
    expect(reset - before).toBeLessThanOrEqual(2 * 60 * 60 + 2);
    expect(Object.fromEntries([...warned.headers].filter(([name]) => name.startsWith('anthropic-ratelimit-')))).toEqual(
      {
        'anthropic-ratelimit-unified-status': 'allowed_warning',
        'anthropic-ratelimit-unified-reset': String(reset),
        'anthropic-ratelimit-unified-representative-claim': 'five_hour',
        'anthropic-ratelimit-unified-5h-status': 'allowed_warning',
        'anthropic-ratelimit-unified-5h-reset': String(reset),
        'anthropic-ratelimit-unified-5h-utilization': '0.96',
      },
    );
    const data = dataOf(await readSse(warned));
    const text = data
      .filter((d) => d.type === 'content_block_delta')
      .map((d) => d.delta.text)
      .join('');
    expect(text).toBe('First part done.');
    expect(data.find((d) => d.type === 'message_delta').delta.stop_reason).toBe('end_turn');

    // An API key has no subscription window: the same text, without the headers.
    const plain = await post(`${api.url}/s/v1/messages`, request('hi', { stream: false }), API_KEY);
    expect(plain.status).toBe(200);
    expect([...plain.headers.keys()].filter((name) => name.startsWith('anthropic-ratelimit-'))).toEqual([]);
    expect(await readJson(plain)).toMatchObject({
      content: [{ type: 'text', text: 'First part done.' }],
      stop_reason: 'end_turn',
    });
    expect(api.requests.map((r) => [r.auth, r.served, r.status])).toEqual([
      ['bearer', 'limitWarning', 200],
      ['x-api-key', 'limitWarning', 200],
    ]);
  });

  it('rate-limits N requests with retry-after, then moves on; overload is 529, a server error 500', async () => {
    const api = await startApi({
      scripts: { s: [{ rateLimit: { times: 2, retryAfter: 7 } }, { overload: true }, { serverError: true }, 'ok'] },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await post(`${api.url}/s/v1/messages`, request('hi', { stream: false }), API_KEY);
      statuses.push(response.status);
      const body = await readJson(response);
      if (i < 2) {
        expect(response.headers.get('retry-after')).toBe('7');
        expect(body.error.type).toBe('rate_limit_error');
      }
      if (i === 2) expect(body.error).toEqual({ type: 'overloaded_error', message: 'Overloaded' });
      if (i === 3) expect(body.error.type).toBe('api_error');
    }
    expect(statuses).toEqual([429, 429, 529, 500, 200]);
    expect(api.requests.map((r) => r.reply)).toEqual([0, 0, 1, 2, 3]);
  });

  it('reports an overload inside the stream as an error event after message_start', async () => {
    const api = await startApi({ scripts: { s: [{ overload: { inStream: true } }] } });
    const response = await post(`${api.url}/s/v1/messages`, request('hi'), API_KEY);
    expect(response.status).toBe(200);
    const events = await readSse(response);
    expect(events.map((e) => e.event)).toEqual(['message_start', 'error']);
    expect(dataOf(events)[1]).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    expect(api.requests[0]?.served).toBe('overload:stream');
  });

  it('counts tokens without taking a reply', async () => {
    const api = await startApi({ scripts: { s: ['first'] } });
    const response = await post(`${api.url}/s/v1/messages/count_tokens`, request('hi'), API_KEY);
    expect((await readJson(response)).input_tokens).toBeGreaterThan(0);
    expect(api.requests[0]).toMatchObject({ served: 'count_tokens', provider: 'anthropic' });
    expect(api.requests[0]?.reply).toBeUndefined();
  });
});
