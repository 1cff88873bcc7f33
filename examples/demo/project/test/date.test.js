import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDate } from '../src/date.js';

test('parses a calendar date', () => {
  assert.equal(parseDate('2024-02-29').toISOString(), '2024-02-29T00:00:00.000Z');
});

test('rejects an impossible date', () => {
  assert.throws(() => parseDate('2023-02-29'));
});
