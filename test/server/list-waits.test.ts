/**
 * `GET /api/executions?include=waits`: each waiting execution's latest `quota.waiting` record, read
 * from the end of its real `events.jsonl` (written with the event log), over the server fixture's
 * store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEventLog } from '../../src/events/log.js';
import { executionRecord, type Fixture, openFixture, QUEUED_ID, RUNNING_ID, request } from './fixture.js';

const WAITING_ID = '01jf3kbbbb2m4n6p8r0s2t4v6w';
const SILENT_ID = '01jf3kbbbb2m4n6p8r0s2t4v6x';

let fixture: Fixture;
beforeEach(async () => {
  fixture = await openFixture();
});
afterEach(async () => {
  await fixture.close();
});

async function getJson(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await request(fixture.app, path);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A waiting execution whose log waited once, was resumed, ran out again and waits again; long enough to need more than the tail. */
async function waitingTwice(padding: number): Promise<void> {
  await fixture.store.insertExecution(executionRecord(WAITING_ID, 'waiting', '2025-03-01T10:03:00.000Z'));
  const log = openEventLog(fixture.home.eventsFile(WAITING_ID), { execution: WAITING_ID });
  const waiting = (harness: string, until: string, known: boolean) =>
    log.append({ source: 'executor', type: 'quota.waiting', data: { harness, until, known, waitMs: 60_000 } });
  waiting('codex', '2025-03-01T11:00:00.000Z', true);
  log.append({ source: 'executor', type: 'wait.ended', data: { harness: 'codex', reason: 'resumed' } });
  waiting('claude-code', '2025-03-01T12:00:00.000Z', false);
  for (let at = 0; at < padding; at += 1) {
    log.append({ source: 'executor', type: 'warning', data: { message: 'x'.repeat(1000) } });
  }
  log.close();
}

describe('GET /api/executions?include=waits', () => {
  it('maps each waiting execution to its latest quota.waiting record, and no other execution', async () => {
    await waitingTwice(3);
    // Waiting, but its log has no quota.waiting yet: left out.
    await fixture.store.insertExecution(executionRecord(SILENT_ID, 'waiting', '2025-03-01T10:04:00.000Z'));

    const { status, body } = await getJson('/api/executions?state=live&include=attempts,waits');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['executions', 'attempts', 'waits']);
    const waits = body.waits as Record<string, Record<string, unknown>>;
    expect(Object.keys(waits)).toEqual([WAITING_ID]);
    expect(waits[WAITING_ID]).toEqual({
      harness: 'claude-code',
      until: '2025-03-01T12:00:00.000Z',
      known: false,
      waitMs: 60_000,
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(Object.keys(body.attempts as object)).toContain(RUNNING_ID);

    const alone = await getJson('/api/executions?include=waits');
    expect(Object.keys(alone.body)).toEqual(['executions', 'waits']);
    expect(Object.keys(alone.body.waits as object)).toEqual([WAITING_ID]);
    expect((alone.body.executions as { id: string }[]).map((execution) => execution.id)).toContain(QUEUED_ID);
  });

  it('finds the record when the log after it is longer than the tail it reads first', async () => {
    await waitingTwice(100);
    const { body } = await getJson('/api/executions?include=waits');
    expect((body.waits as Record<string, { harness: string }>)[WAITING_ID]?.harness).toBe('claude-code');
  });

  it('refuses an include it does not know, alone or in a list, with 400 UsageError', async () => {
    for (const include of ['wait', 'attempts,events', 'waits,', '']) {
      const { status, body } = await getJson(`/api/executions?include=${encodeURIComponent(include)}`);
      expect({ include, status }).toEqual({ include, status: 400 });
      expect((body.error as { name: string; message: string }).message).toMatch(/include/);
    }
  });
});
