import { describe, expect, it } from 'vitest';
import { LOG_START, RecordDecoder } from '../../src/events/decode.js';
import type { EventRecord } from '../../src/events/schema.js';

const record = (text: string): EventRecord => ({
  ts: '2025-03-01T10:00:00.000Z',
  execution: '01jf3k9x7q2m4n6p8r0s2t4v6w',
  source: 'harness',
  type: 'message',
  data: { text },
});

describe('RecordDecoder', () => {
  it('decodes a multi-byte character cut between two pushes whole', () => {
    const bytes = Buffer.from(`${JSON.stringify(record('snowman ☃ and 🎉'))}\n`);
    const cut = bytes.indexOf(Buffer.from('☃')) + 1; // inside the 3-byte snowman
    const decoder = new RecordDecoder(0);
    expect(decoder.push(bytes.subarray(0, cut))).toEqual([]);
    expect(decoder.push(bytes.subarray(cut))).toStrictEqual([record('snowman ☃ and 🎉')]);
  });

  it('feeds byte by byte and counts `from` across pushes', () => {
    const bytes = Buffer.from(['a', 'b', 'c'].map((text) => `${JSON.stringify(record(text))}\n`).join(''));
    const decoder = new RecordDecoder(1);
    const out: EventRecord[] = [];
    const reused = Buffer.alloc(1);
    for (const byte of bytes) {
      reused[0] = byte; // the caller reuses its buffer, as followEvents does
      out.push(...decoder.push(reused));
    }
    expect(out).toStrictEqual([record('b'), record('c')]);
  });

  it('says where its complete lines end and how many records they hold, garbage and skipped ones included', () => {
    const a = `${JSON.stringify(record('a'))}\n`;
    const b = `${JSON.stringify(record('b'))}\n`;
    const decoder = new RecordDecoder(1);
    expect(decoder.position).toEqual(LOG_START);
    expect(decoder.push(Buffer.from(`${a}garbage\n${b.slice(0, 10)}`))).toStrictEqual([]);
    // `a` counts though skipped; the garbage line takes bytes but no position; the torn `b` neither.
    expect(decoder.position).toEqual({ bytes: Buffer.byteLength(`${a}garbage\n`), records: 1 });
    expect(decoder.push(Buffer.from(b.slice(10)))).toStrictEqual([record('b')]);
    expect(decoder.position).toEqual({ bytes: Buffer.byteLength(`${a}garbage\n${b}`), records: 2 });
  });

  it('decodes from a known position without the bytes before it, numbering on from there', () => {
    const c = `${JSON.stringify(record('c'))}\n`;
    // Records 0..9 are before byte 1000; `from: 11` skips up to and including `c` (record 10).
    const decoder = new RecordDecoder(11, undefined, { bytes: 1000, records: 10 });
    expect(decoder.push(Buffer.from(c + c))).toStrictEqual([record('c')]);
    expect(decoder.position).toEqual({ bytes: 1000 + 2 * Buffer.byteLength(c), records: 12 });
  });
});
