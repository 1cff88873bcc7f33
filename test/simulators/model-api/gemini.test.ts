import { describe, expect, it } from 'vitest';
import { dataOf, post, readJson, readSse, startApi } from './helpers.js';

const KEY = { 'x-goog-api-key': 'sim-0000' };
const GEMINI_TOOLS = [
  { functionDeclarations: [{ name: 'read_file' }, { name: 'write_file' }, { name: 'run_shell_command' }] },
];

/** A Gemini CLI-like main request: the session context and the prompt as two parts of one message. */
function request(prompt: string) {
  return {
    contents: [
      {
        role: 'user',
        parts: [{ text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' }, { text: prompt }],
      },
    ],
    systemInstruction: { parts: [{ text: 'You are Gemini CLI.' }] },
    tools: GEMINI_TOOLS,
    generationConfig: { temperature: 0 },
  };
}

/** The model router's classifier request: generateContent, no tools, a JSON response schema. */
const CLASSIFIER_REQUEST = {
  contents: [{ role: 'user', parts: [{ text: 'Create hello.txt' }] }],
  systemInstruction: { parts: [{ text: 'You are a specialized Task Routing AI.' }] },
  generationConfig: {
    responseMimeType: 'application/json',
    responseJsonSchema: { type: 'OBJECT', properties: { complexity_score: { type: 'INTEGER' } } },
  },
};

const STREAM = 'v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse';

describe('Gemini API', () => {
  it('streams text chunks; the last has finishReason STOP and usageMetadata', async () => {
    const api = await startApi({ scripts: { s: ['Wrote the file as asked.'] } });
    const events = await readSse(await post(`${api.url}/s/${STREAM}`, request('write it'), KEY));
    const chunks = dataOf(events);
    expect(chunks.length).toBeGreaterThan(1);
    const text = chunks.map((c) => c.candidates[0].content.parts[0].text).join('');
    expect(text).toBe('Wrote the file as asked.');
    for (const chunk of chunks) {
      expect(chunk.candidates[0].content.role).toBe('model');
      expect(chunk.modelVersion).toBe('gemini-2.5-pro');
    }
    expect(chunks.slice(0, -1).every((c) => c.candidates[0].finishReason === undefined)).toBe(true);
    const last = chunks.at(-1);
    expect(last.candidates[0].finishReason).toBe('STOP');
    const usage = last.usageMetadata;
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount + usage.candidatesTokenCount);
    expect(api.requests[0]).toMatchObject({ model: 'gemini-2.5-pro', stream: true, lastUserText: 'write it' });
  });

  it('answers write with a write_file functionCall part and shell with run_shell_command', async () => {
    const api = await startApi({
      scripts: { s: [{ write: { path: 'hello.txt', content: 'hi\n' } }, { shell: { command: 'ls' } }] },
    });
    const [write] = dataOf(await readSse(await post(`${api.url}/s/${STREAM}`, request('w'), KEY)));
    expect(write.candidates[0]).toMatchObject({
      content: {
        role: 'model',
        parts: [{ functionCall: { name: 'write_file', args: { file_path: 'hello.txt', content: 'hi\n' } } }],
      },
      finishReason: 'STOP',
    });
    expect(write.usageMetadata.candidatesTokenCount).toBeGreaterThan(0);
    const [shell] = dataOf(await readSse(await post(`${api.url}/s/${STREAM}`, request('w'), KEY)));
    expect(shell.candidates[0].content.parts[0].functionCall).toEqual({
      name: 'run_shell_command',
      args: { command: 'ls' },
    });
  });

  it("answers the router's classifier with complexity JSON, without taking a reply", async () => {
    const api = await startApi({ scripts: { s: ['main'] } });
    const response = await post(
      `${api.url}/s/v1beta/models/gemini-3.5-flash-lite:generateContent`,
      CLASSIFIER_REQUEST,
      KEY,
    );
    const body = await readJson(response);
    const answer = JSON.parse(body.candidates[0].content.parts[0].text);
    expect(answer).toMatchObject({ complexity_score: 10, complexity_reasoning: expect.any(String) });
    const main = dataOf(await readSse(await post(`${api.url}/s/${STREAM}`, request('go'), KEY)));
    expect(main.map((c) => c.candidates[0].content.parts[0].text).join('')).toBe('main');
    expect(api.requests.map((r) => r.reply)).toEqual(['classifier', 0]);
  });

  it('runs out of the daily quota: 429 RESOURCE_EXHAUSTED with a per-day QuotaFailure and RetryInfo', async () => {
    const api = await startApi({ scripts: { s: [{ quota: true }] } });
    const response = await post(`${api.url}/s/${STREAM}`, request('go'), KEY);
    expect(response.status).toBe(429);
    const { error } = await readJson(response);
    expect(error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    const failure = error.details.find((d: { '@type': string }) => d['@type'].endsWith('google.rpc.QuotaFailure'));
    expect(failure.violations[0].quotaId).toBe('GenerateRequestsPerDayPerProjectPerModel-FreeTier');
    const retry = error.details.find((d: { '@type': string }) => d['@type'].endsWith('google.rpc.RetryInfo'));
    expect(retry.retryDelay).toMatch(/^\d+s$/);
    // "limit: 0" would also make the error terminal; the daily quotaId alone must do it.
    expect(error.message).not.toMatch(/limit:\s*0(?!\d|\.\d)/);
  });

  it('rate-limits with a per-minute quotaId and RetryInfo 2s; overload is 503 UNAVAILABLE', async () => {
    const api = await startApi({
      scripts: { s: [{ rateLimit: { times: 1 } }, { overload: true }, { serverError: true }] },
    });
    const limited = await readJson(await post(`${api.url}/s/${STREAM}`, request('go'), KEY));
    expect(limited.error.details[0].violations[0].quotaId).toBe('GenerateRequestsPerMinutePerProjectPerModel-FreeTier');
    expect(limited.error.details.at(-1)).toEqual({
      '@type': 'type.googleapis.com/google.rpc.RetryInfo',
      retryDelay: '2s',
    });
    const overloaded = await post(`${api.url}/s/${STREAM}`, request('go'), KEY);
    expect(overloaded.status).toBe(503);
    expect((await readJson(overloaded)).error.status).toBe('UNAVAILABLE');
    const broken = await post(`${api.url}/s/${STREAM}`, request('go'), KEY);
    expect(broken.status).toBe(500);
    expect((await readJson(broken)).error.status).toBe('INTERNAL');
  });

  it('reports an error inside the stream as the bare error JSON, which the Gemini SDK raises', async () => {
    const api = await startApi({ scripts: { s: [{ quota: { inStream: true } }] } });
    const response = await post(`${api.url}/s/${STREAM}`, request('go'), KEY);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const body = JSON.parse(await response.text());
    expect(body.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
  });
});
