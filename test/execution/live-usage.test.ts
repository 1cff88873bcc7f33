import { describe, expect, it } from 'vitest';
import type { UsageTotals } from '../../src/execution/attempt-observer.js';
import { LiveUsage } from '../../src/execution/live-usage.js';
import type { AttemptPatch } from '../../src/store/store.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A store that records the patches it is given, failing the first `failures` of them. */
function recordingStore(failures = 0) {
  const patches: AttemptPatch[] = [];
  let failing = failures;
  return {
    patches,
    async updateAttempt(_execution: string, _number: number, patch: AttemptPatch): Promise<void> {
      if (failing > 0) {
        failing -= 1;
        throw new Error('database is locked');
      }
      patches.push(patch);
    },
  };
}

describe('LiveUsage', () => {
  it('writes the usage so far when it changed, once a tick, and nothing before any usage', async () => {
    const store = recordingStore();
    const usage: UsageTotals = {};
    const live = new LiveUsage(store, { execution: 'e', number: 1 }, () => usage, 10);
    await tick(35);
    expect(store.patches).toEqual([]);
    usage.inputTokens = 120;
    usage.outputTokens = 30;
    await tick(35);
    expect(store.patches).toEqual([{ inputTokens: 120, outputTokens: 30 }]);
    usage.costUsd = 0.01;
    await tick(35);
    await live.stop();
    expect(store.patches).toEqual([
      { inputTokens: 120, outputTokens: 30 },
      { inputTokens: 120, outputTokens: 30, costUsd: 0.01 },
    ]);
    usage.inputTokens = 999;
    await tick(35);
    expect(store.patches).toHaveLength(2);
  });

  it('tries a failed write again at the next tick', async () => {
    const store = recordingStore(1);
    const live = new LiveUsage(store, { execution: 'e', number: 1 }, () => ({ inputTokens: 5 }), 10);
    await tick(60);
    await live.stop();
    expect(store.patches).toEqual([{ inputTokens: 5 }]);
  });
});
