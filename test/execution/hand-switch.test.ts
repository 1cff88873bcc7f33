/**
 * The chain as switches by hand change it: the link a request names (with the settings of the
 * task's own link of that harness, or its CLI's credential variables when the task has none), where
 * it goes, and the same chain rebuilt from the `failover` records after a restart.
 */
import { describe, expect, it } from 'vitest';
import type { HarnessSpec, Task } from '../../src/core/task.js';
import type { EventRecord } from '../../src/events/schema.js';
import { handLinkOf, replaySwitches, specOf } from '../../src/execution/hand-switch.js';

const claude: HarnessSpec = { harness: 'claude-code', args: [], env: {}, passEnv: ['ANTHROPIC_API_KEY'] };
const codex: HarnessSpec = { harness: 'codex', model: 'gpt-5.5', args: ['-c', 'x=1'], env: {}, passEnv: [] };
const task = { chain: [claude, codex] } as unknown as Task;

/** A `failover` record with `data`. */
function failover(data: Record<string, unknown>): EventRecord {
  return {
    v: 1,
    id: 1,
    ts: '2026-12-01T12:00:00.000Z',
    execution: 'e',
    source: 'executor',
    type: 'failover',
    data: { from: 'x', to: 'y', reason: 'switched', switchNumber: 0, maxSwitches: 1, ...data },
  } as EventRecord;
}

describe('switch by hand', () => {
  it('copies the settings of the task’s own link of that harness, with the model asked for', () => {
    const hand = handLinkOf(task, { harness: 'codex', model: 'gpt-5.5-mini', by: 'test' });
    expect(hand).toEqual({ harness: 'codex', model: 'gpt-5.5-mini', like: 1 });
    expect(specOf(task, hand)).toEqual({ ...codex, model: 'gpt-5.5-mini' });
    expect(specOf(task, handLinkOf(task, { harness: 'codex', by: 'test' }))).toEqual(codex);
  });

  it('gives a harness the task does not name its CLI’s credential variables, and nothing else', () => {
    const hand = handLinkOf(task, { harness: 'gemini', by: 'test' });
    expect(hand).toEqual({ harness: 'gemini' });
    expect(specOf(task, hand)).toEqual({
      harness: 'gemini',
      args: [],
      env: {},
      passEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GEMINI_BASE_URL'],
    });
  });

  it('rebuilds the chain after a restart: a switch by hand inserts its link, an automatic one moves on', () => {
    const records = [
      failover({ hand: { harness: 'gemini' }, toIndex: 1 }),
      failover({ toIndex: 2 }),
      failover({ hand: { harness: 'claude-code', model: 'opus', like: 0 }, toIndex: 3 }),
    ];
    const { chain, chainIndex } = replaySwitches(task, records);
    expect(chain.map((link) => [link.harness, link.model])).toEqual([
      ['claude-code', undefined],
      ['gemini', undefined],
      ['codex', 'gpt-5.5'],
      ['claude-code', 'opus'],
    ]);
    expect(chainIndex).toBe(3);
    expect(chain[3]?.passEnv).toEqual(['ANTHROPIC_API_KEY']);
  });

  it('reads records from before toIndex was kept as moving to the next link', () => {
    expect(replaySwitches(task, [failover({ reason: 'quota_exhausted' })]).chainIndex).toBe(1);
    expect(replaySwitches(task, [failover({}), failover({})]).chainIndex).toBe(1);
  });
});
