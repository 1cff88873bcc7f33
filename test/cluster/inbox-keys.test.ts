/**
 * Idempotency keys of the PostgreSQL inboxes: a turn enqueued again with its key is answered as the
 * first time and added once — from two API nodes at once, after the turn ran, after the inbox
 * closed —, a key reused with another request is refused, and a submit's first turn is made once.
 */
import { describe, expect, it } from 'vitest';
import { type ExecutionInbox, openExecutionInbox } from '../../src/cluster/inbox.js';
import { type ExecutionLeases, openExecutionLeases } from '../../src/cluster/lease.js';
import { ConflictError } from '../../src/core/errors.js';
import { newExecutionId } from '../../src/core/ids.js';
import { IdempotencyKeyReusedError } from '../../src/service/execution-service.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { Store } from '../../src/store/store.js';
import { executionRecord } from '../server/fixture.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL, testSchemas } from '../store/postgres.js';

const MINUTE = 60_000;
const request = (key: string, requestHash = 'hash-of-the-body') => ({ key, requestHash });

describe.runIf(POSTGRES_AVAILABLE)('inbox idempotency keys (PostgreSQL)', () => {
  const schemas = testSchemas();

  interface Cluster {
    readonly schema: string;
    readonly store: Store;
    readonly leases: ExecutionLeases;
    /** Two API nodes' handles. */
    readonly a: ExecutionInbox;
    readonly b: ExecutionInbox;
  }

  async function withCluster(test: (cluster: Cluster) => Promise<void>): Promise<void> {
    const schema = schemas.newSchema();
    const store = await openPostgresStore(TEST_POSTGRES_URL, { schema });
    const leases = await openExecutionLeases(TEST_POSTGRES_URL, { schema });
    const a = await openExecutionInbox(TEST_POSTGRES_URL, { schema });
    const b = await openExecutionInbox(TEST_POSTGRES_URL, { schema });
    try {
      await test({ schema, store, leases, a, b });
    } finally {
      await Promise.all([a.close(), b.close()]);
      await Promise.all([leases.close(), store.close()]);
    }
  }

  async function turnCount(schema: string, execution: string): Promise<number> {
    const { rows } = await schemas.admin.query(
      `SELECT count(*)::int AS n FROM ${schema}.execution_turns WHERE execution = $1`,
      [execution],
    );
    return rows[0].n;
  }

  it('answers a key sent again as the first time and adds its turn once, from two nodes at once', async () => {
    await withCluster(async ({ schema, a, b }) => {
      const execution = newExecutionId();
      await a.enqueueTurn(execution, 'the task');
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).enqueueTurn(execution, 'again', request('k-1'))),
      );
      expect(new Set(answers.map((answer) => JSON.stringify(answer)))).toEqual(
        new Set([JSON.stringify({ turn: 't2', queued: 2 })]),
      );
      expect(await turnCount(schema, execution)).toBe(2);
      expect(await b.answered(execution, request('k-1'))).toEqual({ turn: 't2', queued: 2 });
      expect(await b.answered(execution, request('k-2'))).toBeUndefined();
      // Keys are per execution: the same key for another one is another turn.
      const other = newExecutionId();
      expect(await a.enqueueTurn(other, 'its task', request('k-1'))).toEqual({ turn: 't1', queued: 1 });
    });
  });

  it('refuses a key reused with another request, adding nothing', async () => {
    await withCluster(async ({ schema, a }) => {
      const execution = newExecutionId();
      await a.enqueueTurn(execution, 'the task', request('k-1'));
      await expect(a.enqueueTurn(execution, 'other', request('k-1', 'another hash'))).rejects.toBeInstanceOf(
        IdempotencyKeyReusedError,
      );
      await expect(a.answered(execution, request('k-1', 'another hash'))).rejects.toThrow(/sent before/);
      expect(await turnCount(schema, execution)).toBe(1);
    });
  });

  it('answers the key after the turn ran and the inbox closed', async () => {
    await withCluster(async ({ a, b, leases }) => {
      const execution = newExecutionId();
      await a.enqueueTurn(execution, 'the task', request('k-1'));
      const token = await leases.acquireLease(execution, 'w1', MINUTE);
      if (token === undefined) throw new Error('no lease');
      const source = await a.openTurnSource(execution, token, { pollMs: MINUTE });
      const turn = source.next();
      await source.flush();
      if (turn === undefined) throw new Error('no turn');
      source.done(turn);
      await source.flush();
      expect(source.next()).toBeUndefined();
      await source.flush();
      await source.close();
      await expect(b.enqueueTurn(execution, 'late')).rejects.toThrow(ConflictError);
      expect(await b.enqueueTurn(execution, 'the task', request('k-1'))).toEqual({ turn: 't1', queued: 1 });
    });
  });

  it("makes a submit's first turn once, and not for an execution that is no longer queued", async () => {
    await withCluster(async ({ schema, store, a, b }) => {
      await store.insertTask({
        id: 'task-1',
        name: 'fix-login',
        definition: {},
        createdAt: '2025-03-01T10:00:00.000Z',
      });
      const queued = newExecutionId();
      await store.insertExecution(executionRecord(queued, 'queued'));
      const made = await Promise.all([a.enqueueFirstTurn(queued, 'the task'), b.enqueueFirstTurn(queued, 'the task')]);
      expect(made.sort()).toEqual(['existed', 'made']);
      expect(await a.enqueueFirstTurn(queued, 'the task')).toBe('existed');
      expect(await turnCount(schema, queued)).toBe(1);

      const failed = newExecutionId();
      await store.insertExecution(executionRecord(failed, 'failed'));
      expect(await a.enqueueFirstTurn(failed, 'the task')).toBe('refused');
      expect(await turnCount(schema, failed)).toBe(0);
    });
  });
});
