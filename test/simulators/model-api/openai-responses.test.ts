import { describe, expect, it } from 'vitest';
import { dataOf, post, readJson, readSse, startApi } from './helpers.js';

const AUTH = { authorization: 'Bearer sk-sim-0000' };

/** A Codex-like request: developer and environment items before the prompt, its tools. */
function request(prompt: string, tools: unknown[] = CODEX_TOOLS) {
  return {
    model: 'gpt-5.5',
    stream: true,
    instructions: 'You are Codex.',
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'rules' }] },
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/w</cwd>\n</environment_context>' }],
      },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] },
    ],
    tools,
  };
}

const CODEX_TOOLS = [
  { type: 'function', name: 'exec_command' },
  { type: 'custom', name: 'apply_patch' },
  { type: 'web_search' },
];

describe('OpenAI Responses API', () => {
  it('streams a text reply: created, in_progress, item and part events, text deltas, completed with usage', async () => {
    const api = await startApi({ scripts: { s: ['The work is done.'] } });
    const response = await post(`${api.url}/s/v1/responses`, request('do it'), AUTH);
    const events = await readSse(response);
    const data = dataOf(events);
    for (const [i, event] of events.entries()) {
      expect(data[i].type).toBe(event.event);
      expect(data[i].sequence_number).toBe(i);
    }
    const types = data.map((d) => d.type).filter((type) => type !== 'response.output_text.delta');
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const text = data
      .filter((d) => d.type === 'response.output_text.delta')
      .map((d) => d.delta)
      .join('');
    expect(text).toBe('The work is done.');
    const completed = data.at(-1).response;
    expect(completed.status).toBe('completed');
    expect(completed.output[0]).toMatchObject({ type: 'message', role: 'assistant' });
    expect(completed.usage.input_tokens).toBeGreaterThan(0);
    expect(completed.usage.total_tokens).toBe(completed.usage.input_tokens + completed.usage.output_tokens);
    expect(api.requests[0]?.lastUserText).toBe('do it');
    expect(api.requests[0]?.tools).toEqual(['exec_command', 'apply_patch', 'web_search']);
  });

  it('answers a limitWarning as plain text: OpenAI has no unified rate-limit headers', async () => {
    const api = await startApi({ scripts: { s: [{ limitWarning: { text: 'Part done.', utilization: 0.96 } }] } });
    const response = await post(`${api.url}/s/v1/responses`, request('do it'), AUTH);
    expect(response.status).toBe(200);
    expect([...response.headers.keys()].filter((name) => name.includes('ratelimit'))).toEqual([]);
    const data = dataOf(await readSse(response));
    expect(data.find((d) => d.type === 'response.output_text.done').text).toBe('Part done.');
    expect(api.requests[0]?.served).toBe('limitWarning');
  });

  it('writes a file with the custom apply_patch tool: an Add File patch', async () => {
    const api = await startApi({ scripts: { s: [{ write: { path: 'src/a.txt', content: 'one\ntwo\n' } }] } });
    const data = dataOf(await readSse(await post(`${api.url}/s/v1/responses`, request('write'), AUTH)));
    const item = data.find((d) => d.type === 'response.output_item.done').item;
    expect(item).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', status: 'completed' });
    expect(item.input).toBe('*** Begin Patch\n*** Add File: src/a.txt\n+one\n+two\n*** End Patch\n');
    const streamed = data
      .filter((d) => d.type === 'response.custom_tool_call_input.delta')
      .map((d) => d.delta)
      .join('');
    expect(streamed).toBe(item.input);
    expect(data.at(-1).response.output[0].call_id).toBe(item.call_id);
  });

  it('uses the function form of apply_patch when that is what is offered, and exec_command for shell', async () => {
    const api = await startApi({
      scripts: { s: [{ write: { path: 'a.txt', content: 'x' } }, { shell: { command: 'ls -l' } }] },
    });
    const tools = [
      { type: 'function', name: 'apply_patch' },
      { type: 'function', name: 'exec_command' },
    ];
    const first = dataOf(await readSse(await post(`${api.url}/s/v1/responses`, request('w', tools), AUTH)));
    const patch = first.find((d) => d.type === 'response.output_item.done').item;
    expect(patch).toMatchObject({ type: 'function_call', name: 'apply_patch' });
    expect(JSON.parse(patch.arguments)).toEqual({ input: '*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n' });
    const second = dataOf(await readSse(await post(`${api.url}/s/v1/responses`, request('w', tools), AUTH)));
    const shell = second.find((d) => d.type === 'response.output_item.done').item;
    expect(shell).toMatchObject({ type: 'function_call', name: 'exec_command' });
    expect(JSON.parse(shell.arguments)).toEqual({ cmd: 'ls -l' });
    const args = second
      .filter((d) => d.type === 'response.function_call_arguments.delta')
      .map((d) => d.delta)
      .join('');
    expect(args).toBe(shell.arguments);
  });

  it('falls back to a shell command that writes the file when only an older shell tool is offered', async () => {
    const api = await startApi({ scripts: { s: [{ write: { path: 'a.txt', content: 'x' } }] } });
    const tools = [{ type: 'function', name: 'shell' }];
    const data = dataOf(await readSse(await post(`${api.url}/s/v1/responses`, request('w', tools), AUTH)));
    const item = data.find((d) => d.type === 'response.output_item.done').item;
    expect(item.name).toBe('shell');
    expect(JSON.parse(item.arguments).command).toEqual(['bash', '-lc', "printf '%s' 'x' > 'a.txt'"]);
    expect(api.requests[0]?.served).toBe('write:shell');
  });

  it('answers quota with 429 insufficient_quota, and inside a stream with response.failed', async () => {
    const api = await startApi({ scripts: { s: [{ quota: true }], t: [{ quota: { inStream: true } }] } });
    const response = await post(`${api.url}/s/v1/responses`, request('hi'), AUTH);
    expect(response.status).toBe(429);
    const body = await readJson(response);
    expect(body.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota', param: null });
    expect(body.error.message).toMatch(/^You exceeded your current quota, please check your plan and billing details/);

    const stream = await post(`${api.url}/t/v1/responses`, request('hi'), AUTH);
    expect(stream.status).toBe(200);
    const data = dataOf(await readSse(stream));
    expect(data.map((d) => d.type)).toEqual(['response.created', 'response.failed']);
    expect(data[1].response.status).toBe('failed');
    expect(data[1].response.error.code).toBe('insufficient_quota');
  });

  it('rate-limits with rate_limit_exceeded and retry-after; overload is 503 server_is_overloaded', async () => {
    const api = await startApi({
      scripts: { s: [{ rateLimit: { times: 1 } }, { overload: true }, { authError: true }] },
    });
    const limited = await post(`${api.url}/s/v1/responses`, request('hi'), AUTH);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect((await readJson(limited)).error.code).toBe('rate_limit_exceeded');
    const overloaded = await post(`${api.url}/s/v1/responses`, request('hi'), AUTH);
    expect(overloaded.status).toBe(503);
    expect((await readJson(overloaded)).error.code).toBe('server_is_overloaded');
    const denied = await post(`${api.url}/s/v1/responses`, request('hi'), AUTH);
    expect(denied.status).toBe(401);
    expect((await readJson(denied)).error.code).toBe('invalid_api_key');
  });

  it("answers Codex's WebSocket attempt (GET /v1/responses) with 404", async () => {
    const api = await startApi({ scripts: { s: ['x'] } });
    const response = await fetch(`${api.url}/s/v1/responses`);
    expect(response.status).toBe(404);
    expect(api.requests[0]).toMatchObject({ method: 'GET', served: 'not_found', status: 404 });
  });
});
