import { describe, expect, it } from 'vitest';
import { compact } from '../../src/core/compact.js';
import { clipOutput, isoFromEpochSeconds, OUTPUT_LIMIT, parseJsonLine } from '../../src/harnesses/lines.js';

describe('clipOutput', () => {
  it('keeps text within the limit as is', () => {
    expect(clipOutput('short')).toEqual({ output: 'short', truncated: false });
    const exact = 'a'.repeat(OUTPUT_LIMIT);
    expect(clipOutput(exact)).toEqual({ output: exact, truncated: false });
  });

  it('keeps the start and the end of longer text within the limit', () => {
    const text = `[main 1a2b3c4] subject\n${'.'.repeat(20_000)}\nTests  3 passed | 1 failed`;
    const { output, truncated } = clipOutput(text);
    expect(truncated).toBe(true);
    expect(output.length).toBeLessThanOrEqual(OUTPUT_LIMIT);
    expect(output.startsWith('[main 1a2b3c4] subject')).toBe(true);
    expect(output.endsWith('Tests  3 passed | 1 failed')).toBe(true);
    expect(output).toContain(`[${text.length - OUTPUT_LIMIT} characters cut]`);
  });

  it('honours a small limit', () => {
    const { output } = clipOutput('x'.repeat(500), 100);
    expect(output.length).toBeLessThanOrEqual(100);
  });
});

describe('line helpers', () => {
  it('decodes JSON or returns undefined', () => {
    expect(parseJsonLine('{"a":1}')).toEqual({ a: 1 });
    expect(parseJsonLine('{"a":')).toBeUndefined();
  });

  it('converts epoch seconds', () => {
    expect(isoFromEpochSeconds(1795945254)).toBe('2026-11-29T09:40:54.000Z');
    expect(isoFromEpochSeconds(Number.NaN)).toBeUndefined();
  });

  it('drops undefined and null fields', () => {
    expect(compact({ a: 1, b: undefined, c: null, d: '', e: 0 })).toEqual({ a: 1, d: '', e: 0 });
  });
});
