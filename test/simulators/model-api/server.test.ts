import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptError } from '../../../src/simulators/model-api/script.js';
import { startModelApi } from '../../../src/simulators/model-api/server.js';
import { dataOf, post, readJson, readSse, startApi } from './helpers.js';

const MESSAGES = '/v1/messages';
const anthropicRequest = (prompt: string, tools: string[] = ['Write', 'Bash']) => ({
  model: 'claude-opus-5-5',
  stream: false,
  tools: tools.map((name) => ({ name })),
  messages: [{ role: 'user', content: prompt }],
});

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A non-loopback IPv4 address of this machine, if it has one. */
const external = Object.values(networkInterfaces())
  .flat()
  .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal)?.address;

describe('the model-API simulator server', () => {
  it('listens on 127.0.0.1 and on a free port by default', async () => {
    const api = await startApi({ scripts: { s: ['x'] } });
    expect(api.url).toBe(`http://127.0.0.1:${api.port}`);
    expect(api.port).toBeGreaterThan(0);
  });

  it.skipIf(external === undefined)('is not reachable on other interfaces', async () => {
    const api = await startApi({ scripts: { s: ['x'] } });
    await expect(fetch(`http://${external}:${api.port}/s/v1/models`)).rejects.toThrow();
  });

  it('listens on the port it is given, and fails when that port is taken', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const address = probe.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    await expect(startModelApi({ port, scripts: { s: ['x'] } })).rejects.toThrow(/EADDRINUSE/);
    await new Promise((resolve) => probe.close(resolve));
    const api = await startApi({ port, scripts: { s: ['x'] } });
    expect(api.port).toBe(port);
  });

  it('rejects invalid scripts with a ScriptError naming the place', async () => {
    await expect(startModelApi({ scripts: { s: [{ text: 'a', shell: { command: 'b' } } as never] } })).rejects.toThrow(
      ScriptError,
    );
    await expect(startModelApi({ scripts: { s: [] } })).rejects.toThrow(/s: Too small/);
  });

  it('keeps each script apart: concurrent CLIs follow their own script', async () => {
    const api = await startApi({ scripts: { a: ['a0', 'a1'], b: ['b0', 'b1'] } });
    const texts: string[] = [];
    for (const script of ['a', 'b', 'b', 'a', 'a']) {
      const message = await readJson(await post(`${api.url}/${script}${MESSAGES}`, anthropicRequest('hi')));
      texts.push(message.content[0].text);
    }
    // The last reply repeats.
    expect(texts).toEqual(['a0', 'b0', 'b1', 'a1', 'a1']);
    expect(api.requests.map((r) => `${r.script}#${r.reply}`)).toEqual(['a#0', 'b#0', 'b#1', 'a#1', 'a#1']);
  });

  it('answers 404 for an unknown script or path, 400 for a body that is not JSON', async () => {
    const api = await startApi({ scripts: { s: ['x'] } });
    const unknownScript = await post(`${api.url}/nope${MESSAGES}`, anthropicRequest('hi'));
    expect(unknownScript.status).toBe(404);
    expect((await readJson(unknownScript)).error.message).toBe('no script named "nope" (scripts: s)');
    const unknownPath = await post(`${api.url}/s/v2/things`, {});
    expect(unknownPath.status).toBe(404);
    expect((await readJson(unknownPath)).error.message).toBe('no POST /v2/things in the simulated APIs');
    const bad = await post(`${api.url}/s${MESSAGES}`, '{not json');
    expect(bad.status).toBe(400);
    expect(api.requests.map((r) => [r.served, r.status])).toEqual([
      ['not_found', 404],
      ['not_found', 404],
      ['bad_request', 400],
    ]);
  });

  it('lists models for OpenAI/Anthropic clients and for Gemini clients', async () => {
    const api = await startApi({ scripts: { s: ['x'] } });
    const models = await readJson(await fetch(`${api.url}/s/v1/models`));
    expect(models.object).toBe('list');
    expect(models.data.map((m: { id: string }) => m.id)).toContain('gpt-5.5');
    const gemini = await readJson(await fetch(`${api.url}/s/v1beta/models`));
    expect(gemini.models.map((m: { name: string }) => m.name)).toContain('models/gemini-2.5-pro');
  });

  it('answers a write reply with text saying so when the request offered no usable tool', async () => {
    const api = await startApi({ scripts: { s: [{ write: { path: 'a', content: 'b' } }] } });
    const message = await readJson(await post(`${api.url}/s${MESSAGES}`, anthropicRequest('hi', ['Read'])));
    expect(message.content[0].text).toMatch(/offered no such tool \(offered: Read\)/);
    expect(api.requests[0]).toMatchObject({ reply: 0, served: 'no-tool' });
  });

  it('logs every request in memory and, as JSON lines, to the log file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'harmflow-model-api-'));
    const logFile = join(dir, 'requests.jsonl');
    const seen: string[] = [];
    const api = await startApi({
      scripts: { s: [{ write: { path: 'a.txt', content: 'x' } }, 'done'] },
      logFile,
      onRequest: (record) => seen.push(record.served),
    });
    const handoff = 'Continue the task.\nHarmFlow context file: /tmp/run/context.json';
    await post(`${api.url}/s${MESSAGES}?beta=true`, anthropicRequest(handoff), { 'x-api-key': 'k' });
    await readSse(
      await post(`${api.url}/s${MESSAGES}`, { ...anthropicRequest(handoff), stream: true }, { 'x-api-key': 'k' }),
    );
    expect(api.requests).toHaveLength(2);
    expect(api.requests[0]).toEqual({
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      script: 's',
      method: 'POST',
      path: '/v1/messages?beta=true',
      auth: 'x-api-key',
      provider: 'anthropic',
      model: 'claude-opus-5-5',
      stream: false,
      tools: ['Write', 'Bash'],
      lastUserText: handoff,
      reply: 0,
      served: 'write:Write',
      status: 200,
    });
    expect(api.requests[1]).toMatchObject({ reply: 1, served: 'text', stream: true });
    expect(seen).toEqual(['write:Write', 'text']);
    await api.close();
    const lines = (await readFile(logFile, 'utf8')).trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual(api.requests);
  });

  it('closes idempotently; nothing answers afterwards', async () => {
    const api = await startModelApi({ scripts: { s: ['x'] } });
    const stream = await post(`${api.url}/s${MESSAGES}`, { ...anthropicRequest('hi'), stream: true });
    expect(dataOf(await readSse(stream)).at(-1).type).toBe('message_stop');
    await Promise.all([api.close(), api.close()]);
    await api.close();
    await expect(fetch(`${api.url}/s/v1/models`)).rejects.toThrow();
  });
});
