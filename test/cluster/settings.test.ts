import { describe, expect, it } from 'vitest';
import { DISPATCH_LOCK } from '../../src/cluster/dispatch.js';
import { DEFAULT_LEASE } from '../../src/cluster/kept-lease.js';
import { LEASE_RETRY_MARGIN_MS } from '../../src/cluster/worker-loop.js';

describe('dispatch settings', () => {
  const movedBackMs = DISPATCH_LOCK.lockDurationMs + DISPATCH_LOCK.stalledIntervalMs;

  it('bring a dead worker’s execution back within 30 s', () => {
    expect(Math.max(movedBackMs, DEFAULT_LEASE.ttlMs + LEASE_RETRY_MARGIN_MS)).toBeLessThanOrEqual(30_000);
  });

  it('let a dead worker’s lease expire before BullMQ has surely moved its job back', () => {
    expect(DEFAULT_LEASE.ttlMs + LEASE_RETRY_MARGIN_MS).toBeLessThanOrEqual(movedBackMs);
  });

  it('renew a live lease at least twice before it could expire, and a lock too', () => {
    expect(DEFAULT_LEASE.ttlMs / DEFAULT_LEASE.renewEveryMs).toBeGreaterThanOrEqual(3);
    expect(DISPATCH_LOCK.stalledIntervalMs).toBeLessThanOrEqual(DISPATCH_LOCK.lockDurationMs);
  });
});
