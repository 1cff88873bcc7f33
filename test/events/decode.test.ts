import { describe, expect, it } from 'vitest';
import { RecordDecoder } from '../../src/events/decode.js';
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
});
