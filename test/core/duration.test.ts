import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/core/duration.js';

describe('parseDuration', () => {
  it('reads units and their combinations, in milliseconds', () => {
    expect(parseDuration('45m')).toBe(2_700_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('2d')).toBe(172_800_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('1m500ms')).toBe(60_500);
    expect(parseDuration(' 45m ')).toBe(2_700_000);
  });

  it('reads a bare number, as text or as a number, as seconds', () => {
    expect(parseDuration('10')).toBe(10_000);
    expect(parseDuration('600')).toBe(600_000);
    expect(parseDuration('1.5')).toBe(1500);
    expect(parseDuration(10)).toBe(10_000);
    expect(parseDuration(1.5)).toBe(1500);
  });

  it('rejects what is not a duration', () => {
    for (const text of ['', '   ', 'abc', '5x', '45M', '1h 30m', '1m30', 'm', '45 m', 'h1', '1h-30m', '1e3']) {
      expect(parseDuration(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it('rejects zero and negative durations, written either way', () => {
    for (const value of ['0', '0.0', '0m', '0h0m', '-5', '-5m', 0, -1, -0.5]) {
      expect(parseDuration(value), JSON.stringify(value)).toBeUndefined();
    }
  });

  it('rejects numbers that are not finite', () => {
    expect(parseDuration(Number.NaN)).toBeUndefined();
    expect(parseDuration(Number.POSITIVE_INFINITY)).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it('formats milliseconds below a second as ms', () => {
    expect(formatDuration(0)).toBe('0ms');
    expect(formatDuration(850)).toBe('850ms');
    expect(formatDuration(12.4)).toBe('12ms');
  });

  it('formats seconds, minutes and hours, leaving out zero parts', () => {
    expect(formatDuration(1000)).toBe('1s');
    expect(formatDuration(42_000)).toBe('42s');
    expect(formatDuration(1499)).toBe('1s');
    expect(formatDuration(90_000)).toBe('1m 30s');
    expect(formatDuration(120_000)).toBe('2m');
    expect(formatDuration(59_500)).toBe('1m');
    expect(formatDuration(3_600_000)).toBe('1h');
    expect(formatDuration(3_900_000)).toBe('1h 5m');
    expect(formatDuration(3_605_000)).toBe('1h 5s');
    expect(formatDuration(5_400_000)).toBe('1h 30m');
    expect(formatDuration(86_400_000)).toBe('24h');
  });

  it('formats what parseDuration read back to the same length of time', () => {
    for (const text of ['45m', '1h30m', '90s']) {
      const ms = parseDuration(text) as number;
      expect(parseDuration(formatDuration(ms).replaceAll(' ', ''))).toBe(ms);
    }
  });
});
