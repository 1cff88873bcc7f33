import { describe, expect, it } from 'vitest';
import { dataOf, post, readJson, readSse, startApi } from './helpers.js';

const AUTH = { authorization: 'Bearer sk-sim-0000' };
const OPENCODE_TOOLS = ['bash', 'edit', 'read', 'write'].map((name) => ({ type: 'function', function: { name } }));

/** An OpenCode-like main request. */
function request(prompt: string) {
  return {
    model: 'sim-model',
    stream: true,
    stream_options: { include_usage: true },
    messages: [
      { role: 'system', content: 'You are opencode.' },
      { role: 'user', content: prompt },
    ],
    tools: OPENCODE_TOOLS,
  };
}

/** OpenCode's title request: no tools, the title generator's system prompt. */
const TITLE_REQUEST = {
  model: 'sim-model',
  stream: true,
  messages: [
    { role: 'system', content: 'You are a title generator. You output ONLY a thread title.' },
    { role: 'user', content: 'Generate a title for this conversation:\n' },
    { role: 'user', content: '"Add ISO week parsing to the date library"' },
  ],
};

describe('OpenAI chat completions', () => {
  it('streams text chunks, a finish_reason, a usage chunk with no choices, then [DONE]', async () => {
    const api = await startApi({ scripts: { s: ['Finished the task.'] } });
    const events = await readSse(await post(`${api.url}/s/v1/chat/completions`, request('go'), AUTH));
    expect(events.every((e) => e.event === undefined)).toBe(true);
    const data = dataOf(events);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1);
    for (const chunk of chunks) expect(chunk.object).toBe('chat.completion.chunk');
    const usage = chunks.at(-1);
    expect(usage.choices).toEqual([]);
    expect(usage.usage.total_tokens).toBe(usage.usage.prompt_tokens + usage.usage.completion_tokens);
    const finish = chunks.at(-2);
    expect(finish.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    const text = chunks
      .slice(0, -2)
      .map((c) => c.choices[0].delta.content)
      .join('');
    expect(text).toBe('Finished the task.');
  });

  it('writes with the write tool {filePath, content} streamed as tool_calls, finish_reason tool_calls', async () => {
    const api = await startApi({ scripts: { s: [{ write: { path: 'a.txt', content: 'hi\n' } }, 'done'] } });
    const data = dataOf(await readSse(await post(`${api.url}/s/v1/chat/completions`, request('go'), AUTH)));
    const deltas = data.slice(0, -3).map((c) => c.choices[0].delta.tool_calls[0]);
    expect(deltas[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'write', arguments: '' } });
    expect(deltas[0].id).toMatch(/^call_/);
    const args = deltas.map((d) => d.function.arguments).join('');
    expect(JSON.parse(args)).toEqual({ filePath: 'a.txt', content: 'hi\n' });
    expect(data.at(-3).choices[0].finish_reason).toBe('tool_calls');
  });

  it('answers the title request with a short title, without taking a reply', async () => {
    const api = await startApi({ scripts: { s: ['main answer'] } });
    const title = dataOf(await readSse(await post(`${api.url}/s/v1/chat/completions`, TITLE_REQUEST, AUTH)));
    const text = title
      .slice(0, -3)
      .map((c) => c.choices[0].delta.content)
      .join('');
    expect(text).toBe('Add ISO week parsing to the');
    const main = dataOf(await readSse(await post(`${api.url}/s/v1/chat/completions`, request('go'), AUTH)));
    expect(main.map((c) => c.choices?.[0]?.delta?.content ?? '').join('')).toBe('main answer');
    expect(api.requests.map((r) => [r.reply, r.served])).toEqual([
      ['title', 'title'],
      [0, 'text'],
    ]);
  });

  it('answers without streaming with one chat.completion', async () => {
    const api = await startApi({ scripts: { s: [{ shell: { command: 'npm test' } }] } });
    const response = await post(`${api.url}/s/v1/chat/completions`, { ...request('go'), stream: false }, AUTH);
    const completion = await readJson(response);
    expect(completion).toMatchObject({ object: 'chat.completion', choices: [{ finish_reason: 'tool_calls' }] });
    const call = completion.choices[0].message.tool_calls[0];
    expect(call.function.name).toBe('bash');
    expect(JSON.parse(call.function.arguments)).toMatchObject({ command: 'npm test' });
  });

  it('answers quota with 429 insufficient_quota, and inside a stream with an error chunk', async () => {
    const api = await startApi({ scripts: { s: [{ quota: true }, { quota: { inStream: true } }] } });
    const response = await post(`${api.url}/s/v1/chat/completions`, request('go'), AUTH);
    expect(response.status).toBe(429);
    expect((await readJson(response)).error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
    const stream = await post(`${api.url}/s/v1/chat/completions`, request('go'), AUTH);
    expect(stream.status).toBe(200);
    const data = dataOf(await readSse(stream));
    expect(data[0].error.code).toBe('insufficient_quota');
    expect(data.at(-1)).toBe('[DONE]');
  });
});
