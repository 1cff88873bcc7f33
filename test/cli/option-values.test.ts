import { describe, expect, it } from 'vitest';
import { durationOption } from '../../src/cli/option-values.js';
import { UsageError } from '../../src/core/errors.js';

describe('durationOption', () => {
  it('reads budgets up to 1h', () => {
    expect(durationOption('30s', '--interrupt-budget')).toBe(30_000);
    expect(durationOption('1h', '--close-budget')).toBe(3_600_000);
    expect(durationOption(undefined, '--close-budget')).toBeUndefined();
  });

  it('refuses a longer one in one line naming the option, the value and the maximum', () => {
    expect(() => durationOption('600h', '--interrupt-budget')).toThrow(
      new UsageError('--interrupt-budget: 600h is longer than the maximum, 1h'),
    );
    expect(() => durationOption('1e308', '--close-budget')).toThrow(UsageError);
    expect(() => durationOption('99999999999999999999999', '--close-budget')).toThrow(
      '--close-budget: 99999999999999999999999 is longer than the maximum, 1h',
    );
  });
});
