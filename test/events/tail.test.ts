import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { followBatches, followEvents, openEventLog } from '../../src/events/log.js';
import type { EventRecord } from '../../src/events/schema.js';

const EXECUTION = '01jf3k9x7q2m4n6p8r0s2t4v6w';
const root = mkdtempSync(join(tmpdir(), 'harmflow-tail-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let files = 0;
const newFile = () => join(root, `${++files}`, 'events.jsonl');

const record = (text: string): EventRecord => ({
  ts: '2025-03-01T10:00:00.000Z',
  execution: EXECUTION,
  source: 'executor',
  type: 'message',
  data: { text },
});
const line = (text: string) => `${JSON.stringify(record(text))}\n`;
const texts = (records: readonly EventRecord[]) =>
  records.map((read) => (read.type === 'message' ? read.data.text : read.type));

/** Resolves as `promise` does, or rejects when it takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** True if `promise` is still pending after `ms`. */
async function stillPending(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const pending = Symbol('pending');
  const settled = await Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(pending), ms))]);
  return settled === pending;
}

async function take(iterator: AsyncIterator<EventRecord>, count: number, ms: number): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  while (out.length < count) {
    const next = await within(iterator.next(), ms, `record ${out.length + 1} of ${count}`);
    if (next.done) throw new Error('the follower ended early');
    out.push(next.value);
  }
  return out;
}

