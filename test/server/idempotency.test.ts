/**
 * `Idempotency-Key` on the write routes, in-process against a real Registry (simulated harnesses, a
 * real repository): the same key answers the same status and body and does the work once; the
 * same key with another body is 422; a malformed key is 400 and does nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QueueFile } from '../../src/service/queue.js';
import { git, simulated } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench } from '../service/bench.js';
import { request, serviceBenchApp } from './fixture.js';

let bench: ServiceBench;
let app: Hono;

beforeEach(() => {
  bench = makeServiceBench();
  app = serviceBenchApp(bench);
});
afterEach(async () => {
  await bench.cleanup();
});

function post(path: string, body: unknown, key?: string): Promise<Response> {
  return request(app, path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key !== undefined && { 'idempotency-key': key }) },
    body: JSON.stringify(body),
  });
}

/** The answer's status and its body as sent (text: identical answers are identical bytes). */
async function answer(response: Promise<Response>): Promise<{ status: number; body: string }> {
  const done = await response;
  return { status: done.status, body: await done.text() };
}

function taskBody(prompt = 'Do it.') {
  const scenario = bench.scenario('slow', {
    pace: '400ms',
    steps: [{ say: 'working' }, { say: 'still working' }, { end: 'complete' }],
  });
  return { name: 'api-task', repo: bench.repo, baseRef: 'main', prompt, harness: simulated('claude-code', scenario) };
}

function messagesQueued(id: string): string[] {
  return bench.events(id).flatMap((record) => (record.type === 'message.queued' ? [record.data.turn] : []));
}

describe('Idempotency-Key on POST /api/executions/:id/messages', () => {
  it('answers a retry with the first answer and queues the message once', { timeout: 20_000 }, async () => {
    const created = await answer(post('/api/executions', { task: taskBody() }));
    const id = (JSON.parse(created.body) as { execution: { id: string } }).execution.id;
    const path = `/api/executions/${id}/messages`;

    const first = await answer(post(path, { text: 'also the changelog' }, 'message-key-1'));
    const again = await answer(post(path, { text: 'also the changelog' }, 'message-key-1'));
    expect(first).toEqual({ status: 202, body: JSON.stringify({ turn: { id: 't2', execution: id, queued: 2 } }) });
    expect(again).toEqual(first);
    expect(messagesQueued(id)).toEqual(['t2']);
    const queue = QueueFile.parse(JSON.parse(readFileSync(bench.home.queueFile(id), 'utf8')));
    expect(queue.nextNumber).toBe(3);

    const reused = await answer(post(path, { text: 'something else' }, 'message-key-1'));
    expect(reused.status).toBe(422);
    expect(JSON.parse(reused.body)).toEqual({
      error: {
        name: 'IdempotencyKeyReusedError',
        message:
          'Idempotency-Key "message-key-1" was sent before with another request: send a new key with a new request',
      },
    });
    expect((await answer(post(path, { text: 'also the changelog' }, '"message-key-1"'))).body).toBe(first.body);
    await bench.registry.settled();
    expect((await answer(post(path, { text: 'also the changelog' }, 'message-key-1'))).body).toBe(first.body);
    expect(messagesQueued(id)).toEqual(['t2']);
  });

  it('refuses a malformed key with 400 and queues nothing', { timeout: 20_000 }, async () => {
    const created = await answer(post('/api/executions', { task: taskBody() }));
    const id = (JSON.parse(created.body) as { execution: { id: string } }).execution.id;
    for (const key of ['', '""', 'x'.repeat(256), 'caf\u00e9', '"unclosed']) {
      const refused = await answer(post(`/api/executions/${id}/messages`, { text: 'hi' }, key));
      expect({ key, status: refused.status }).toEqual({ key, status: 400 });
      expect(refused.body).toMatch(/bad Idempotency-Key header: give 1 to 255 printable ASCII characters/);
    }
    expect(messagesQueued(id)).toEqual([]);
  });
});

describe('Idempotency-Key on POST /api/executions', () => {
  it('answers a retry with the first answer and makes one execution, one worktree', { timeout: 20_000 }, async () => {
    const first = await answer(post('/api/executions', { task: taskBody() }, 'submit-key-1'));
    await new Promise((resolve) => setTimeout(resolve, 300)); // it starts running meanwhile
    const again = await answer(post('/api/executions', { task: taskBody() }, 'submit-key-1'));
    expect(first.status).toBe(201);
    expect(again).toEqual(first);
    expect(await bench.store.listExecutions()).toHaveLength(1);
    expect(readdirSync(bench.home.worktrees)).toHaveLength(1);

    const reused = await answer(post('/api/executions', { task: taskBody('Do something else.') }, 'submit-key-1'));
    expect(reused.status).toBe(422);
    expect(await bench.store.listExecutions()).toHaveLength(1);
    const other = await answer(post('/api/executions', { task: taskBody() }, 'submit-key-2'));
    expect(other.status).toBe(201);
    expect(await bench.store.listExecutions()).toHaveLength(2);
  });

  it('makes one execution of submits racing with one key; the others answer it', { timeout: 30_000 }, async () => {
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => answer(post('/api/executions', { task: taskBody() }, 'racing-key'))),
    );
    expect(answers.map((each) => each.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(answers.map((each) => each.body)).size).toBe(1);
    const executions = await bench.store.listExecutions();
    expect(executions).toHaveLength(1);
    expect(readdirSync(bench.home.worktrees)).toEqual([executions[0]?.id]);
    expect(readdirSync(bench.home.runs)).toEqual([executions[0]?.id]);
    expect(git(bench.repo, 'branch', '--list', 'harmflow/*', '--format=%(refname:short)')).toBe(executions[0]?.branch);
  });
});
