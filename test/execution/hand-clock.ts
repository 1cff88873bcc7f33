/**
 * A clock for the quota tests, moved by hand: `sleep` moves it forward at once by the time asked, so
 * a wait for a reset hours away takes no real time, and records what was asked.
 */
import type { Clock } from '../../src/core/clock.js';

export class HandClock implements Clock {
  time = Date.now();
  /** Every sleep asked for, in ms. */
  slept: number[] = [];
  /** Called as each sleep begins (the engine has set the execution waiting by then). */
  onSleep: (() => Promise<void>) | undefined;
  now = () => this.time;
  sleep = async (ms: number) => {
    await this.onSleep?.();
    this.slept.push(ms);
    this.time += Math.max(0, ms);
  };
}
