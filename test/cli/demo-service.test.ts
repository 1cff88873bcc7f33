/**
 * Act 2's check of the records (`checkServiceRecords`): the story the demo claims passes, and each
 * way a restart can go wrong — a turn lost or delivered twice unmarked, work redone — is named.
 * And an act that fails part way still ends the service it started. The whole act, with the real
 * service, runs in demo.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkServiceRecords, runServiceAct } from '../../src/cli/demo-service.js';
import { setUpDemo } from '../../src/cli/demo-setup.js';
import type { EventData, EventRecord, EventType } from '../../src/events/schema.js';

function record<T extends EventType>(type: T, data: EventData<T>, attempt?: number): EventRecord {
  return {
    ts: '2026-03-01T12:00:00.000Z',
    execution: '01m8kskfjw0wm52qqt0d1rjh58',
    source: 'executor',
    type,
    data,
    ...(attempt !== undefined && { attempt, harness: 'claude-code' }),
  } as EventRecord;
}

const FOLLOW_UP = 'Also add a CHANGELOG entry for formatDate.';
const wrote = (attempt: number) => record('operation', { kind: 'file_change', files: ['src/format.js'] }, attempt);
const started = (turn: string, delivery: 'first' | 'redelivered', attempt: number) =>
  record('turn.started', { turn, text: turn === 't1' ? 'Add formatDate.' : FOLLOW_UP, delivery }, attempt);
const completed = (turn: string) => record('turn.ended', { turn, outcome: 'completed', durationMs: 3000 }, 2);

/** What the demo claims: t1 cut by the kill, delivered again (marked) without redoing its write, then t2 once. */
function story(): EventRecord[] {
  return [
    record('message.queued', { turn: 't2', text: FOLLOW_UP, queued: 2 }),
    started('t1', 'first', 1),
    wrote(1),
    record('execution.resumed', { reason: 'restart', openAttempt: 1 }),
    started('t1', 'redelivered', 2),
    record('turn.redelivered', { turn: 't1', reason: 'HarmFlow restarted while this turn ran' }, 2),
    completed('t1'),
    started('t2', 'first', 2),
    wrote(2), // the follow-up's replay of the script: not t1's work
    completed('t2'),
    record('execution.ended', { state: 'succeeded', attempts: 2, durationMs: 9000 }),
  ];
}

describe('checkServiceRecords', () => {
  it('finds nothing wrong with the story the demo claims', () => {
    expect(checkServiceRecords(story())).toEqual([]);
  });

  it('names work t1 redid after the restart', () => {
    const records = story();
    records.splice(6, 0, wrote(2));
    expect(checkServiceRecords(records)).toEqual(['src/format.js written 2 times in turn t1']);
  });

  it('names a follow-up delivered twice', () => {
    const records = story();
    records.splice(9, 0, started('t2', 'first', 2), completed('t2'));
    expect(checkServiceRecords(records)).toEqual(['t2 delivered as: first, first', 't2 completed 2 times']);
  });

  it('names a follow-up that was lost', () => {
    const records = story();
    records.splice(7, 3); // t2's start, its work and its end
    expect(checkServiceRecords(records)).toEqual(['t2 delivered as: never', 't2 completed 0 times']);
  });

  it('names a redelivery that was not marked, and a missing restart', () => {
    const records = story().filter((r) => r.type !== 'turn.redelivered' && r.type !== 'execution.resumed');
    expect(checkServiceRecords(records)).toEqual([
      '0 restarts recorded, not 1',
      'turns marked redelivered: none (expected t1)',
    ]);
  });

  it('names an execution that did not succeed', () => {
    const records = story().slice(0, -1);
    records.push(record('execution.ended', { state: 'failed', attempts: 2, durationMs: 9000 }));
    expect(checkServiceRecords(records)).toEqual(['execution.ended: failed']);
  });
});

describe('runServiceAct', () => {
  it('fails with the reason, and leaves no service running, when the act cannot go on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harmflow-act2-'));
    try {
      const layout = await setUpDemo(dir);
      writeFileSync(layout.serviceTaskFile, 'name: [unclosed\n'); // the submit fails after the service started
      const lines: string[] = [];
      const verdict = await runServiceAct(layout, (text = '') => lines.push(text));
      expect(verdict.ok).toBe(false);
      expect(verdict.text).toMatch(/^act 2 could not finish: .*service-task\.yaml:\d+: not valid YAML/);
      expect(lines.some((line) => /^ {2}service │ HarmFlow service on http:/.test(line))).toBe(true);
      const processes = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout;
      expect(processes).toContain('ps -eo args'); // the listing works
      expect(processes).not.toContain(layout.home);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
