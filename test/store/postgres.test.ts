import { describe, expect, it } from 'vitest';
import { MIGRATIONS_TABLE, SCHEMA_VERSION } from '../../src/store/postgres/migrations.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { AttemptRecord, QuotaRecord, Store, TaskRecord } from '../../src/store/store.js';
import { describeStoreConformance } from './conformance.js';
import { POSTGRES_AVAILABLE, sessionsNamed, TEST_POSTGRES_URL, testSchemas, urlNamed } from './postgres.js';
import { execution, quota, attempt as storedAttempt, task as storedTask } from './records.js';

/** A definition jsonb stores with its keys in another order, and a token count beyond 32 bits. */
const task: TaskRecord = {
  ...storedTask,
  definition: { prompt: 'hi', chain: [{ harness: 'codex', env: { B: '2', A: '1' } }], ratio: 0.1 + 0.2 },
};
const attempt: AttemptRecord = { ...storedAttempt, inputTokens: 3_000_000_000 };

describe.runIf(POSTGRES_AVAILABLE)('PostgreSQL store', () => {
  const schemas = testSchemas();

  /** Runs `test` with `count` stores open on `schema`, then closes them. */
  async function withStores(schema: string, count: number, test: (stores: Store[]) => Promise<void>): Promise<void> {
    const opened = await Promise.allSettled(
      Array.from({ length: count }, () => openPostgresStore(TEST_POSTGRES_URL, { schema })),
    );
    const stores = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    try {
      expect(opened.filter((result) => result.status === 'rejected')).toEqual([]);
      await test(stores);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  }

  describeStoreConformance('postgres', async () =>
    openPostgresStore(TEST_POSTGRES_URL, { schema: schemas.newSchema() }),
  );

  describe('openPostgresStore', () => {
    it('applies the migrations once when several stores open a new schema at once', async () => {
      const schema = schemas.newSchema();
      await withStores(schema, 4, async ([first, , , last]) => {
        const applied = await schemas.admin.query(`SELECT version FROM ${schema}.${MIGRATIONS_TABLE} ORDER BY version`);
        expect(applied.rows.map((row) => row.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
        await first?.insertTask(task);
        expect(await last?.getTask(task.id)).toStrictEqual(task);
      });
    });

    it('keeps its data across close and reopen, and shares it between open stores', async () => {
      const schema = schemas.newSchema();
      await withStores(schema, 1, async ([first]) => {
        await first?.insertTask(task);
        await first?.insertExecution(execution);
        await first?.insertAttempt(attempt);
        await first?.putQuota(quota);
      });
      await withStores(schema, 2, async ([a, b]) => {
        expect(await a?.getTask(task.id)).toStrictEqual(task);
        expect(await a?.getExecution(execution.id)).toStrictEqual(execution);
        expect(await a?.listAttempts(execution.id)).toStrictEqual([attempt]);
        expect(await a?.listQuotas()).toStrictEqual([quota]);
        await a?.updateExecution(execution.id, { attemptCount: 2 });
        await b?.updateExecution(execution.id, { message: 'from b' });
        expect(await a?.getExecution(execution.id)).toStrictEqual({ ...execution, attemptCount: 2, message: 'from b' });
      });
    });

    it('loses no patch when stores patch one execution at once, and keeps the newest quota', async () => {
      const schema = schemas.newSchema();
      await withStores(schema, 2, async ([a, b]) => {
        if (a === undefined || b === undefined) throw new Error('two stores expected');
        await a.insertTask(task);
        await a.insertExecution(execution);
        await Promise.all([
          a.updateExecution(execution.id, { attemptCount: 3 }),
          b.updateExecution(execution.id, { message: 'm' }),
          a.updateExecution(execution.id, { currentHarness: 'codex' }),
          b.updateExecution(execution.id, { startedAt: '2025-03-01T10:00:02.000Z' }),
          a.updateExecution(execution.id, { branch: 'harmflow/other' }),
          b.updateExecution(execution.id, { worktree: '/w2' }),
        ]);
        expect(await b.getExecution(execution.id)).toStrictEqual({
          ...execution,
          attemptCount: 3,
          message: 'm',
          currentHarness: 'codex',
          startedAt: '2025-03-01T10:00:02.000Z',
          branch: 'harmflow/other',
          worktree: '/w2',
        });

        const observed = (second: number) => ({
          ...quota,
          observedAt: `2025-03-01T10:05:${String(second).padStart(2, '0')}.000Z`,
        });
        await Promise.all([7, 3, 9, 1, 8, 2].map((second, i) => (i % 2 === 0 ? a : b).putQuota(observed(second))));
        expect(await a.listQuotas()).toStrictEqual([observed(9)]);
      });
    });

    it('closes idempotently: its connections end, and calls after close reject', async () => {
      const schema = schemas.newSchema();
      const store = await openPostgresStore(urlNamed(TEST_POSTGRES_URL, schema), { schema });
      await store.insertTask(task);
      expect(await sessionsNamed(schemas.admin, schema)).toBeGreaterThan(0);
      await Promise.all([store.close(), store.close()]);
      await store.close();
      await expect(store.getTask(task.id)).rejects.toThrow();
      await expect(store.updateExecution(execution.id, { message: 'late' })).rejects.toThrow();
      await expect.poll(() => sessionsNamed(schemas.admin, schema), { timeout: 2000 }).toBe(0);
    });

    it('refuses a schema written by a newer HarmFlow, naming both versions', async () => {
      const schema = schemas.newSchema();
      await withStores(schema, 1, async () => {});
      await schemas.admin.query(`INSERT INTO ${schema}.${MIGRATIONS_TABLE} (version) VALUES ($1)`, [
        SCHEMA_VERSION + 1,
      ]);
      await expect(openPostgresStore(TEST_POSTGRES_URL, { schema })).rejects.toThrow(
        `schema version ${SCHEMA_VERSION + 1}; this HarmFlow knows versions up to ${SCHEMA_VERSION}`,
      );
    });

    it('refuses a schema name that is not a plain lowercase identifier, before connecting', async () => {
      for (const schema of ['', 'Upper', '1st', 'a-b', 'x; DROP SCHEMA public', 'a'.repeat(64)]) {
        await expect(openPostgresStore(TEST_POSTGRES_URL, { schema })).rejects.toThrow(/is not a lowercase identifier/);
      }
    });

    it('rejects when the server does not answer', async () => {
      await expect(
        openPostgresStore('postgres://postgres@127.0.0.1:1/test', { schema: schemas.newSchema() }),
      ).rejects.toThrow(/ECONNREFUSED/);
    });

    it('refuses rows that break the schema, whoever writes them', async () => {
      const schema = schemas.newSchema();
      await withStores(schema, 1, async ([store]) => {
        const insert = `INSERT INTO ${schema}.quotas (harness, account, state, utilization, source, attempt, observed_at)
          VALUES ('codex', '', $1, $2, 'rate_limit', $3, '2025-03-01T10:05:00.000Z')`;
        await expect(schemas.admin.query(insert, ['unknown', null, null])).rejects.toThrow(/check constraint/);
        await expect(schemas.admin.query(insert, ['warning', 1.5, null])).rejects.toThrow(/check constraint/);
        await expect(schemas.admin.query(insert, ['ok', null, 0])).rejects.toThrow(/check constraint/);
        await expect(store?.putQuota({ ...quota, observedAt: 'not a time' })).rejects.toThrow(/timestamp/);
        await expect(store?.putQuota({ ...quota, state: 'gone' as QuotaRecord['state'] })).rejects.toThrow(
          /check constraint/,
        );
        expect(await store?.listQuotas()).toEqual([]);
      });
    });
  });
});