describe('followEvents', () => {
  it('yields the records written, then appended ones as the watcher reports them, and ends on abort', {
    timeout: 5000,
  }, async () => {
    const file = newFile();
    const log = openEventLog(file, { execution: EXECUTION });
    log.append(record('one'));
    log.append(record('two'));
    const controller = new AbortController();
    // Polling is out of the picture (one poll a minute), and the appends below are another writer's
    // (not this process's `openEventLog`, which would wake the follower itself): only fs.watch can
    // deliver in time.
    const follower = followEvents(file, { signal: controller.signal, pollMs: 60_000 });
    expect(texts(await take(follower, 2, 1000))).toEqual(['one', 'two']);

    const third = follower.next();
    expect(await stillPending(third, 50)).toBe(true);
    appendFileSync(file, line('three'));
    appendFileSync(file, line('four'));
    expect(texts([(await within(third, 1000, 'three')).value as EventRecord])).toEqual(['three']);
    expect(texts(await take(follower, 1, 1000))).toEqual(['four']);

    const waiting = follower.next();
    expect(await stillPending(waiting, 50)).toBe(true); // parked, waiting for the file to grow
    const abortedAt = Date.now();
    controller.abort();
    expect(await within(waiting, 2000, 'end after abort')).toEqual({ done: true, value: undefined });
    expect(Date.now() - abortedAt).toBeLessThan(1000);
    log.close();
  });

  it('holds a partial last line until its newline arrives', { timeout: 5000 }, async () => {
    const file = newFile();
    mkdirSync(join(file, '..'), { recursive: true });
    const whole = line('late');
    appendFileSync(file, line('early') + whole.slice(0, 30));
    const controller = new AbortController();
    const follower = followEvents(file, { signal: controller.signal, pollMs: 20 });
    expect(texts(await take(follower, 1, 1000))).toEqual(['early']);
    const next = follower.next();
    expect(await stillPending(next, 150)).toBe(true);
    appendFileSync(file, whole.slice(30, -1));
    expect(await stillPending(next, 150)).toBe(true);
    appendFileSync(file, '\n');
    expect(texts([(await within(next, 1000, 'late')).value as EventRecord])).toEqual(['late']);
    controller.abort();
    expect((await within(follower.next(), 1000, 'end')).done).toBe(true);
  });

  it('skips the first `from` records, and ends when the consumer stops', { timeout: 5000 }, async () => {
    const file = newFile();
    const log = openEventLog(file, { execution: EXECUTION });
    for (const text of ['0', '1', '2']) log.append(record(text));
    const seen: string[] = [];
    const reading = (async () => {
      for await (const read of followEvents(file, { from: 2, signal: new AbortController().signal })) {
        seen.push(...texts([read]));
        if (seen.length === 2) break;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    log.append(record('3'));
    await within(reading, 1000, 'the loop to end');
    expect(seen).toEqual(['2', '3']);
    log.close();
  });

  it('waits for a log that does not exist yet, and finds it by polling', { timeout: 5000 }, async () => {
    const file = newFile();
    const controller = new AbortController();
    const follower = followEvents(file, { signal: controller.signal, pollMs: 25 });
    const first = follower.next();
    expect(await stillPending(first, 100)).toBe(true);
    const log = openEventLog(file, { execution: EXECUTION });
    log.append(record('born'));
    expect(texts([(await within(first, 1000, 'born')).value as EventRecord])).toEqual(['born']);
    log.append(record('grown'));
    expect(texts(await take(follower, 1, 1000))).toEqual(['grown']);
    controller.abort();
    expect((await within(follower.next(), 1000, 'end')).done).toBe(true);
    log.close();
  });

  it('reports lines that are not records and yields the rest', { timeout: 5000 }, async () => {
    const file = newFile();
    mkdirSync(join(file, '..'), { recursive: true });
    appendFileSync(file, `${line('a')}garbage\n${line('b')}`);
    const invalid: string[] = [];
    const controller = new AbortController();
    const follower = followEvents(file, { signal: controller.signal, onInvalid: (text) => invalid.push(text) });
    expect(texts(await take(follower, 2, 1000))).toEqual(['a', 'b']);
    expect(invalid).toEqual(['garbage']);
    controller.abort();
    expect((await within(follower.next(), 1000, 'end')).done).toBe(true);
  });

  it('yields nothing for a signal already aborted', async () => {
    const file = newFile();
    const log = openEventLog(file, { execution: EXECUTION });
    log.append(record('x'));
    log.close();
    const follower = followEvents(file, { signal: AbortSignal.abort() });
    expect(await within(follower.next(), 1000, 'end')).toEqual({ done: true, value: undefined });
  });

  it('wakes at once on an append by this process, with neither a watcher nor a poll to tell it', {
    timeout: 5000,
  }, async () => {
    const file = newFile();
    const controller = new AbortController();
    // The log does not exist yet, so nothing watches it, and the next poll is a minute away.
    const follower = followEvents(file, { signal: controller.signal, pollMs: 60_000 });
    const first = follower.next();
    expect(await stillPending(first, 50)).toBe(true);
    const log = openEventLog(file, { execution: EXECUTION });
    log.append(record('told'));
    expect(texts([(await within(first, 1000, 'told')).value as EventRecord])).toEqual(['told']);
    controller.abort();
    expect((await within(follower.next(), 1000, 'end')).done).toBe(true);
    log.close();
  });
});

describe('followBatches', () => {
  it('starts at a known position without reading before it, and says where each read ends', {
    timeout: 5000,
  }, async () => {
    const file = newFile();
    mkdirSync(join(file, '..'), { recursive: true });
    // Garbage where the history would be: a follower that read it would number the records after it
    // from 0, as garbage takes no position.
    const history = 'x'.repeat(99);
    appendFileSync(file, `${history}\n${line('a')}`);
    const at = { bytes: history.length + 1, records: 41 };
    const controller = new AbortController();
    const batches = followBatches(file, { at, signal: controller.signal, pollMs: 60_000 });
    const first = await within(batches.next(), 1000, 'the first batch');
    expect(first.value).toEqual({ records: [record('a')], end: { bytes: at.bytes + line('a').length, records: 42 } });
    appendFileSync(file, line('b') + line('c'));
    const next = await within(batches.next(), 1000, 'the appended batch');
    expect(texts(next.value?.records ?? [])).toEqual(['b', 'c']);
    expect(next.value?.end).toEqual({ bytes: at.bytes + 3 * line('a').length, records: 44 });
    controller.abort();
    expect((await within(batches.next(), 1000, 'end')).done).toBe(true);
  });
});
