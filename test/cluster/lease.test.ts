import { describe, expect, it } from 'vitest';
import { type ExecutionLeases, openExecutionLeases } from '../../src/cluster/lease.js';
import { newExecutionId } from '../../src/core/ids.js';
import { MIGRATIONS_TABLE, SCHEMA_VERSION } from '../../src/store/postgres/migrations.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL, testSchemas } from '../store/postgres.js';

const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(POSTGRES_AVAILABLE)('execution leases (PostgreSQL)', () => {
  const schemas = testSchemas();

  /** Runs `test` with leases open on a new schema, then closes them. */
  async function withLeases(test: (leases: ExecutionLeases, schema: string) => Promise<void>): Promise<void> {
    const schema = schemas.newSchema();
    const leases = await openExecutionLeases(TEST_POSTGRES_URL, { schema });
    try {
      await test(leases, schema);
    } finally {
      await leases.close();
    }
  }

  /** Expires every lease of `schema`, as time passing without renewals would. */
  async function expireAll(schema: string): Promise<void> {
    await schemas.admin.query(`UPDATE ${schema}.execution_leases SET expires_at = now() - interval '1 second'`);
  }

  it('creates its table with the other migrations', async () => {
    await withLeases(async (_leases, schema) => {
      const applied = await schemas.admin.query(`SELECT max(version) AS version FROM ${schema}.${MIGRATIONS_TABLE}`);
      expect(applied.rows[0].version).toBe(SCHEMA_VERSION);
      const table = await schemas.admin.query('SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = $2', [
        schema,
        'execution_leases',
      ]);
      expect(table.rowCount).toBe(1);
    });
  });

  it('gives the first acquire token 1 and refuses every acquire while it is unexpired, its holder too', async () => {
    await withLeases(async (leases) => {
      const execution = newExecutionId();
      expect(await leases.acquireLease(execution, 'a', MINUTE)).toBe(1);
      expect(await leases.acquireLease(execution, 'b', MINUTE)).toBeUndefined();
      expect(await leases.acquireLease(execution, 'a', MINUTE)).toBeUndefined();
      const holder = await leases.leaseHolder(execution);
      expect(holder).toMatchObject({ worker: 'a', token: 1 });
      expect(holder?.expiresInMs).toBeGreaterThan(MINUTE - 5_000);
      expect(holder?.expiresInMs).toBeLessThanOrEqual(MINUTE);
      // Leases are per execution.
      expect(await leases.acquireLease(newExecutionId(), 'b', MINUTE)).toBe(1);
    });
  });

  it('reads the unexpired leases of many executions at once, leaving out those that have none', async () => {
    await withLeases(async (leases, schema) => {
      const [held, released, expired, never] = [1, 2, 3, 4].map(() => newExecutionId());
      expect(await leases.acquireLease(held ?? '', 'a', MINUTE)).toBe(1);
      expect(await leases.acquireLease(released ?? '', 'b', MINUTE)).toBe(1);
      expect(await leases.releaseLease(released ?? '', 'b', 1)).toBe(true);
      expect(await leases.acquireLease(expired ?? '', 'c', MINUTE)).toBe(1);
      await schemas.admin.query(`UPDATE ${schema}.execution_leases SET expires_at = now() WHERE execution = $1`, [
        expired,
      ]);
      const holders = await leases.leaseHolders([held, released, expired, never].map(String));
      expect([...holders.keys()]).toEqual([held]);
      expect(holders.get(held ?? '')).toMatchObject({ worker: 'a', token: 1 });
      expect(await leases.leaseHolders([])).toEqual(new Map());
    });
  });

  it('keeps the token on renewal and raises it when another worker takes an expired lease over', async () => {
    await withLeases(async (leases) => {
      const execution = newExecutionId();
      expect(await leases.acquireLease(execution, 'a', 1000)).toBe(1);
      await sleep(300);
      expect(await leases.renewLease(execution, 'a', 1, 1000)).toBe(true);
      await sleep(800);
      // 1100 ms after the acquire, 800 ms after the renewal: still a's, still token 1.
      expect(await leases.acquireLease(execution, 'b', MINUTE)).toBeUndefined();
      expect(await leases.leaseHolder(execution)).toMatchObject({ worker: 'a', token: 1 });
      await sleep(400);
      expect(await leases.leaseHolder(execution)).toBeUndefined();
      expect(await leases.acquireLease(execution, 'b', MINUTE)).toBe(2);
      // The old holder is fenced out: it can neither renew nor release the lease.
      expect(await leases.renewLease(execution, 'a', 1, MINUTE)).toBe(false);
      expect(await leases.releaseLease(execution, 'a', 1)).toBe(false);
      expect(await leases.leaseHolder(execution)).toMatchObject({ worker: 'b', token: 2 });
    });
  });

  it('lets anyone acquire a released lease at once, with a greater token, and the same holder again', async () => {
    await withLeases(async (leases) => {
      const execution = newExecutionId();
      expect(await leases.acquireLease(execution, 'a', MINUTE)).toBe(1);
      expect(await leases.releaseLease(execution, 'a', 1)).toBe(true);
      expect(await leases.leaseHolder(execution)).toBeUndefined();
      expect(await leases.acquireLease(execution, 'b', MINUTE)).toBe(2);
      expect(await leases.releaseLease(execution, 'b', 2)).toBe(true);
      expect(await leases.acquireLease(execution, 'b', MINUTE)).toBe(3);
      // A token a holder never had renews and releases nothing.
      expect(await leases.renewLease(execution, 'b', 2, MINUTE)).toBe(false);
      expect(await leases.releaseLease(execution, 'a', 3)).toBe(false);
    });
  });

  it('gives the lease to exactly one of many workers acquiring at once, each time it is free', async () => {
    await withLeases(async (leases, schema) => {
      const execution = newExecutionId();
      const race = () =>
        Promise.all(Array.from({ length: 12 }, (_, i) => leases.acquireLease(execution, `w${i}`, MINUTE)));
      expect((await race()).filter((token) => token !== undefined)).toEqual([1]);
      for (const next of [2, 3, 4]) {
        await expireAll(schema);
        expect((await race()).filter((token) => token !== undefined)).toEqual([next]);
      }
    });
  });

  it('refuses a ttl that is not a positive whole number of milliseconds, and an empty worker', async () => {
    await withLeases(async (leases) => {
      const execution = newExecutionId();
      await expect(leases.acquireLease(execution, 'a', 0)).rejects.toThrow();
      await expect(leases.acquireLease(execution, 'a', 1.5)).rejects.toThrow();
      await expect(leases.acquireLease(execution, '', MINUTE)).rejects.toThrow();
      expect(await leases.leaseHolder(execution)).toBeUndefined();
    });
  });
});
