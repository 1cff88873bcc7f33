import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { MAX_TIMER_DELAY_MS, setLongTimeout, sleepLong } from '../../src/core/long-timer.js';

const HOUR_MS = 3_600_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('setLongTimeout', () => {
  it('fires a 600h deadline at 600h, not at once as setTimeout does beyond 2^31-1 ms', () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    setLongTimeout(fired, 600 * HOUR_MS);
    vi.advanceTimersByTime(1000);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(600 * HOUR_MS - 1001);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(600 * HOUR_MS);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('fires a delay within one chunk like setTimeout, and at once for zero or less', () => {
    vi.useFakeTimers();
    const short = vi.fn();
    const now = vi.fn();
    setLongTimeout(short, 1500);
    setLongTimeout(now, -5);
    vi.advanceTimersByTime(0);
    expect(now).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(1499);
    expect(short).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(short).toHaveBeenCalledOnce();
  });

  it('never fires once cleared, before or after a re-arm; clear is idempotent', () => {
    vi.useFakeTimers();
    const early = vi.fn();
    const late = vi.fn();
    setLongTimeout(early, 100 * 24 * HOUR_MS).clear();
    const timer = setLongTimeout(late, 100 * 24 * HOUR_MS);
    vi.advanceTimersByTime(MAX_TIMER_DELAY_MS + 1000);
    timer.clear();
    timer.clear();
    vi.advanceTimersByTime(100 * 24 * HOUR_MS);
    expect(early).not.toHaveBeenCalled();
    expect(late).not.toHaveBeenCalled();
  });
});

describe('sleepLong', () => {
  it('sleeps through a 40-day wait and ends when it is over', async () => {
    vi.useFakeTimers();
    let over = false;
    const slept = sleepLong(40 * 24 * HOUR_MS).then(() => {
      over = true;
    });
    await vi.advanceTimersByTimeAsync(30 * 24 * HOUR_MS);
    expect(over).toBe(false);
    await vi.advanceTimersByTimeAsync(10 * 24 * HOUR_MS);
    await slept;
    expect(over).toBe(true);
  });

  it('ends at once when its signal aborts, or was aborted already', async () => {
    const controller = new AbortController();
    const slept = sleepLong(600 * HOUR_MS, controller.signal);
    controller.abort();
    await slept;
    await sleepLong(600 * HOUR_MS, AbortSignal.abort());
  });
});

describe('systemClock.sleep', () => {
  it('waits a quota reset days away instead of returning at once', async () => {
    const controller = new AbortController();
    let over = false;
    const slept = systemClock.sleep(600 * HOUR_MS, controller.signal).then(() => {
      over = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(over).toBe(false);
    controller.abort();
    await slept;
    expect(over).toBe(true);
  });
});
