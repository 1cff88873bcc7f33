import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/proc/lines.js';

function splitAll(chunks: Buffer[]): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((line) => lines.push(line));
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return lines;
}

describe('LineSplitter', () => {
  const text = 'première ligne\r\n{"emoji":"🚀"}\n\nlast — no newline';
  const expected = ['première ligne', '{"emoji":"🚀"}', '', 'last — no newline'];
  const bytes = Buffer.from(text, 'utf8');

  it('splits lines, drops \\r of \\r\\n and delivers the partial last line at the end', () => {
    expect(splitAll([bytes])).toEqual(expected);
  });

  it('gives the same lines whatever byte the input is cut at, including inside a character', () => {
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(splitAll([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(expected);
    }
  });

  it('gives the same lines when every byte arrives alone', () => {
    expect(splitAll([...bytes].map((byte) => Buffer.from([byte])))).toEqual(expected);
  });

  it('handles a 200 KB line arriving in 64 KiB pieces', () => {
    const long = JSON.stringify({ text: 'é'.repeat(100_000) });
    const input = Buffer.from(`${long}\nnext\n`);
    const pieces: Buffer[] = [];
    for (let at = 0; at < input.length; at += 65_536) pieces.push(input.subarray(at, at + 65_536));
    expect(splitAll(pieces)).toEqual([long, 'next']);
  });

  it('delivers nothing for empty input and nothing twice on a second end()', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    splitter.push(Buffer.from('a\nb'));
    splitter.end();
    splitter.end();
    splitter.push(Buffer.from('ignored\n'));
    expect(lines).toEqual(['a', 'b']);
    expect(splitAll([])).toEqual([]);
  });
});
