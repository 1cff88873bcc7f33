import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { DefectError, TransientError } from '../../src/workflows/errors.js';
import {
  DEFAULT_RETRY_POLICY,
  nextDelay,
  RetryBudget,
  type RetryInfo,
  type RetryOptions,
  type RetryPolicy,
  resolveRetryPolicy,
  runWithRetries,
} from '../../src/workflows/retry.js';

const policy: RetryPolicy = resolveRetryPolicy({});

/** A sleep that returns at once and remembers what it was asked. */
function fakeSleep(): { sleep: RetryOptions['sleep']; slept: number[] } {
  const slept: number[] = [];
  return { slept, sleep: async (ms) => void slept.push(ms) };
}

/** An attempt that throws the given errors in turn, then returns `value`. */
function failingThen<T>(errors: unknown[], value: T): { attempt: (tryNumber: number) => Promise<T>; seen: number[] } {
  const seen: number[] = [];
  return {
    seen,
    attempt: async (tryNumber) => {
      seen.push(tryNumber);
      const error = errors[tryNumber - 1];
      if (error !== undefined) throw error;
      return value;
    },
  };
}

const overloaded = () => Object.assign(new Error('529 overloaded'), { status: 529 });
const alwaysOverloaded = async (): Promise<never> => {
  throw overloaded();
};

describe('resolveRetryPolicy', () => {
  it('fills every default when nothing is given', () => {
    expect(resolveRetryPolicy()).toEqual(DEFAULT_RETRY_POLICY);
    expect(resolveRetryPolicy({})).toEqual({
      maxTriesPerItem: 5,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      maxRetryAfterMs: 120_000,
      runBudget: 100,
      jitter: 'full',
    });
  });

  it('keeps what the user set', () => {
    expect(resolveRetryPolicy({ maxTriesPerItem: 3, runBudget: 0 })).toMatchObject({
      maxTriesPerItem: 3,
      runBudget: 0,
      baseDelayMs: 500,
    });
  });

  it('rejects bad settings with a one-line UsageError naming the field', () => {
    const bad: [unknown, RegExp][] = [
      [{ maxTriesPerItem: 0 }, /maxTriesPerItem/],
      [{ maxTriesPerItem: 2.5 }, /maxTriesPerItem/],
      [{ runBudget: -1 }, /runBudget/],
      [{ baseDelayMs: 1000, maxDelayMs: 100 }, /maxDelayMs/],
      [{ jitter: 'equal' }, /jitter/],
      [{ retries: 3 }, /retries/],
      ['five', /expected object/],
    ];
    for (const [input, field] of bad) {
      let caught: unknown;
      try {
        resolveRetryPolicy(input);
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(input)).toBeInstanceOf(UsageError);
      const message = (caught as UsageError).message;
      expect(message).toMatch(field);
      expect(message).not.toMatch(/\n/);
    }
  });
});

describe('RetryBudget', () => {
  it('hands out retries up to its limit, then refuses', () => {
    const budget = new RetryBudget(2);
    expect([budget.spent, budget.left]).toEqual([0, 2]);
    expect([budget.tryConsume(), budget.tryConsume(), budget.tryConsume()]).toEqual([true, true, false]);
    expect([budget.spent, budget.left]).toEqual([2, 0]);
  });

  it('refuses at once when empty', () => {
    expect(new RetryBudget(0).tryConsume()).toBe(false);
  });

  it('rejects a limit that is not a whole number ≥ 0', () => {
    expect(() => new RetryBudget(-1)).toThrow(RangeError);
    expect(() => new RetryBudget(1.5)).toThrow(RangeError);
  });
});

describe('nextDelay', () => {
  it('sleeps nothing when random gives 0', () => {
    for (const tryNumber of [1, 2, 5, 20]) expect(nextDelay(policy, tryNumber, () => 0)).toBe(0);
  });

  it('stays just under the doubling ceiling when random gives almost 1', () => {
    const almostOne = () => 1 - 1e-9;
    expect([1, 2, 3, 4].map((tryNumber) => nextDelay(policy, tryNumber, almostOne))).toEqual([499, 999, 1999, 3999]);
  });

  it('caps the ceiling at maxDelayMs', () => {
    expect(nextDelay(policy, 7, () => 1 - 1e-9)).toBe(29_999);
    expect(nextDelay(policy, 200, () => 1 - 1e-9)).toBe(29_999);
  });

  it('scales the ceiling linearly with random', () => {
    expect(nextDelay(policy, 3, () => 0.5)).toBe(1000);
  });

  it('never exceeds the ceiling even when random misbehaves', () => {
    expect(nextDelay(policy, 1, () => 1.5)).toBe(500);
    expect(nextDelay(policy, 1, () => -1)).toBe(0);
  });

  it('lets Retry-After win when it is longer, and the backoff when it is not', () => {
    expect(nextDelay(policy, 1, () => 0.5, 7000)).toBe(7000);
    expect(nextDelay(policy, 4, () => 0.5, 100)).toBe(2000);
  });
});

