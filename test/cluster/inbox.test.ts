import { describe, expect, it } from 'vitest';
import { type ExecutionInbox, openExecutionInbox } from '../../src/cluster/inbox.js';
import type { TakenCommand } from '../../src/cluster/inbox-commands.js';
import { type ClusterTurnSource, UnflushedInboxError } from '../../src/cluster/inbox-source.js';
import { LeaseLostError } from '../../src/cluster/kept-lease.js';
import { type ExecutionLeases, openExecutionLeases } from '../../src/cluster/lease.js';
import { ConflictError } from '../../src/core/errors.js';
import { newExecutionId } from '../../src/core/ids.js';
import type { Turn } from '../../src/execution/turns.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL, testSchemas } from '../store/postgres.js';
import { waitFor } from './fixture.js';

const MINUTE = 60_000;
/** A poll so long that only notifications can wake a source within a test. */
const NO_POLL = { pollMs: MINUTE };

describe.runIf(POSTGRES_AVAILABLE)('execution inboxes (PostgreSQL)', () => {
  const schemas = testSchemas();

  interface Cluster {
    readonly schema: string;
    readonly leases: ExecutionLeases;
    /** The worker's handle. */
    readonly inbox: ExecutionInbox;
    /** An API node's handle: another pool, as another machine would have. */
    readonly api: ExecutionInbox;
  }

  /** Runs `test` with leases and two inbox handles open on a new schema, then closes them. */
  async function withCluster(test: (cluster: Cluster) => Promise<void>): Promise<void> {
    const schema = schemas.newSchema();
    const leases = await openExecutionLeases(TEST_POSTGRES_URL, { schema });
    const inbox = await openExecutionInbox(TEST_POSTGRES_URL, { schema });
    const api = await openExecutionInbox(TEST_POSTGRES_URL, { schema });
    try {
      await test({ schema, leases, inbox, api });
    } finally {
      await Promise.all([inbox.close(), api.close()]);
      await leases.close();
    }
  }

  async function acquire(leases: ExecutionLeases, execution: string, worker: string): Promise<number> {
    const token = await leases.acquireLease(execution, worker, MINUTE);
    if (token === undefined) throw new Error(`${worker} could not acquire ${execution}`);
    return token;
  }

  /** Expires the lease of `execution`, as a worker that stopped renewing it would let it expire. */
  async function expire(schema: string, execution: string): Promise<void> {
    await schemas.admin.query(
      `UPDATE ${schema}.execution_leases SET expires_at = now() - interval '1 second' WHERE execution = $1`,
      [execution],
    );
  }

  async function turnStates(schema: string, execution: string): Promise<Record<string, string>> {
    const { rows } = await schemas.admin.query(
      `SELECT number, state FROM ${schema}.execution_turns WHERE execution = $1 ORDER BY number`,
      [execution],
    );
    return Object.fromEntries(rows.map((row) => [`t${row.number}`, row.state]));
  }

  /** A worker's step: the next turn, durable as running before it is used. */
  async function start(source: ClusterTurnSource): Promise<Turn | undefined> {
    const turn = source.next();
    await source.flush();
    return turn;
  }

  /** A worker's step: `turn` done, durably, before the next one starts. */
  async function finish(source: ClusterTurnSource, turn: Turn): Promise<void> {
    source.done(turn);
    await source.flush();
  }

  it('numbers 20 turns enqueued at once from two nodes t1 to t20, with no gap and none twice', async () => {
    await withCluster(async ({ schema, inbox, api }) => {
      const execution = newExecutionId();
      const sent = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? inbox : api).enqueueTurn(execution, `message ${i}`)),
      );
      expect(sent.map((queued) => queued.turn).sort()).toEqual(
        Array.from({ length: 20 }, (_, i) => `t${i + 1}`).sort(),
      );
      for (const queued of sent) expect(queued.queued).toBe(Number(queued.turn.slice(1)));
      const { rows } = await schemas.admin.query(
        `SELECT number, text, state FROM ${schema}.execution_turns WHERE execution = $1 ORDER BY number`,
        [execution],
      );
      expect(rows.map((row) => row.number)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(rows.map((row) => row.text).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `message ${i}`).sort());
      expect(new Set(rows.map((row) => row.state))).toEqual(new Set(['queued']));
      // Numbering is per execution.
      expect(await api.enqueueTurn(newExecutionId(), 'other')).toEqual({ turn: 't1', queued: 1 });
    });
  });

  it('closes once every turn is done, then refuses messages and commands', async () => {
    await withCluster(async ({ schema, leases, inbox, api }) => {
      const execution = newExecutionId();
      await api.enqueueTurn(execution, 'the task');
      const source = await inbox.openTurnSource(execution, await acquire(leases, execution, 'w1'), NO_POLL);
      const t1 = await start(source);
      expect(t1).toEqual({ id: 't1', text: 'the task', redelivered: false });
      expect(await turnStates(schema, execution)).toEqual({ t1: 'running' });
      if (t1 === undefined) throw new Error('t1 expected');
      // Not while t1 runs.
      expect(await source.close()).toBe(false);
      await finish(source, t1);
      expect(source.next()).toBeUndefined();
      expect(await source.close()).toBe(true);
      expect(source.closed).toBe(true);
      await expect(api.enqueueTurn(execution, 'too late')).rejects.toThrow(ConflictError);
      await expect(api.requestCommand(execution, { kind: 'cancel' })).rejects.toThrow(ConflictError);
      expect(await turnStates(schema, execution)).toEqual({ t1: 'done' });
    });
  });

  it('never acknowledges a message that a close racing it drops', async () => {
    await withCluster(async ({ schema, leases, inbox, api }) => {
      const outcomes = { acknowledged: 0, refused: 0 };
      for (let round = 0; round < 20; round++) {
        const execution = newExecutionId();
        await api.enqueueTurn(execution, 'the task');
        const source = await inbox.openTurnSource(execution, await acquire(leases, execution, 'w1'), NO_POLL);
        const t1 = await start(source);
        if (t1 === undefined) throw new Error('t1 expected');
        await finish(source, t1);
        const [sent, closed] = await Promise.allSettled([api.enqueueTurn(execution, 'racing'), source.close()]);
        if (closed.status !== 'fulfilled') throw closed.reason;
        if (sent.status === 'fulfilled') {
          outcomes.acknowledged += 1;
          // The close saw the message: it refused, and the worker runs it.
          expect(closed.value).toBe(false);
          const t2 = await start(source);
          expect(t2).toEqual({ id: 't2', text: 'racing', redelivered: false });
          if (t2 === undefined) throw new Error('t2 expected');
          await finish(source, t2);
          expect(await source.close()).toBe(true);
        } else {
          outcomes.refused += 1;
          expect(sent.reason).toBeInstanceOf(ConflictError);
          expect(closed.value).toBe(true);
        }
        expect(await turnStates(schema, execution)).toEqual(
          sent.status === 'fulfilled' ? { t1: 'done', t2: 'done' } : { t1: 'done' },
        );
        await source.stop();
      }
      expect(outcomes.acknowledged + outcomes.refused).toBe(20);
    });
  });

  it('hands a running worker the turns enqueued meanwhile, in order, each once (notifications alone)', async () => {
    await withCluster(async ({ schema, leases, inbox, api }) => {
      const execution = newExecutionId();
      await api.enqueueTurn(execution, 'message 1');
      const source = await inbox.openTurnSource(execution, await acquire(leases, execution, 'w1'), NO_POLL);
      const producer = (async () => {
        for (let i = 2; i <= 10; i++) {
          await api.enqueueTurn(execution, `message ${i}`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const handled: Turn[] = [];
      await waitFor('ten turns handled', async () => {
        const turn = await start(source);
        if (turn !== undefined) {
          handled.push(turn);
          await finish(source, turn);
        }
        return handled.length === 10 ? true : undefined;
      });
      await producer;
      expect(handled).toEqual(
        Array.from({ length: 10 }, (_, i) => ({ id: `t${i + 1}`, text: `message ${i + 1}`, redelivered: false })),
      );
      expect(await source.close()).toBe(true);
      expect(Object.values(await turnStates(schema, execution))).toEqual(Array(10).fill('done'));
    });
  });

  it('reads a turn that came without a notification at its next poll', async () => {
    await withCluster(async ({ schema, leases, inbox, api }) => {
      const execution = newExecutionId();
      await api.enqueueTurn(execution, 'the task');
      const source = await inbox.openTurnSource(execution, await acquire(leases, execution, 'w1'), { pollMs: 100 });
      const t1 = await start(source);
      if (t1 === undefined) throw new Error('t1 expected');
      await finish(source, t1);
      // Written behind the inbox's back: no notification.
      await schemas.admin.query(
        `WITH counter AS (UPDATE ${schema}.execution_inboxes SET next_number = 3 WHERE execution = $1)
         INSERT INTO ${schema}.execution_turns (execution, number, text, state, queued_at) VALUES ($1, 2, 'quiet', 'queued', now())`,
        [execution],
      );
      const t2 = await waitFor('t2', () => source.next(), 2000);
      expect(t2).toEqual({ id: 't2', text: 'quiet', redelivered: false });
    });
  });

  it('hands a dead worker’s running turn to the next holder marked redelivered, then the rest', async () => {
    await withCluster(async ({ schema, leases, inbox, api }) => {
      const execution = newExecutionId();
      for (let i = 1; i <= 4; i++) await api.enqueueTurn(execution, `message ${i}`);
      const dead = await inbox.openTurnSource(execution, await acquire(leases, execution, 'w1'), NO_POLL);
      const t1 = await start(dead);
      if (t1 === undefined) throw new Error('t1 expected');
      await finish(dead, t1);
      expect(await start(dead)).toMatchObject({ id: 't2' });
      // The worker dies mid-t2: no done, its lease runs out, another worker takes the execution over.
      await dead.stop();
      await expire(schema, execution);
      const source = await inbox.openTurnSource(execution, await acquire(leases, execution, 'w2'), NO_POLL);
      expect(source.size).toBe(3);
      const t2 = source.next();
      expect(t2).toEqual({ id: 't2', text: 'message 2', redelivered: true });
      // Handed out again (after a switch) it is the same turn, no longer marked.
      expect(source.next()).toEqual({ id: 't2', text: 'message 2', redelivered: false });
      if (t2 === undefined) throw new Error('t2 expected');
      await finish(source, t2);
      const rest: string[] = [];
      for (let turn = await start(source); turn !== undefined; turn = await start(source)) {
        expect(turn.redelivered).toBe(false);
        rest.push(turn.id);
        await finish(source, turn);
      }
      expect(rest).toEqual(['t3', 't4']);
      expect(await source.close()).toBe(true);
      expect(await turnStates(schema, execution)).toEqual({ t1: 'done', t2: 'done', t3: 'done', t4: 'done' });
    });
  });

  it('refuses a stale holder’s done, next, close and commands once another has taken the execution over', async () => {
    await withCluster(async ({ schema, leases, inbox, api }) => {
      const execution = newExecutionId();
      for (let i = 1; i <= 2; i++) await api.enqueueTurn(execution, `message ${i}`);
      const staleToken = await acquire(leases, execution, 'w1');
      const stalled = await inbox.openTurnSource(execution, staleToken, NO_POLL);
      const stalledNext = await inbox.openTurnSource(execution, staleToken, NO_POLL);
      const t1 = await start(stalled);
      if (t1 === undefined) throw new Error('t1 expected');
      await expire(schema, execution);
      const token = await acquire(leases, execution, 'w2');
      const source = await inbox.openTurnSource(execution, token, NO_POLL);

      // The old holder finishes t1 after the take-over: refused, and its source fails for good.
      stalled.done(t1);
      await expect(stalled.flush()).rejects.toThrow(LeaseLostError);
      expect(() => stalled.next()).toThrow(LeaseLostError);
      // A stale next (t1, queued in that source's memory) is refused as it is written.
      expect(stalledNext.next()).toMatchObject({ id: 't1' });
      await expect(stalledNext.close()).rejects.toThrow(LeaseLostError);
      await expect(inbox.takeCommands(execution, staleToken)).rejects.toThrow(LeaseLostError);
      await expect(inbox.openTurnSource(execution, staleToken)).rejects.toThrow(LeaseLostError);
      expect(await turnStates(schema, execution)).toEqual({ t1: 'running', t2: 'queued' });

      // The holder redelivers t1 and carries on.
      const again = await start(source);
      expect(again).toEqual({ id: 't1', text: 'message 1', redelivered: true });
      if (again === undefined) throw new Error('t1 expected');
      await finish(source, again);
      expect(await start(source)).toMatchObject({ id: 't2', redelivered: false });
      expect(await turnStates(schema, execution)).toEqual({ t1: 'done', t2: 'running' });
    });
  });

  it('refuses a stale holder’s mark of a queued turn as running', async () => {
    await withCluster(async ({ schema, leases, inbox, api }) => {
      const execution = newExecutionId();
      await api.enqueueTurn(execution, 'the task');
      const stalled = await inbox.openTurnSource(execution, await acquire(leases, execution, 'w1'), NO_POLL);
      await expire(schema, execution);
      await acquire(leases, execution, 'w2');
      expect(stalled.next()).toMatchObject({ id: 't1' });
      await expect(stalled.flush()).rejects.toThrow(LeaseLostError);
      expect(await turnStates(schema, execution)).toEqual({ t1: 'queued' });
    });
  });

  it('refuses to start a new turn while a write is unflushed', async () => {
    await withCluster(async ({ leases, inbox, api }) => {
      const execution = newExecutionId();
      await api.enqueueTurn(execution, 'message 1');
      await api.enqueueTurn(execution, 'message 2');
      const source = await inbox.openTurnSource(execution, await acquire(leases, execution, 'w1'), NO_POLL);
      const t1 = source.next();
      if (t1 === undefined) throw new Error('t1 expected');
      // The turn in flight is handed out again without a write.
      expect(source.next()).toMatchObject({ id: 't1' });
      source.done(t1);
      expect(() => source.next()).toThrow(UnflushedInboxError);
      await source.flush();
      expect(source.next()).toMatchObject({ id: 't2' });
    });
  });

  it('ends a queue whatever is queued: later messages are refused and a new holder gets no turn', async () => {
    await withCluster(async ({ schema, leases, inbox, api }) => {
      const execution = newExecutionId();
      await api.enqueueTurn(execution, 'message 1');
      await api.enqueueTurn(execution, 'message 2');
      const source = await inbox.openTurnSource(execution, await acquire(leases, execution, 'w1'), NO_POLL);
      await start(source);
      await source.end();
      expect(source.closed).toBe(true);
      expect(source.next()).toMatchObject({ id: 't1' });
      await expect(api.enqueueTurn(execution, 'late')).rejects.toThrow(ConflictError);
      await expire(schema, execution);
      const next = await inbox.openTurnSource(execution, await acquire(leases, execution, 'w2'), NO_POLL);
      expect(next.closed).toBe(true);
      expect(await next.close()).toBe(true);
    });
  });

  it('hands each command to exactly one of two holders taking at once, in the order requested', async () => {
    await withCluster(async ({ leases, inbox, api }) => {
      const execution = newExecutionId();
      await api.enqueueTurn(execution, 'the task');
      const token = await acquire(leases, execution, 'w1');
      const requested: number[] = [];
      const taken: TakenCommand[][] = [[], []];
      const consumers = [inbox, api].map(async (consumer, i) => {
        for (let round = 0; round < 40; round++) {
          taken[i]?.push(...(await consumer.takeCommands(execution, token)));
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      });
      for (let i = 0; i < 30; i++) {
        const command =
          i % 3 === 0
            ? ({ kind: 'cancel' } as const)
            : i % 3 === 1
              ? ({ kind: 'resume' } as const)
              : ({ kind: 'switch', harness: 'gemini', by: 'api', reason: `r${i}` } as const);
        requested.push(await api.requestCommand(execution, command));
      }
      await Promise.all(consumers);
      const rest = await inbox.takeCommands(execution, token);
      const all = [...(taken[0] ?? []), ...(taken[1] ?? []), ...rest].map((command) => command.id);
      expect(all.sort((a, b) => a - b)).toEqual(requested);
      for (const batch of taken) {
        const ids = (batch ?? []).map((command) => command.id);
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
      }
      expect(await inbox.takeCommands(execution, token)).toEqual([]);
    });
  });

  it('passes the commands to the source’s holder as they are requested', async () => {
    await withCluster(async ({ leases, inbox, api }) => {
      const execution = newExecutionId();
      await api.enqueueTurn(execution, 'the task');
      const received: TakenCommand[] = [];
      await inbox.openTurnSource(execution, await acquire(leases, execution, 'w1'), {
        ...NO_POLL,
        onCommand: (command) => received.push(command),
      });
      await api.requestCommand(execution, { kind: 'switch', harness: 'codex', model: 'gpt-5', by: 'cli (alice)' });
      await api.requestCommand(execution, { kind: 'cancel' });
      await waitFor('two commands', () => (received.length === 2 ? true : undefined), 5000);
      expect(received.map((taken) => taken.command)).toEqual([
        { kind: 'switch', harness: 'codex', model: 'gpt-5', by: 'cli (alice)' },
        { kind: 'cancel' },
      ]);
      expect(received[0]?.requestedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      await expect(api.requestCommand(execution, { kind: 'switch', harness: 'nope' } as never)).rejects.toThrow();
    });
  });
});
