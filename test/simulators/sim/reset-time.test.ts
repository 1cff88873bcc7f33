import { expect, test } from 'vitest';
import { ceilToMinute, claudeResetText, codexResetText } from '../../../src/simulators/sim/reset-time.js';

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

test('Claude Code: time only when the reset is today, with the month and day otherwise', () => {
  const now = new Date(2026, 10, 29, 7, 12);
  expect(claudeResetText(new Date(2026, 10, 29, 9, 40), now)).toBe(`9:40am (${zone})`);
  expect(claudeResetText(new Date(2026, 10, 29, 12, 5), now)).toBe(`12:05pm (${zone})`);
  expect(claudeResetText(new Date(2026, 10, 30, 9, 41), now)).toBe(`Nov 30, 9:41am (${zone})`);
});

test('Codex: h:mm AM/PM', () => {
  expect(codexResetText(new Date(2026, 10, 29, 9, 31))).toBe('9:31 AM');
  expect(codexResetText(new Date(2026, 10, 29, 0, 7))).toBe('12:07 AM');
  expect(codexResetText(new Date(2026, 10, 29, 21, 44))).toBe('9:44 PM');
});

test('times round up to the minute, so a time read back is never before the reset', () => {
  expect(codexResetText(new Date(2026, 10, 29, 9, 30, 1))).toBe('9:31 AM');
  expect(ceilToMinute(new Date(2026, 10, 29, 9, 30, 0)).getMinutes()).toBe(30);
});