describe('runWithRetries', () => {
  it('succeeds after 2 transient failures: 3 tries, 2 retries spent, tries numbered from 1', async () => {
    const budget = new RetryBudget(10);
    const { sleep, slept } = fakeSleep();
    const retries: RetryInfo[] = [];
    const { attempt, seen } = failingThen([overloaded(), new TransientError('reset')], 'narrative');
    const outcome = await runWithRetries(attempt, {
      policy,
      budget,
      sleep,
      random: () => 0.5,
      onRetry: (info) => retries.push(info),
    });
    expect(outcome).toEqual({ ok: true, value: 'narrative', tries: 3 });
    expect(seen).toEqual([1, 2, 3]);
    expect(budget.spent).toBe(2);
    expect(slept).toEqual([250, 500]);
    expect(retries).toEqual([
      { tryNumber: 1, delayMs: 250, error: { kind: 'transient', status: 529, message: '529 overloaded' } },
      { tryNumber: 2, delayMs: 500, error: { kind: 'transient', message: 'reset' } },
    ]);
  });

  it('does not retry a defect: 1 try, no sleep, no budget', async () => {
    const budget = new RetryBudget(10);
    const { sleep, slept } = fakeSleep();
    const { attempt } = failingThen([new DefectError('totals disagree')], 'unused');
    const outcome = await runWithRetries(attempt, { policy, budget, sleep, random: () => 0 });
    expect(outcome).toEqual({ ok: false, kind: 'defect', error: 'totals disagree', tries: 1 });
    expect([budget.spent, slept.length]).toEqual([0, 0]);
  });

  it('does not retry a 4xx', async () => {
    const badRequest = Object.assign(new Error('400 prompt too long'), { status: 400 });
    const { attempt } = failingThen([badRequest], 'unused');
    const outcome = await runWithRetries(attempt, {
      policy,
      budget: new RetryBudget(10),
      ...fakeSleep(),
      random: () => 0,
    });
    expect(outcome).toMatchObject({ ok: false, kind: 'defect', tries: 1 });
  });

  it('gives an item up at maxTriesPerItem without charging the budget for its last failure', async () => {
    const budget = new RetryBudget(10);
    const { sleep, slept } = fakeSleep();
    const outcome = await runWithRetries(alwaysOverloaded, {
      policy: resolveRetryPolicy({ maxTriesPerItem: 3 }),
      budget,
      sleep,
      random: () => 0,
    });
    expect(outcome).toEqual({ ok: false, kind: 'exhausted', reason: 'item', error: '529 overloaded', tries: 3 });
    expect([budget.spent, slept.length]).toEqual([2, 2]);
  });

  it('stops with reason budget when the run budget runs out, for this item and the next', async () => {
    const budget = new RetryBudget(3);
    const options = { policy, budget, ...fakeSleep(), random: () => 0 };
    const first = await runWithRetries(alwaysOverloaded, options);
    expect(first).toEqual({
      ok: false,
      kind: 'exhausted',
      reason: 'budget',
      error: "529 overloaded (the run's retry budget of 3 retries is spent)",
      tries: 4,
    });
    expect(budget.left).toBe(0);
    const next = await runWithRetries(alwaysOverloaded, options);
    expect(next).toMatchObject({ ok: false, kind: 'exhausted', reason: 'budget', tries: 1 });
    const healthy = await runWithRetries(async () => 'fine', options);
    expect(healthy).toEqual({ ok: true, value: 'fine', tries: 1 });
  });

  it('never spends more than the budget across items running concurrently', async () => {
    const budget = new RetryBudget(5);
    const options = { policy: resolveRetryPolicy({ maxTriesPerItem: 50 }), budget, ...fakeSleep(), random: () => 0 };
    const outcomes = await Promise.all([1, 2, 3].map(() => runWithRetries(alwaysOverloaded, options)));
    expect(budget.spent).toBe(5);
    expect(outcomes.map((outcome) => (outcome.ok ? 'ok' : outcome.kind))).toEqual([
      'exhausted',
      'exhausted',
      'exhausted',
    ]);
    const retried = outcomes.reduce((sum, outcome) => sum + outcome.tries - 1, 0);
    expect(retried).toBe(5);
  });

  it('sleeps as long as Retry-After asks when that is longer than the backoff', async () => {
    const { sleep, slept } = fakeSleep();
    const limited = new TransientError('429 rate limited', { status: 429, retryAfterMs: 7000 });
    const { attempt } = failingThen([limited], 'done');
    const outcome = await runWithRetries(attempt, { policy, budget: new RetryBudget(1), sleep, random: () => 0.99 });
    expect(outcome).toEqual({ ok: true, value: 'done', tries: 2 });
    expect(slept).toEqual([7000]);
  });

  it('reads a Retry-After date with the injected clock', async () => {
    const { sleep, slept } = fakeSleep();
    const due = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    const limited = Object.assign(new Error('429'), {
      status: 429,
      headers: { 'retry-after': new Date(due).toUTCString() },
    });
    const { attempt } = failingThen([limited], 'done');
    await runWithRetries(attempt, {
      policy,
      budget: new RetryBudget(1),
      sleep,
      random: () => 0,
      now: () => due - 12_000,
    });
    expect(slept).toEqual([12_000]);
  });

  it('does not sleep through a Retry-After over maxRetryAfterMs: the run stops, budget untouched', async () => {
    const budget = new RetryBudget(10);
    const { sleep, slept } = fakeSleep();
    const quota = Object.assign(new Error('429 hourly limit'), { status: 429, headers: { 'retry-after': '600' } });
    const { attempt } = failingThen([quota], 'unused');
    const outcome = await runWithRetries(attempt, { policy, budget, sleep, random: () => 0 });
    expect(outcome).toEqual({
      ok: false,
      kind: 'exhausted',
      reason: 'budget',
      error: 'the server asked to wait 600 s, over the 120 s allowed: 429 hourly limit',
      tries: 1,
    });
    expect([budget.spent, slept.length]).toEqual([0, 0]);
  });

  it('rejects with the reason when aborted before the first try, without trying', async () => {
    const controller = new AbortController();
    const reason = new Error('run canceled');
    controller.abort(reason);
    const { attempt, seen } = failingThen([], 'unused');
    const options = { policy, budget: new RetryBudget(5), ...fakeSleep(), random: () => 0, signal: controller.signal };
    await expect(runWithRetries(attempt, options)).rejects.toBe(reason);
    expect(seen).toEqual([]);
  });

  it('rejects with the reason when aborted during a sleep, and tries no more', async () => {
    const controller = new AbortController();
    const reason = new Error('run canceled');
    let sleeps = 0;
    const sleep = (_ms: number) => {
      sleeps += 1;
      controller.abort(reason);
      return new Promise<void>(() => {});
    };
    const { attempt, seen } = failingThen([overloaded(), overloaded()], 'unused');
    const options = { policy, budget: new RetryBudget(5), sleep, random: () => 0, signal: controller.signal };
    await expect(runWithRetries(attempt, options)).rejects.toBe(reason);
    expect([seen, sleeps]).toEqual([[1], 1]);
  });

  it('passes the signal to sleep, and rejects with the reason when sleep rejects its own way', async () => {
    const controller = new AbortController();
    const reason = new Error('run canceled');
    const sleep = (_ms: number, signal?: AbortSignal) =>
      new Promise<void>((_, reject) => {
        signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        controller.abort(reason);
      });
    const { attempt } = failingThen([overloaded()], 'unused');
    const options = { policy, budget: new RetryBudget(5), sleep, random: () => 0, signal: controller.signal };
    await expect(runWithRetries(attempt, options)).rejects.toBe(reason);
  });

  it('does not retry a try that failed because the run was aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('run canceled');
    const { attempt, seen } = failingThen([new DOMException('aborted', 'AbortError')], 'unused');
    const aborting = (tryNumber: number) => {
      controller.abort(reason);
      return attempt(tryNumber);
    };
    const budget = new RetryBudget(5);
    const options = { policy, budget, ...fakeSleep(), random: () => 0, signal: controller.signal };
    await expect(runWithRetries(aborting, options)).rejects.toBe(reason);
    expect([seen, budget.spent]).toEqual([[1], 0]);
  });

  it('keeps the value of a try that succeeded while the run was being aborted', async () => {
    const controller = new AbortController();
    const attempt = async () => {
      controller.abort(new Error('run canceled'));
      return 'sent';
    };
    const options = { policy, budget: new RetryBudget(5), ...fakeSleep(), random: () => 0, signal: controller.signal };
    expect(await runWithRetries(attempt, options)).toEqual({ ok: true, value: 'sent', tries: 1 });
  });

  it('treats an attempt that throws synchronously like one that rejects', async () => {
    const attempt = (): Promise<string> => {
      throw new TypeError('x is not a function');
    };
    const outcome = await runWithRetries(attempt, {
      policy,
      budget: new RetryBudget(5),
      ...fakeSleep(),
      random: () => 0,
    });
    expect(outcome).toEqual({ ok: false, kind: 'defect', error: 'x is not a function', tries: 1 });
  });
});
