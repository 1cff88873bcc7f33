/**
 * The gate runner's records obey the log's bound as the engine's do: a note that names a command of
 * megabytes is cut, with the marker, and the line stays within RECORD_LIMIT_BYTES.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RECORD_LIMIT_BYTES, readEvents } from '../../src/events/log.js';
import { appendGateRecords } from '../../src/gates/records.js';

const dir = mkdtempSync(join(tmpdir(), 'harmflow-gate-records-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('gate records', () => {
  it('are cut to the bound of a log line, with the bytes dropped named', () => {
    const eventsPath = join(dir, 'events.jsonl');
    const note = `commands: ${'x'.repeat(3 * 1024 * 1024)}`;
    appendGateRecords({ eventsPath, execution: 'e1', attempt: 1, harness: 'codex' }, [
      { type: 'gate.noted', data: { tool: 'Bash', notes: [note] } },
    ]);
    const lines = readFileSync(eventsPath, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(Buffer.byteLength(lines[0] as string)).toBeLessThanOrEqual(RECORD_LIMIT_BYTES);
    const [record] = readEvents(eventsPath);
    expect(record?.type).toBe('gate.noted');
    expect(record?.truncated?.droppedBytes).toBeGreaterThan(2 * 1024 * 1024);
    expect(JSON.stringify(record?.data)).toMatch(/HarmFlow dropped \d+ bytes/);
  });
});
