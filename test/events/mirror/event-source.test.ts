import { describe, expect, it } from 'vitest';
import { newExecutionId } from '../../../src/core/ids.js';
import { readEvents } from '../../../src/events/log.js';
import { type EventMirror, openEventMirror } from '../../../src/events/mirror/event-mirror.js';
import {
  MIRROR_READ_RECORDS,
  type MirroredRecord,
  openPgEventSource,
  type PgEventSource,
} from '../../../src/events/mirror/event-source.js';
import { mirrorChannel } from '../../../src/events/mirror/table.js';
import { seededRandom } from '../../seeded-random.js';
import { POSTGRES_AVAILABLE, sessionsNamed, TEST_POSTGRES_URL, testSchemas, urlNamed } from '../../store/postgres.js';
import { ended, history, logDirectory, message, writeLog } from './logs.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(POSTGRES_AVAILABLE)('PostgreSQL event mirror: reading', () => {
  const schemas = testSchemas();
  const logs = logDirectory();

  interface Cluster {
    readonly schema: string;
    /** A worker's mirror. */
    readonly mirror: EventMirror;
    /** API nodes: each a source with its own pool and LISTEN session. */
    readonly sources: PgEventSource[];
  }

  /** Runs `test` with a mirror and `nodes` sources on a new schema, then closes them all. */
  async function withCluster(
    nodes: number,
    test: (cluster: Cluster) => Promise<void>,
    options: { pollMs?: number; url?: string } = {},
  ): Promise<void> {
    const schema = schemas.newSchema();
    const url = options.url ?? TEST_POSTGRES_URL;
    const mirror = await openEventMirror(TEST_POSTGRES_URL, { schema });
    const sources: PgEventSource[] = [];
    try {
      for (let node = 0; node < nodes; node++) {
        sources.push(
          await openPgEventSource(url, { schema, ...(options.pollMs !== undefined && { pollMs: options.pollMs }) }),
        );
      }
      await test({ schema, mirror, sources });
    } finally {
      await Promise.all([mirror.close(), ...sources.map((source) => source.close())]);
    }
  }

  /** Everything `follow` yields until it ends; aborted (failing the test) after `ms`. */
  async function followAll(source: PgEventSource | undefined, execution: string, from: number, ms = 20_000) {
    const items: MirroredRecord[] = [];
    const signal = AbortSignal.timeout(ms);
    for await (const item of source?.follow(execution, from, signal) ?? []) items.push(item);
    if (signal.aborted) throw new Error(`follow did not end within ${ms} ms (${items.length} records)`);
    return items;
  }

  /** Appends `lines` from `from` on, one by one, with a random pause of 0–3 ms before each. */
  async function appendSlowly(
    mirror: EventMirror,
    execution: string,
    lines: readonly string[],
    seed: number,
    from = 0,
  ) {
    const random = seededRandom(seed);
    for (let position = from; position < lines.length; position++) {
      await sleep(Math.floor(random() * 4));
      await mirror.append(execution, position, lines[position] as string);
    }
  }

  const positions = (items: readonly MirroredRecord[]) => items.map((item) => item.position);
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => from + index);

  it('reads the records after `from` in order, a bounded batch at a time, as the log numbers them', async () => {
    await withCluster(1, async ({ mirror, sources: [source] }) => {
      const execution = newExecutionId();
      const path = logs.path(execution);
      const lines = writeLog(path, execution, history(MIRROR_READ_RECORDS + 99));
      await mirror.catchUp(execution, path);
      const first = (await source?.read(execution, 0)) ?? [];
      expect(positions(first)).toEqual(range(0, MIRROR_READ_RECORDS));
      expect(first.map((item) => item.line)).toEqual(lines.slice(0, MIRROR_READ_RECORDS));
      const middle = (await source?.read(execution, 450)) ?? [];
      expect(positions(middle)).toEqual(range(450, lines.length));
      expect(middle.map((item) => item.record)).toStrictEqual(readEvents(path, { from: 450 }));
      expect(await source?.read(execution, lines.length)).toEqual([]);
      expect(await source?.read(newExecutionId(), 0)).toEqual([]);
      await expect(source?.read(execution, -1)).rejects.toThrow(RangeError);
    });
  });

  it('skips a stored line that is not a valid record, which keeps its position', async () => {
    await withCluster(1, async ({ schema, mirror, sources: [source] }) => {
      const execution = newExecutionId();
      const lines = writeLog(logs.path(execution), execution, history(2));
      await mirror.append(execution, 0, lines[0] as string);
      // As another version of HarmFlow might have written it.
      await schemas.admin.query(`INSERT INTO ${schema}.event_records VALUES ($1, 1, '{"type":"from.the.future"}')`, [
        execution,
      ]);
      await mirror.append(execution, 2, lines[2] as string);
      expect(positions((await source?.read(execution, 0)) ?? [])).toEqual([0, 2]);
      expect(positions(await followAll(source, execution, 0))).toEqual([0, 2]);
    });
  });

  it('reads nothing past a gap (rows written around the mirror) until it is filled', async () => {
    await withCluster(
      1,
      async ({ schema, mirror, sources: [source] }) => {
        const execution = newExecutionId();
        const lines = writeLog(logs.path(execution), execution, history(2));
        await mirror.append(execution, 0, lines[0] as string);
        const insert = `INSERT INTO ${schema}.event_records VALUES ($1, $2, $3)`;
        await schemas.admin.query(insert, [execution, 2, lines[2]]);
        expect(positions((await source?.read(execution, 0)) ?? [])).toEqual([0]);
        expect(await source?.read(execution, 1)).toEqual([]);
        const following = followAll(source, execution, 0);
        await sleep(100);
        await schemas.admin.query(insert, [execution, 1, lines[1]]);
        expect(positions(await following)).toEqual([0, 1, 2]);
      },
      { pollMs: 20 },
    );
  });

  // The poll far slower than these tests: what wakes the followers is the writer's notifications.
  const NO_POLL = { pollMs: 60_000 };

  it('follows a writer appending 500 records with random pauses: each once, in order, ending after execution.ended', async () => {
    await withCluster(
      1,
      async ({ mirror, sources: [source] }) => {
        const execution = newExecutionId();
        const path = logs.path(execution);
        const lines = writeLog(path, execution, history(499));
        const [items] = await Promise.all([followAll(source, execution, 0), appendSlowly(mirror, execution, lines, 1)]);
        expect(positions(items)).toEqual(range(0, 500));
        expect(items.map((item) => item.line)).toEqual(lines);
        expect(items.map((item) => item.record)).toStrictEqual(readEvents(path));
        expect(items.at(-1)?.record.type).toBe('execution.ended');
      },
      NO_POLL,
    );
  });

  it('serves two API nodes at once, each from its own pool and LISTEN session: both get every record in order', async () => {
    await withCluster(
      2,
      async ({ mirror, sources }) => {
        const execution = newExecutionId();
        const lines = writeLog(logs.path(execution), execution, history(299));
        const [first, second] = await Promise.all([
          followAll(sources[0], execution, 0),
          followAll(sources[1], execution, 0),
          appendSlowly(mirror, execution, lines, 2),
        ]);
        expect(first?.map((item) => item.line)).toEqual(lines);
        expect(second?.map((item) => item.line)).toEqual(lines);
      },
      NO_POLL,
    );
  });

  it('resumes from a position in the middle, while the writer is still appending', async () => {
    await withCluster(1, async ({ mirror, sources: [source] }) => {
      const execution = newExecutionId();
      const lines = writeLog(logs.path(execution), execution, history(399));
      const writing = appendSlowly(mirror, execution, lines, 3);
      await expect.poll(async () => (await source?.read(execution, 150))?.length ?? 0).toBeGreaterThan(0);
      const [resumed] = await Promise.all([followAll(source, execution, 123), writing]);
      expect(positions(resumed)).toEqual(range(123, 400));
      expect(resumed.map((item) => item.line)).toEqual(lines.slice(123));
    });
  });

  it('follows many writers racing to mirror the same records (a worker re-mirroring after a crash)', async () => {
    await withCluster(1, async ({ schema, mirror, sources: [source] }) => {
      const execution = newExecutionId();
      const path = logs.path(execution);
      const lines = writeLog(path, execution, history(999));
      const rewriter = await openEventMirror(TEST_POSTGRES_URL, { schema });
      try {
        const [items] = await Promise.all([
          followAll(source, execution, 0),
          appendSlowly(mirror, execution, lines.slice(0, 400), 4),
          (async () => {
            await sleep(50);
            await rewriter.catchUp(execution, path);
          })(),
        ]);
        expect(positions(items)).toEqual(range(0, 1000));
        expect(items.map((item) => item.line)).toEqual(lines);
      } finally {
        await rewriter.close();
      }
    });
  });

  it('ends after execution.ended even when records follow it, and waits for more when it starts past it', async () => {
    await withCluster(1, async ({ mirror, sources: [source] }) => {
      const execution = newExecutionId();
      const path = logs.path(execution);
      writeLog(path, execution, [message('0'), ended, message('reopened'), ended]);
      await mirror.catchUp(execution, path);
      expect(positions(await followAll(source, execution, 0))).toEqual([0, 1]);
      expect(positions(await followAll(source, execution, 2))).toEqual([2, 3]);
      const waiting = new AbortController();
      const tail = source?.follow(execution, 4, waiting.signal);
      const next = tail?.next();
      await sleep(100);
      waiting.abort();
      expect(await next).toEqual({ done: true, value: undefined });
    });
  });

  it('neither loses nor repeats a record when notifications come early, twice, or never', async () => {
    await withCluster(
      1,
      async ({ schema, mirror, sources: [source] }) => {
        const execution = newExecutionId();
        const lines = writeLog(logs.path(execution), execution, history(9));
        await mirror.append(execution, 0, lines[0] as string);
        const following = followAll(source, execution, 0);
        const notify = () => schemas.admin.query('SELECT pg_notify($1, $2)', [mirrorChannel(schema), execution]);
        await sleep(50);
        for (const [position, line] of lines.entries()) {
          if (position === 0) continue;
          // Before the row is there, and twice: the follower reads, finds nothing new, and waits again.
          await notify();
          await notify();
          await sleep(5);
          // Inserted straight into the table: no notification. The poll finds it.
          await schemas.admin.query(`INSERT INTO ${schema}.event_records VALUES ($1, $2, $3)`, [
            execution,
            position,
            line,
          ]);
        }
        expect(positions(await following)).toEqual(range(0, 10));
      },
      { pollMs: 100 },
    );
  });

  it('listens again when its LISTEN session is lost, and followers carry on without a gap', async () => {
    const name = `${schemas.newSchema()}_node`;
    await withCluster(
      1,
      async ({ mirror, sources: [source] }) => {
        const execution = newExecutionId();
        const lines = writeLog(logs.path(execution), execution, history(199));
        /** The process ids of the node's LISTEN sessions. */
        const listening = async (): Promise<number[]> => {
          const { rows } = await schemas.admin.query(
            `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'`,
            [name],
          );
          return rows.map((row) => row.pid);
        };
        const [first] = await listening();
        expect(first).toBeDefined();
        const following = followAll(source, execution, 0);
        await appendSlowly(mirror, execution, lines.slice(0, 100), 5);
        await schemas.admin.query('SELECT pg_terminate_backend($1)', [first]);
        await appendSlowly(mirror, execution, lines, 6, 100);
        expect(positions(await following)).toEqual(range(0, 200));
        const [again, ...more] = await listening();
        expect(more).toEqual([]);
        expect(again).not.toBe(first);
      },
      // The poll far slower than the test: what carries the followers is listening again.
      { ...NO_POLL, url: urlNamed(TEST_POSTGRES_URL, name) },
    );
  });

  it('closes idempotently: followers end, its sessions end, and calls after close reject', async () => {
    const schema = schemas.newSchema();
    const source = await openPgEventSource(urlNamed(TEST_POSTGRES_URL, schema), { schema });
    const execution = newExecutionId();
    const following = followAll(source, execution, 0);
    await sleep(50);
    expect(await sessionsNamed(schemas.admin, schema)).toBeGreaterThan(1);
    await Promise.all([source.close(), source.close()]);
    await source.close();
    expect(await following).toEqual([]);
    await expect(source.read(execution, 0)).rejects.toThrow();
    await expect(followAll(source, execution, 0)).rejects.toThrow('the event source is closed');
    await expect.poll(() => sessionsNamed(schemas.admin, schema), { timeout: 2000 }).toBe(0);
  });
});
