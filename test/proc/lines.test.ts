import { describe, expect, it } from 'vitest';
import { LINE_LIMIT_BYTES, LineSplitter } from '../../src/proc/lines.js';

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

describe('LineSplitter on a line over its bound', () => {
  /** The marker a cut line ends with, and the count of bytes it names. */
  const CUT = /^(.*) … \[HarmFlow dropped (\d+) bytes of this line; the raw log keeps it whole\]$/s;
  const MiB = 1024 * 1024;

  function pieces(bytes: Buffer, size = 65_536): Buffer[] {
    const out: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
    return out;
  }

  function cut(line: string): { kept: string; dropped: number } {
    const match = CUT.exec(line);
    if (match === null) throw new Error(`not a cut line: ${line.slice(-120)}`);
    return { kept: match[1] ?? '', dropped: Number(match[2]) };
  }

  it('hands on a 5 MiB line cut to at most the bound, naming exactly the bytes it dropped', () => {
    const long = `{"type":"user","text":"${'x'.repeat(5 * MiB)}"}`;
    const lines = splitAll(pieces(Buffer.from(`first\n${long}\r\nnext\n`)));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('first');
    expect(lines[2]).toBe('next');
    const line = lines[1] ?? '';
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(LINE_LIMIT_BYTES);
    const { kept, dropped } = cut(line);
    expect(long.startsWith(kept)).toBe(true);
    expect(kept.length).toBeGreaterThan(LINE_LIMIT_BYTES - 200);
    // Every byte of the line before its `\r\n` is either kept or counted.
    expect(Buffer.byteLength(kept) + dropped).toBe(Buffer.byteLength(long));
  });

  it('cuts between characters, never inside one, whatever byte the bound falls on', () => {
    for (const shift of [0, 1, 2, 3]) {
      const long = `${'a'.repeat(shift)}${'é🚀'.repeat(MiB / 4)}`;
      const [line = ''] = splitAll(pieces(Buffer.from(`${long}\n`), 4096));
      const { kept, dropped } = cut(line);
      expect(kept).not.toContain('\uFFFD');
      expect(long.startsWith(kept)).toBe(true);
      expect(Buffer.byteLength(kept) + dropped).toBe(Buffer.byteLength(long));
    }
  });

  it('cuts a last line without a newline when the stream ends', () => {
    const [line = ''] = splitAll([Buffer.from('y'.repeat(2 * MiB))]);
    expect(cut(line).dropped + Buffer.byteLength(cut(line).kept)).toBe(2 * MiB);
  });

  it('keeps a line of exactly the bound whole', () => {
    const exact = 'z'.repeat(LINE_LIMIT_BYTES);
    expect(splitAll([Buffer.from(`${exact}\n`)])).toEqual([exact]);
  });

  it('holds about the bound, not the line, while a 256 MiB line arrives', () => {
    const chunk = Buffer.alloc(MiB, 'q');
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    const held = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    const before = held();
    for (let n = 0; n < 256; n++) splitter.push(chunk);
    // Measured before the line ends: what the splitter holds of a line still arriving.
    expect(held() - before).toBeLessThan(32 * MiB);
    splitter.push(Buffer.from('\n'));
    expect(cut(lines[0] ?? '').dropped + Buffer.byteLength(cut(lines[0] ?? '').kept)).toBe(256 * MiB);
  });
});
