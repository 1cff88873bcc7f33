import { appendFileSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { newExecutionId } from '../../../src/core/ids.js';
import { InvalidEventError, readEvents } from '../../../src/events/log.js';
import {
  CATCH_UP_BATCH_RECORDS,
  type EventMirror,
  MirrorGapError,
  MirrorMismatchError,
  openEventMirror,
} from '../../../src/events/mirror/event-mirror.js';
import { mirrorChannel } from '../../../src/events/mirror/table.js';
import { parseEventRecord } from '../../../src/events/schema.js';
import { POSTGRES_AVAILABLE, sessionsNamed, TEST_POSTGRES_URL, testSchemas, urlNamed } from '../../store/postgres.js';
import { history, logDirectory, message, toolCall, writeLog } from './logs.js';

describe.runIf(POSTGRES_AVAILABLE)('PostgreSQL event mirror: writing', () => {
  const schemas = testSchemas();
  const logs = logDirectory();

  /** Runs `test` with `count` mirrors (each its own pool) open on a new schema, then closes them. */
  async function withMirrors(
    count: number,
    test: (mirrors: EventMirror[], schema: string) => Promise<void>,
  ): Promise<void> {
    const schema = schemas.newSchema();
    const mirrors: EventMirror[] = [];
    try {
      for (let index = 0; index < count; index++) mirrors.push(await openEventMirror(TEST_POSTGRES_URL, { schema }));
      await test(mirrors, schema);
    } finally {
      await Promise.all(mirrors.map((mirror) => mirror.close()));
    }
  }

  /** What the table holds for `execution`, in position order. */
  async function mirrored(schema: string, execution: string): Promise<{ position: number; line: string }[]> {
    const { rows } = await schemas.admin.query(
      `SELECT position::int AS position, line FROM ${schema}.event_records WHERE execution = $1 ORDER BY position`,
      [execution],
    );
    return rows;
  }

  const at = (lines: readonly string[]) => lines.map((line, position) => ({ position, line }));

  describe('append', () => {
    it('mirrors in order; the same line again is a no-op, another line an error', async () => {
      await withMirrors(1, async ([mirror], schema) => {
        const execution = newExecutionId();
        const lines = writeLog(logs.path(execution), execution, [message('0'), toolCall('t-1'), message('2')]);
        for (const [position, line] of lines.entries())
          expect(await mirror?.append(execution, position, line)).toBe(true);
        expect(await mirror?.append(execution, 1, lines[1] as string)).toBe(false);
        expect(await mirror?.append(execution, 0, lines[0] as string)).toBe(false);
        await expect(mirror?.append(execution, 1, lines[2] as string)).rejects.toThrow(MirrorMismatchError);
        expect(await mirrored(schema, execution)).toEqual(at(lines));
      });
    });

    it('refuses a gap and writes nothing, saying which record it expects', async () => {
      await withMirrors(1, async ([mirror], schema) => {
        const execution = newExecutionId();
        const lines = writeLog(logs.path(execution), execution, history(3));
        const gap = mirror?.append(execution, 2, lines[2] as string);
        await expect(gap).rejects.toThrow(MirrorGapError);
        await expect(gap).rejects.toMatchObject({ next: 0 });
        await mirror?.append(execution, 0, lines[0] as string);
        await expect(mirror?.append(execution, 3, lines[3] as string)).rejects.toMatchObject({
          name: 'MirrorGapError',
          next: 1,
          message: `event record 3 of execution ${execution} cannot be mirrored: the mirror expects record 1`,
        });
        expect(await mirrored(schema, execution)).toEqual(at(lines.slice(0, 1)));
      });
    });

    it('refuses what is not one line of a valid record of the execution, at a valid position', async () => {
      await withMirrors(1, async ([mirror], schema) => {
        const execution = newExecutionId();
        const [line] = writeLog(logs.path(execution), execution, [message('0')]);
        const record = parseEventRecord(line as string);
        const other = newExecutionId();
        const refused = [
          [0, 'not json'],
          [0, JSON.stringify({ ...record, data: { text: 42 } })],
          [0, JSON.stringify({ ...record, execution: other })],
          [0, JSON.stringify(record, null, 1)],
          [-1, line],
          [0.5, line],
        ] as const;
        for (const [position, text] of refused) {
          await expect(mirror?.append(execution, position, text as string)).rejects.toThrow(InvalidEventError);
        }
        expect(await mirrored(schema, execution)).toEqual([]);
      });
    });

    it('keeps the line exactly as the log holds it: key order, numbers, a \\u0000 escape', async () => {
      await withMirrors(1, async ([mirror], schema) => {
        const execution = newExecutionId();
        const path = logs.path(execution);
        const [line] = writeLog(path, execution, [toolCall('t-1')]);
        expect(line).toContain('"input":{"zeta":1,"alpha":1.5e-7,"nul":"a\\u0000b"}');
        await mirror?.append(execution, 0, line as string);
        const [row] = await mirrored(schema, execution);
        expect(row?.line).toBe(line);
        expect(JSON.stringify(parseEventRecord(row?.line as string))).toBe(JSON.stringify(readEvents(path)[0]));
      });
    });
  });

  describe('catchUp', () => {
    it('mirrors what a real log holds and the mirror lacks, at the positions its readers give', async () => {
      await withMirrors(1, async ([mirror], schema) => {
        const execution = newExecutionId();
        const path = logs.path(execution);
        const lines = writeLog(path, execution, [message('0'), toolCall('t-1'), message('2')]);
        await mirror?.append(execution, 0, lines[0] as string);
        await mirror?.append(execution, 1, lines[1] as string);
        // Lines that are not records take no position, in the log and in the mirror.
        appendFileSync(path, 'not json\n\n{"ts":1}\n');
        lines.push(...writeLog(path, execution, [message('3'), message('4')]).slice(-2));
        const partial = writeLog(logs.path(`${execution}-next`), execution, [message('5')])[0] as string;
        appendFileSync(path, partial.slice(0, 25));

        expect(await mirror?.catchUp(execution, path)).toEqual({ mirrored: 3, records: 5 });
        const rows = await mirrored(schema, execution);
        expect(rows).toEqual(at(lines));
        expect(rows.map((row) => parseEventRecord(row.line))).toStrictEqual(readEvents(path));
        expect(await mirror?.catchUp(execution, path)).toEqual({ mirrored: 0, records: 5 });

        appendFileSync(path, `${partial.slice(25)}\n`);
        expect(await mirror?.catchUp(execution, path)).toEqual({ mirrored: 1, records: 6 });
        expect(await mirrored(schema, execution)).toEqual(at([...lines, partial]));
      });
    });

    it('inserts in batches, one notification each, and notifies nothing when it has nothing to mirror', async () => {
      await withMirrors(1, async ([mirror], schema) => {
        const execution = newExecutionId();
        const path = logs.path(execution);
        const lines = writeLog(path, execution, history(2 * CATCH_UP_BATCH_RECORDS + 499));
        const heard: string[] = [];
        const listener = new pg.Client({ connectionString: TEST_POSTGRES_URL });
        await listener.connect();
        try {
          listener.on('notification', (message) => heard.push(message.payload ?? ''));
          await listener.query(`LISTEN ${mirrorChannel(schema)}`);
          expect(await mirror?.catchUp(execution, path)).toEqual({ mirrored: lines.length, records: lines.length });
          await expect.poll(() => heard).toEqual([execution, execution, execution]);
          expect(await mirror?.catchUp(execution, path)).toEqual({ mirrored: 0, records: lines.length });
          await mirror?.append(execution, 0, lines[0] as string);
          await listener.query('SELECT 1'); // a round trip: a notification sent before it has arrived
          expect(heard).toHaveLength(3);
        } finally {
          await listener.end();
        }
        expect(await mirrored(schema, execution)).toEqual(at(lines));
      });
    });

    it('refuses a log that disagrees with the mirror, or names another execution', async () => {
      await withMirrors(1, async ([mirror], schema) => {
        const execution = newExecutionId();
        const path = logs.path(execution);
        const lines = writeLog(path, execution, [message('0'), message('1')]);
        await mirror?.catchUp(execution, path);

        const rewritten = logs.path(`${execution}-rewritten`);
        writeLog(rewritten, execution, [message('0'), message('one'), message('2')]);
        await expect(mirror?.catchUp(execution, rewritten)).rejects.toThrow(MirrorMismatchError);
        await expect(mirror?.catchUp(execution, logs.path(`${execution}-missing`))).rejects.toThrow(
          `the mirror of execution ${execution} holds 2 event records, but its log`,
        );
        const foreign = logs.path(`${execution}-foreign`);
        const other = newExecutionId();
        writeLog(foreign, other, [message('0'), message('1'), message('2')]);
        await expect(mirror?.catchUp(execution, foreign)).rejects.toThrow(InvalidEventError);
        expect(await mirrored(schema, execution)).toEqual(at(lines));
        expect(await mirrored(schema, other)).toEqual([]);
      });
    });

    it('mirrors each record once when writers race: one appending record by record, others catching up', async () => {
      await withMirrors(3, async ([appender, first, second], schema) => {
        const execution = newExecutionId();
        const path = logs.path(execution);
        const lines = writeLog(path, execution, history(1500));
        const appending = (async () => {
          for (const [position, line] of lines.entries()) await appender?.append(execution, position, line);
        })();
        const catchingUp = [first, second].map(async (mirror) => {
          for (let round = 0; round < 5; round++) await mirror?.catchUp(execution, path);
        });
        await Promise.all([appending, ...catchingUp]);
        expect(await mirrored(schema, execution)).toEqual(at(lines));
      });
    });
  });

  it('closes idempotently: its connections end, and calls after close reject', async () => {
    const schema = schemas.newSchema();
    const mirror = await openEventMirror(urlNamed(TEST_POSTGRES_URL, schema), { schema });
    const execution = newExecutionId();
    const [line] = writeLog(logs.path(execution), execution, [message('0')]);
    await mirror.append(execution, 0, line as string);
    expect(await sessionsNamed(schemas.admin, schema)).toBeGreaterThan(0);
    await Promise.all([mirror.close(), mirror.close()]);
    await mirror.close();
    await expect(mirror.append(execution, 1, line as string)).rejects.toThrow();
    await expect.poll(() => sessionsNamed(schemas.admin, schema), { timeout: 2000 }).toBe(0);
  });
});
