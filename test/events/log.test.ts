import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type EventDraft,
  InvalidEventError,
  openEventLog,
  RECORD_LIMIT_BYTES,
  readEvents,
} from '../../src/events/log.js';
import { parseEventRecord } from '../../src/events/schema.js';

const EXECUTION = '01jf3k9x7q2m4n6p8r0s2t4v6w';
const root = mkdtempSync(join(tmpdir(), 'harmflow-log-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let files = 0;
const newFile = () => join(root, `${++files}`, 'events.jsonl');
const lines = (file: string) => readFileSync(file, 'utf8').split('\n');

describe('openEventLog', () => {
  it('appends one line a record, filling ts and execution, and returns the record as read back', () => {
    const file = newFile();
    const log = openEventLog(file, { execution: EXECUTION });
    const before = Date.now();
    const first = log.append({ source: 'executor', type: 'message', data: { text: 'héllo\nwörld' } });
    const second = log.append({
      ts: '2025-03-01T10:00:00.000Z',
      attempt: 2,
      harness: 'codex',
      source: 'harness',
      type: 'tool.call',
      data: { id: 'c1', name: 'Bash', input: { command: 'npm test' }, shell: 'npm test' },
    });
    log.close();

    expect(first.execution).toBe(EXECUTION);
    expect(Date.parse(first.ts)).toBeGreaterThanOrEqual(before - 1);
    expect(first.ts).toBe(new Date(first.ts).toISOString());
    expect(second).toStrictEqual({
      ts: '2025-03-01T10:00:00.000Z',
      execution: EXECUTION,
      attempt: 2,
      harness: 'codex',
      source: 'harness',
      type: 'tool.call',
      data: { id: 'c1', name: 'Bash', input: { command: 'npm test' }, shell: 'npm test' },
    });
    expect(lines(file)).toHaveLength(3); // two lines and the empty string after the last newline
    expect(lines(file)[2]).toBe('');
    expect(readEvents(file)).toStrictEqual([first, second]);
  });

  it('accepts a whole record of its own execution, and appends to an existing file', () => {
    const file = newFile();
    const first = openEventLog(file, { execution: EXECUTION });
    const record = first.append({ source: 'executor', type: 'warning', data: { message: 'one' } });
    first.close();
    const second = openEventLog(file, { execution: EXECUTION });
    expect(second.append(record)).toStrictEqual(record);
    second.close();
    expect(readEvents(file)).toStrictEqual([record, record]);
  });

  it('refuses a record that does not match the schema, naming the field, and writes nothing', () => {
    const file = newFile();
    const log = openEventLog(file, { execution: EXECUTION });
    const invalid = [
      {
        source: 'executor',
        type: 'attempt.ended',
        data: { outcome: 'completed', exitCode: 1.5, signal: null, durationMs: 3 },
      },
      { source: 'executor', type: 'execution.ended', data: { state: 'failed', attempts: 1, durationMs: Number.NaN } },
      { attempt: 0, source: 'executor', type: 'message', data: { text: 'attempts count from 1' } },
      { source: 'executor', type: 'no.such.type', data: {} },
    ] as unknown as EventDraft[];
    for (const draft of invalid) expect(() => log.append(draft)).toThrow(InvalidEventError);
    expect(() => log.append(invalid[0] as EventDraft)).toThrow('data.exitCode');
    expect(() => log.append(invalid[2] as EventDraft)).toThrow('envelope');
    expect(() =>
      log.append({ execution: 'another', source: 'executor', type: 'message', data: { text: 'x' } }),
    ).toThrow(InvalidEventError);
    log.close();
    expect(statSync(file).size).toBe(0);
  });

  it('closes idempotently and refuses appends after close', () => {
    const log = openEventLog(newFile(), { execution: EXECUTION });
    log.close();
    log.close();
    expect(() => log.append({ source: 'executor', type: 'message', data: { text: 'late' } })).toThrow(/closed/);
  });

  it('keeps whole lines when two processes append to the same file at once', { timeout: 15_000 }, async () => {
    const module = new URL('../../dist/events/log.js', import.meta.url);
    for (const name of ['log', 'bound', 'read', 'decode', 'schema']) {
      const built = new URL(`../../dist/events/${name}.js`, import.meta.url);
      const source = new URL(`../../src/events/${name}.ts`, import.meta.url);
      // The children run the built writer: it must be the current source's (`npm run build`).
      expect(statSync(built).mtimeMs, `dist/events/${name}.js is older than its source`).toBeGreaterThanOrEqual(
        statSync(source).mtimeMs,
      );
    }
    const file = newFile();
    openEventLog(file, { execution: EXECUTION }).close();
    const count = 500;
    // Each child opens its own log, says "ready", waits for "go" on stdin, then appends `count`
    // records of 1–9 KiB, so the two write at the same time with lines far above one page.
    const script = `
      const [, moduleUrl, file, writer, count] = process.argv;
      const { openEventLog } = await import(moduleUrl);
      const log = openEventLog(file, { execution: '${EXECUTION}' });
      process.stdout.write('ready\\n');
      process.stdin.once('data', () => {
        for (let i = 0; i < Number(count); i++) {
          const text = writer + ' ' + i + ' ' + 'x'.repeat(1024 * (1 + (i % 9)));
          log.append({ source: 'gate', type: 'message', data: { text } });
        }
        log.close();
        process.exit(0);
      });
    `;
    const children = ['a', 'b'].map((writer) =>
      spawn(process.execPath, ['--input-type=module', '-e', script, module.href, file, writer, String(count)], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    await Promise.all(
      children.map((child) => new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()))),
    );
    const exits = children.map((child) => new Promise<number | null>((resolve) => child.once('exit', resolve)));
    for (const child of children) child.stdin?.end('go\n');
    expect(await Promise.all(exits)).toEqual([0, 0]);

    const text = readFileSync(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const written = text.slice(0, -1).split('\n');
    expect(written).toHaveLength(2 * count);
    const order: string[] = [];
    for (const line of written) {
      const record = parseEventRecord(line);
      if (record?.type !== 'message') throw new Error(`not a whole record: ${line.slice(0, 80)}…`);
      const [writer, index, padding] = record.data.text.split(' ');
      expect(padding).toBe('x'.repeat(1024 * (1 + (Number(index) % 9))));
      order.push(`${writer} ${index}`);
    }
    for (const writer of ['a', 'b']) {
      const own = order.filter((entry) => entry.startsWith(`${writer} `));
      expect(own).toEqual(Array.from({ length: count }, (_, i) => `${writer} ${i}`));
    }
    const switches = order.filter((entry, i) => i > 0 && entry[0] !== order[i - 1]?.[0]).length;
    expect(switches, 'the two writers appended at the same time').toBeGreaterThan(0);
    expect(readEvents(file)).toHaveLength(2 * count);
  });
});

describe('openEventLog on a record over the bound', () => {
  const MiB = 1024 * 1024;
  const TEXT_CUT = /^(.*) … \[HarmFlow dropped (\d+) bytes of this text\]$/s;
  const onlyLine = (file: string) => {
    const written = lines(file);
    expect(written).toHaveLength(2);
    return written[0] ?? '';
  };

  it('cuts its long text to fit, keeping the start and naming the bytes dropped, here and in the record', () => {
    const file = newFile();
    const log = openEventLog(file, { execution: EXECUTION });
    const text = `start — ${'é"\\x'.repeat(MiB)} — end`;
    const record = log.append({ attempt: 1, harness: 'codex', source: 'harness', type: 'message', data: { text } });
    log.close();

    const line = onlyLine(file);
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(RECORD_LIMIT_BYTES);
    expect(Buffer.byteLength(line)).toBeGreaterThan(RECORD_LIMIT_BYTES - 1024);
    if (record.type !== 'message') throw new Error(record.type);
    const [, kept = '', dropped = ''] = TEXT_CUT.exec(record.data.text) ?? [];
    expect(text.startsWith(kept)).toBe(true);
    expect(Buffer.byteLength(kept) + Number(dropped)).toBe(Buffer.byteLength(text));
    expect(record.truncated).toEqual({ droppedBytes: Number(dropped) });
    expect(readEvents(file)).toStrictEqual([record]);
  });

  it('drops the last items of a long list when no text is long, counting each item with its comma', () => {
    const file = newFile();
    const log = openEventLog(file, { execution: EXECUTION });
    const changedFiles = Array.from({ length: 100_000 }, (_, i) => `node_modules/package-${i}/lib/index.js`);
    const data = { head: 'a'.repeat(40), changedFiles, commits: [], durationMs: 12 };
    const record = log.append({ attempt: 1, harness: 'codex', source: 'workspace', type: 'workspace.inspected', data });
    log.close();

    expect(Buffer.byteLength(onlyLine(file))).toBeLessThanOrEqual(RECORD_LIMIT_BYTES);
    if (record.type !== 'workspace.inspected') throw new Error(record.type);
    const kept = record.data.changedFiles;
    expect(kept.length).toBeGreaterThan(10_000);
    expect(kept).toEqual(changedFiles.slice(0, kept.length));
    const droppedBytes = changedFiles.slice(kept.length).reduce((sum, name) => sum + name.length + 3, 0);
    expect(record.truncated).toEqual({ droppedBytes });
    expect(readEvents(file)).toStrictEqual([record]);
  });

  it('refuses a record over the bound with nothing long to cut, and writes nothing', () => {
    const file = newFile();
    const log = openEventLog(file, { execution: EXECUTION });
    const input = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`key${i}`, i]));
    expect(() =>
      log.append({ source: 'harness', type: 'tool.call', data: { id: 't1', name: 'Custom', input } }),
    ).toThrow(InvalidEventError);
    log.close();
    expect(readFileSync(file, 'utf8')).toBe('');
  });
});
