import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { logEnd, readEvents } from '../../src/events/log.js';
import type { EventRecord } from '../../src/events/schema.js';

const root = mkdtempSync(join(tmpdir(), 'harmflow-read-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let files = 0;
const newFile = () => join(root, `${++files}.jsonl`);

const record = (text: string): EventRecord => ({
  ts: '2025-03-01T10:00:00.000Z',
  execution: '01jf3k9x7q2m4n6p8r0s2t4v6w',
  source: 'executor',
  type: 'message',
  data: { text },
});
const line = (text: string) => `${JSON.stringify(record(text))}\n`;

describe('readEvents', () => {
  it('returns no records for a missing file', () => {
    expect(readEvents(join(root, 'missing', 'events.jsonl'))).toEqual([]);
  });

  it('returns the records in file order', () => {
    const file = newFile();
    appendFileSync(file, line('one') + line('two') + line('three'));
    expect(readEvents(file)).toStrictEqual([record('one'), record('two'), record('three')]);
  });

  it('holds back a partial last line until its newline is written', () => {
    const file = newFile();
    const whole = line('second');
    appendFileSync(file, line('first') + whole.slice(0, 20));
    expect(readEvents(file)).toStrictEqual([record('first')]);
    appendFileSync(file, whole.slice(20, -1));
    expect(readEvents(file)).toStrictEqual([record('first')]);
    appendFileSync(file, '\n');
    expect(readEvents(file)).toStrictEqual([record('first'), record('second')]);
  });

  it('reads only what came after a size the log had (logEnd), `from` counting from there', () => {
    const file = newFile();
    expect(logEnd(file)).toBe(0);
    appendFileSync(file, line('0') + line('1'));
    const end = logEnd(file);
    appendFileSync(file, line('2') + line('3'));
    expect(readEvents(file, { fromByte: end })).toStrictEqual([record('2'), record('3')]);
    expect(readEvents(file, { fromByte: end, from: 1 })).toStrictEqual([record('3')]);
    expect(readEvents(file, { fromByte: logEnd(file) })).toEqual([]);
  });

  it('skips the first `from` records', () => {
    const file = newFile();
    appendFileSync(file, line('0') + line('1') + line('2'));
    expect(readEvents(file, { from: 1 })).toStrictEqual([record('1'), record('2')]);
    expect(readEvents(file, { from: 3 })).toEqual([]);
    expect(readEvents(file, { from: 10 })).toEqual([]);
  });

  it('skips lines that are not records, reports them, and gives them no position', () => {
    const file = newFile();
    const invalid: string[] = [];
    const wrongPayload = JSON.stringify({ ...record('x'), data: { text: 42 } });
    appendFileSync(file, `${line('0')}not json\n${wrongPayload}\n\n${line('1')}{"ts":1}\n${line('2')}`);
    expect(readEvents(file, { onInvalid: (text) => invalid.push(text) })).toStrictEqual([
      record('0'),
      record('1'),
      record('2'),
    ]);
    expect(invalid).toEqual(['not json', wrongPayload, '', '{"ts":1}']);
    expect(readEvents(file, { from: 2 })).toStrictEqual([record('2')]);
  });
});
