import { describe, expect, it } from 'vitest';
import { isQuotaMessage, parseResetIn } from '../../../src/harnesses/opencode/limits.js';

const NOW = Date.parse('2026-11-29T12:00:00.000Z');

describe('isQuotaMessage', () => {
  const quota = [
    'You exceeded your current quota, please check your plan and billing details.',
    'Quota exceeded. Check your plan and billing details.',
    'Free usage exceeded, subscribe to Go',
    '5 hour usage limit reached. It will reset in 4 hours 12 minutes. To continue using this model now, …',
    'Monthly usage limit reached. Resets in 3 days. To continue …',
    'Insufficient balance. Manage your billing here: https://opencode.ai/workspace/w/billing',
    'You have reached your monthly spending limit of $20. Manage your limits here: …',
  ];
  for (const message of quota)
    it(`reads "${message.slice(0, 40)}…" as quota`, () => expect(isQuotaMessage(message)).toBe(true));

  const transient = [
    'Rate limit exceeded. Please try again later.',
    'Rate limit reached for gpt-5 in organization org-x on tokens per min (TPM): Limit 30000. Please try again in 2s.',
    'The server had an error while processing your request. Sorry about that!',
    'Incorrect API key provided: dummy.',
  ];
  for (const message of transient) {
    it(`does not read "${message.slice(0, 40)}…" as quota`, () => expect(isQuotaMessage(message)).toBe(false));
  }
});

describe('parseResetIn', () => {
  const cases = [
    ['It will reset in 2 hours 5 minutes. To continue …', '2026-11-29T14:05:00.000Z'],
    ['Resets in 3hr 12min. To continue …', '2026-11-29T15:12:00.000Z'],
    ['Subscription quota exceeded. Retry in 1 day.', '2026-11-30T12:00:00.000Z'],
    ['It will reset in 1 day 1 hour.', '2026-11-30T13:00:00.000Z'],
    ['Free usage exceeded. Retry in 45s', '2026-11-29T12:00:45.000Z'],
    ['Usage limit reached. It will reset in less than a minute. To continue …', '2026-11-29T12:01:00.000Z'],
  ] as const;
  for (const [message, expected] of cases) {
    it(`reads "${message}"`, () => expect(parseResetIn(message, NOW)).toBe(expected));
  }

  it('leaves the time absent when the message names none or an unknown unit', () => {
    expect(parseResetIn('Free usage exceeded, subscribe to Go', NOW)).toBeUndefined();
    expect(parseResetIn('Resets in 2 fortnights', NOW)).toBeUndefined();
  });
});
