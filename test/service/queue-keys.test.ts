/**
 * The durable queue's idempotency keys: a message sent again with its key is answered as the first
 * time and queued once — after a reload from queue.json (a restarted service), after its turn ran
 * and left the queue, after the queue closed — and a key reused with another request is refused.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IdempotencyKeyReusedError } from '../../src/service/execution-service.js';
import { DurableQueue, KEPT_KEYS, QueueFile } from '../../src/service/queue.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'harmflow-queue-keys-'));
  file = join(dir, 'queue.json');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const request = (key: string, requestHash = 'hash-of-the-body') => ({ key, requestHash });
const stored = () => QueueFile.parse(JSON.parse(readFileSync(file, 'utf8')));

describe('DurableQueue idempotency keys', () => {
  it('answers a key sent again as the first time, and queues its message once', () => {
    const queue = DurableQueue.create(file, 'the task');
    const first = queue.enqueue('also the changelog', request('k-1'));
    expect(first).toMatchObject({ turn: { id: 't2' }, queued: 2, repeated: false });
    expect(queue.enqueue('also the changelog', request('k-1'))).toMatchObject({
      turn: { id: 't2' },
      queued: 2,
      repeated: true,
    });
    expect(stored().pending.map((turn) => turn.id)).toEqual(['t1', 't2']);
    expect(stored().keys).toEqual([{ key: 'k-1', requestHash: 'hash-of-the-body', turn: 't2', queued: 2 }]);
  });

  it('keeps the key across a reload, after the turn ran and left the queue, and once the queue closed', () => {
    const queue = DurableQueue.create(file, 'the task');
    queue.enqueue('also the changelog', request('k-1'));
    for (let turn = queue.next(); turn !== undefined; turn = queue.next()) queue.done(turn);
    expect(queue.closed).toBe(true);
    expect(stored()).toMatchObject({ running: null, pending: [] });

    expect(queue.enqueue('also the changelog', request('k-1'))).toMatchObject({ turn: { id: 't2' }, repeated: true });
    const reloaded = DurableQueue.load(file);
    expect(reloaded.enqueue('also the changelog', request('k-1'))).toMatchObject({
      turn: { id: 't2' },
      queued: 2,
      repeated: true,
    });
    expect(reloaded.size).toBe(0);
    expect(DurableQueue.answered(file, request('k-1'), 'also the changelog')).toMatchObject({
      turn: { id: 't2' },
      queued: 2,
      repeated: true,
    });
    expect(DurableQueue.answered(file, request('k-2'), 'other')).toBeUndefined();
    expect(DurableQueue.answered(join(dir, 'none.json'), request('k-1'), 'other')).toBeUndefined();
  });

  it('refuses a key reused with another request, and queues nothing for it', () => {
    const queue = DurableQueue.create(file, 'the task');
    queue.enqueue('also the changelog', request('k-1'));
    expect(() => queue.enqueue('something else', request('k-1', 'another hash'))).toThrow(IdempotencyKeyReusedError);
    expect(() => DurableQueue.answered(file, request('k-1', 'another hash'), 'something else')).toThrow(
      /Idempotency-Key "k-1" was sent before with another request/,
    );
    expect(queue.size).toBe(2);
  });

  it(`keeps the latest ${KEPT_KEYS} keys: an older one is forgotten`, () => {
    const queue = DurableQueue.create(file, 'the task');
    for (let n = 0; n <= KEPT_KEYS; n++) queue.enqueue(`message ${n}`, request(`k-${n}`));
    const keys = stored().keys ?? [];
    expect(keys).toHaveLength(KEPT_KEYS);
    expect(keys[0]?.key).toBe('k-1');
    expect(queue.enqueue(`message ${KEPT_KEYS}`, request(`k-${KEPT_KEYS}`)).repeated).toBe(true);
    expect(queue.enqueue('message 0', request('k-0')).repeated).toBe(false);
  });

  it('reads a queue.json written without keys (an earlier version), and adds them', () => {
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        nextNumber: 3,
        running: { id: 't2', text: 'earlier', queuedAt: '2025-03-01T10:00:00.000Z' },
        pending: [],
      }),
    );
    const queue = DurableQueue.load(file);
    expect(queue.enqueue('next', request('k-1'))).toMatchObject({ turn: { id: 't3' }, queued: 1, repeated: false });
    expect(stored()).toMatchObject({ version: 1, running: { id: 't2' }, keys: [{ key: 'k-1', turn: 't3' }] });
  });

  it('writes no keys for messages sent without one', () => {
    const queue = DurableQueue.create(file, 'the task');
    queue.enqueue('no key');
    expect(stored()).not.toHaveProperty('keys');
  });
});
