/**
 * The pure quota decisions: which account a link's record is kept under, what an ended attempt tells
 * the registry, and which link the next attempt starts on when a task sets `switchAtUtilization`.
 */
import { describe, expect, it } from 'vitest';
import type { HarnessSpec } from '../../src/core/task.js';
import { nextLink } from '../../src/execution/next-link.js';
import { QuotaView, quotaAccount, quotaRecordOf } from '../../src/execution/quota.js';
import type { QuotaRecord } from '../../src/store/store.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const HOUR = 3_600_000;

function link(harness: HarnessSpec['harness'], extra: Partial<HarnessSpec> = {}): HarnessSpec {
  return { harness, args: [], env: {}, passEnv: [], ...extra };
}

function warning(harness: string, utilization: number, resetsAt?: number, account = ''): QuotaRecord {
  return {
    harness,
    account,
    state: 'warning',
    utilization,
    source: 'rate_limit',
    observedAt: new Date(NOW - 60_000).toISOString(),
    ...(resetsAt !== undefined && { resetsAt: new Date(resetsAt).toISOString() }),
  };
}

function exhausted(harness: string, resetsAt: number, account = ''): QuotaRecord {
  return {
    harness,
    account,
    state: 'exhausted',
    resetsAt: new Date(resetsAt).toISOString(),
    source: 'quota.exhausted',
    observedAt: new Date(NOW - 60_000).toISOString(),
  };
}

function choose(chain: HarnessSpec[], records: QuotaRecord[], switchAtUtilization?: number) {
  return nextLink({
    chain,
    from: 0,
    view: new QuotaView(records, HOUR),
    now: NOW,
    waitForReset: false,
    deadline: NOW + 10 * HOUR,
    switchAtUtilization,
  });
}

describe('quota accounts', () => {
  it('keeps each account of a harness apart, and simulated links apart from real ones', () => {
    expect(quotaAccount(link('claude-code'))).toBe('');
    expect(quotaAccount(link('claude-code', { account: 'work' }))).toBe('work');
    expect(quotaAccount(link('claude-code', { simulate: '/s/claude.yaml' }))).toBe('sim:/s/claude.yaml');
    expect(quotaAccount(link('claude-code', { simulate: '/s/claude.yaml', account: 'work' }))).toBe(
      'sim:work:/s/claude.yaml',
    );
  });

  it('skips the account that is out and starts on another account of the same harness', () => {
    const chain = [link('claude-code', { account: 'work' }), link('claude-code', { account: 'personal' })];
    const next = choose(chain, [exhausted('claude-code', NOW + HOUR, 'work')]);
    expect(next).toMatchObject({ kind: 'link', index: 1 });
    expect(next.skipped.map((skip) => [skip.index, skip.out?.until])).toEqual([[0, NOW + HOUR]]);
  });
});

describe('switchAtUtilization when choosing a link', () => {
  const chain = [link('claude-code'), link('codex'), link('gemini')];

  it('passes over a harness at or over the threshold while a later one is below it', () => {
    const next = choose(chain, [warning('claude-code', 0.96, NOW + HOUR)], 0.95);
    expect(next).toMatchObject({ kind: 'link', index: 1 });
    expect(next.skipped.map((skip) => [skip.spec.harness, skip.utilization])).toEqual([['claude-code', 0.96]]);
  });

  it('ignores the warning without a threshold, under it, or once its window has reset', () => {
    expect(choose(chain, [warning('claude-code', 0.96, NOW + HOUR)])).toMatchObject({ index: 0, skipped: [] });
    expect(choose(chain, [warning('claude-code', 0.9, NOW + HOUR)], 0.95)).toMatchObject({ index: 0 });
    expect(choose(chain, [warning('claude-code', 0.99, NOW - 1)], 0.95)).toMatchObject({ index: 0 });
    // Without a reset time, the cool-down since it was seen (1 h here) bounds the warning.
    expect(choose(chain, [warning('claude-code', 0.99)], 0.95)).toMatchObject({ index: 1 });
  });

  it('takes the first harness that is not out when every one is near its limit: near is not out', () => {
    const records = [
      warning('claude-code', 0.97, NOW + HOUR),
      exhausted('codex', NOW + HOUR),
      warning('gemini', 0.99, NOW + HOUR),
    ];
    const next = choose(chain, records, 0.95);
    expect(next).toMatchObject({ kind: 'link', index: 0, skipped: [] });
  });

  it('names both kinds of skip, in chain order', () => {
    const records = [warning('claude-code', 0.97, NOW + HOUR), exhausted('codex', NOW + 2 * HOUR)];
    const next = choose(chain, records, 0.95);
    expect(next).toMatchObject({ kind: 'link', index: 2 });
    expect(next.skipped.map((skip) => [skip.spec.harness, skip.utilization, skip.out?.until])).toEqual([
      ['claude-code', 0.97, undefined],
      ['codex', undefined, NOW + 2 * HOUR],
    ]);
  });
});

describe('what an ended attempt tells the registry', () => {
  const head = { spec: link('claude-code'), execution: 'e1', attempt: 1, observedAt: new Date(NOW).toISOString() };
  const rateLimit = { status: 'allowed_warning', utilization: 0.96, resetsAt: '2026-12-01T15:00:00.000Z' };

  it('records a limit warning with its window reset, however the attempt ended', () => {
    for (const outcome of ['completed', 'switched', 'failed'] as const) {
      expect(quotaRecordOf({ ...head, outcome, rateLimit }), outcome).toMatchObject({
        state: 'warning',
        utilization: 0.96,
        resetsAt: '2026-12-01T15:00:00.000Z',
        source: 'rate_limit',
      });
    }
  });

  it('says ok only for a completed attempt, and nothing for a transient failure', () => {
    expect(quotaRecordOf({ ...head, outcome: 'completed', rateLimit: { status: 'allowed' } })).toMatchObject({
      state: 'ok',
    });
    expect(quotaRecordOf({ ...head, outcome: 'rate_limited' })).toBeUndefined();
    expect(quotaRecordOf({ ...head, outcome: 'switched', rateLimit: { status: 'allowed' } })).toBeUndefined();
  });
});
