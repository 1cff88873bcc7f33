/**
 * The PostgreSQL store's views fenced to an execution's lease (postgres-store.ts `fencedTo`), against
 * the real lease table (cluster/lease.ts) in a schema of each test's own: a view writes its
 * execution's rows while its token is the lease's current one, is refused once another worker has
 * acquired the lease, and an acquire waits for a fenced write under way. Waits are observed in
 * PostgreSQL (`pg_blocking_pids`), never guessed from sleeps.
 */
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { type ExecutionLeases, openExecutionLeases } from '../../src/cluster/lease.js';
import { ConflictError } from '../../src/core/errors.js';
import { type FenceableStore, LeaseFenceError, openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { ExecutionRecord } from '../../src/store/store.js';
import { waitFor } from '../cluster/fixture.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL, testSchemas } from './postgres.js';
import { attempt, execution, task } from './records.js';

const MINUTE = 60_000;
/** A second execution of the same task, never leased. */
const other: ExecutionRecord = { ...execution, id: '01jf3k9x7q2m4n6p8r0s2t4v7x', branch: 'harmflow/demo-other' };

describe.runIf(POSTGRES_AVAILABLE)('PostgreSQL store fenced to a lease', () => {
  const schemas = testSchemas();

  /** Runs `test` with a store holding the records and the leases, both on a new schema. */
  async function withStore(
    test: (store: FenceableStore, leases: ExecutionLeases, schema: string) => Promise<void>,
  ): Promise<void> {
    const schema = schemas.newSchema();
    const store = await openPostgresStore(TEST_POSTGRES_URL, { schema });
    const leases = await openExecutionLeases(TEST_POSTGRES_URL, { schema }).catch(async (error: unknown) => {
      await store.close();
      throw error;
    });
    try {
      await store.insertTask(task);
      await store.insertExecution(execution);
      await store.insertExecution(other);
      await test(store, leases, schema);
    } finally {
      await leases.close();
      await store.close();
    }
  }

  /** The session blocked by the session `pid`, once there is one (polled, 10 s at most). */
  async function blockedBy(pid: number, what: string): Promise<number> {
    return waitFor(what, async () => {
      const { rows } = await schemas.admin.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))',
        [pid],
      );
      return rows[0]?.pid;
    });
  }

  /** A session of its own holding the execution's row locked until `release()` (idempotent). */
  async function lockRow(schema: string, id: string): Promise<{ pid: number; release(): Promise<void> }> {
    const client: pg.PoolClient = await schemas.admin.connect();
    try {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await client.query('BEGIN');
      await client.query(`SELECT 1 FROM ${schema}.executions WHERE id = $1 FOR UPDATE`, [id]);
      const pid = rows[0]?.pid;
      if (pid === undefined) throw new Error('no backend pid');
      let released: Promise<void> | undefined;
      return {
        pid,
        release() {
          released ??= client.query('COMMIT').then(
            () => client.release(),
            (error: Error) => client.release(error),
          );
          return released;
        },
      };
    } catch (error) {
      client.release(true);
      throw error;
    }
  }

  it("writes its execution's rows while its token is the lease's, even once expired if nobody took it over", async () => {
    await withStore(async (store, leases) => {
      const token = await leases.acquireLease(execution.id, 'a', MINUTE);
      expect(token).toBe(1);
      const view = store.fencedTo({ execution: execution.id, token: 1 });
      await view.updateExecution(execution.id, { message: 'held' });
      await view.insertAttempt(attempt);
      await view.updateAttempt(execution.id, 1, { outcome: 'completed' });
      // Expired (released), not taken over: the token is still the current one, as for a renewal.
      expect(await leases.releaseLease(execution.id, 'a', 1)).toBe(true);
      expect(await leases.leaseHolder(execution.id)).toBeUndefined();
      await view.insertAttempt({ ...attempt, number: 2 });
      await view.updateExecution(execution.id, { attemptCount: 2 });
      expect(await store.getExecution(execution.id)).toMatchObject({ message: 'held', attemptCount: 2 });
      expect((await store.listAttempts(execution.id)).map((row) => [row.number, row.outcome])).toEqual([
        [1, 'completed'],
        [2, undefined],
      ]);
      // A view owns nothing: closing it leaves it and its store working.
      await view.close();
      expect(await view.getExecution(execution.id)).toMatchObject({ message: 'held' });
      await store.updateExecution(execution.id, { message: 'still open' });
    });
  });

  it("refuses the old holder's writes once another worker acquired the lease, and changes nothing", async () => {
    await withStore(async (store, leases) => {
      expect(await leases.acquireLease(execution.id, 'a', 50)).toBe(1);
      const old = store.fencedTo({ execution: execution.id, token: 1 });
      await old.insertAttempt(attempt);
      await waitFor('the short lease to expire', async () =>
        (await leases.leaseHolder(execution.id)) === undefined ? true : undefined,
      );
      expect(await leases.acquireLease(execution.id, 'b', MINUTE)).toBe(2);
      const before = {
        execution: await store.getExecution(execution.id),
        attempts: await store.listAttempts(execution.id),
      };

      const refusals = await Promise.allSettled([
        old.updateExecution(execution.id, { state: 'failed', message: 'late' }),
        old.insertAttempt({ ...attempt, number: 2 }),
        old.updateAttempt(execution.id, 1, { outcome: 'canceled' }),
      ]);
      for (const refusal of refusals) {
        expect(refusal.status).toBe('rejected');
        const error = refusal.status === 'rejected' ? refusal.reason : undefined;
        expect(error).toBeInstanceOf(LeaseFenceError);
        expect(error).toBeInstanceOf(ConflictError);
        expect(error).toMatchObject({ execution: execution.id, token: 1 });
        expect(error.message).toContain(`execution ${execution.id}`);
        expect(error.message).toContain('token 1');
      }
      expect({
        execution: await store.getExecution(execution.id),
        attempts: await store.listAttempts(execution.id),
      }).toStrictEqual(before);
      // A token never handed out is refused alike.
      await expect(
        store.fencedTo({ execution: execution.id, token: 7 }).updateExecution(execution.id, {}),
      ).rejects.toThrow(LeaseFenceError);

      // The new holder's view writes; so do the unfenced store and the old view's writes of other rows.
      const current = store.fencedTo({ execution: execution.id, token: 2 });
      await current.updateAttempt(execution.id, 1, { outcome: 'crashed' });
      await current.insertAttempt({ ...attempt, number: 2 });
      await store.updateExecution(execution.id, { message: 'unfenced' });
      await old.updateExecution(other.id, { message: 'another execution' });
      await old.insertAttempt({ ...attempt, execution: other.id });
      await old.updateAttempt(other.id, 1, { outcome: 'completed' });
      await old.putQuota({
        harness: 'codex',
        account: '',
        state: 'ok',
        source: 'attempt.ended',
        observedAt: attempt.startedAt,
      });
      expect((await store.getExecution(execution.id))?.message).toBe('unfenced');
      expect((await store.listAttempts(execution.id)).map((row) => row.outcome)).toEqual(['crashed', undefined]);
      expect((await store.getExecution(other.id))?.message).toBe('another execution');
      expect((await store.listAttempts(other.id)).map((row) => row.outcome)).toEqual(['completed']);
    });
  });

  it('makes an acquire wait for a fenced write under way, which commits first', async () => {
    await withStore(async (store, leases, schema) => {
      expect(await leases.acquireLease(execution.id, 'a', MINUTE)).toBe(1);
      // Free for the taking, the token still 1's: the write passes its fence, the acquire raises it.
      expect(await leases.releaseLease(execution.id, 'a', 1)).toBe(true);
      const view = store.fencedTo({ execution: execution.id, token: 1 });
      const order: string[] = [];

      // The write takes the lease row FOR SHARE, then waits for the execution's row, locked here.
      const locker = await lockRow(schema, execution.id);
      try {
        const write = view.updateExecution(execution.id, { message: 'old holder' }).then(() => order.push('write'));
        const writer = await blockedBy(locker.pid, 'the fenced write to wait for the row lock');
        const acquire = leases.acquireLease(execution.id, 'b', MINUTE).then((token) => {
          order.push('acquire');
          return token;
        });
        // The acquire waits for the write's transaction (its share lock on the lease row), not for the row.
        const acquirer = await blockedBy(writer, 'the acquire to wait for the fenced write');
        const blockers = await schemas.admin.query<{ pids: number[] }>('SELECT pg_blocking_pids($1) AS pids', [
          acquirer,
        ]);
        expect(blockers.rows[0]?.pids).toEqual([writer]);
        expect(order).toEqual([]);

        await locker.release();
        const [, token] = await Promise.all([write, acquire]);
        expect(order).toEqual(['write', 'acquire']);
        expect(token).toBe(2);
      } finally {
        await locker.release();
      }
      expect((await store.getExecution(execution.id))?.message).toBe('old holder');
      // From then on the old view is fenced out.
      await expect(view.updateExecution(execution.id, { message: 'too late' })).rejects.toThrow(LeaseFenceError);
      expect((await store.getExecution(execution.id))?.message).toBe('old holder');
    });
  });

  it("makes its holder's renewal wait for a fenced write under way, without a deadlock", async () => {
    await withStore(async (store, leases, schema) => {
      expect(await leases.acquireLease(execution.id, 'a', MINUTE)).toBe(1);
      const view = store.fencedTo({ execution: execution.id, token: 1 });
      const order: string[] = [];
      const locker = await lockRow(schema, execution.id);
      try {
        const write = view.updateExecution(execution.id, { message: 'renewing' }).then(() => order.push('write'));
        const writer = await blockedBy(locker.pid, 'the fenced write to wait for the row lock');
        const renewal = leases.renewLease(execution.id, 'a', 1, MINUTE).then((renewed) => {
          order.push('renewal');
          return renewed;
        });
        await blockedBy(writer, 'the renewal to wait for the fenced write');
        expect(order).toEqual([]);
        await locker.release();
        const [, renewed] = await Promise.all([write, renewal]);
        expect(renewed).toBe(true);
        expect(order).toEqual(['write', 'renewal']);
      } finally {
        await locker.release();
      }
      expect(await leases.leaseHolder(execution.id)).toMatchObject({ worker: 'a', token: 1 });
      await view.updateExecution(execution.id, { message: 'after the renewal' });
      expect((await store.getExecution(execution.id))?.message).toBe('after the renewal');
    });
  });

  it('refuses to make a view of an empty execution id or a token that is not a positive integer', async () => {
    await withStore(async (store) => {
      expect(() => store.fencedTo({ execution: '', token: 1 })).toThrow();
      expect(() => store.fencedTo({ execution: execution.id, token: 0 })).toThrow();
      expect(() => store.fencedTo({ execution: execution.id, token: 1.5 })).toThrow();
    });
  });
});
