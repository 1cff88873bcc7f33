import { describe, expect, it } from 'vitest';
import { openPostgresEffectLedger } from '../../src/store/postgres/effect-ledger.js';
import { MIGRATIONS_TABLE, SCHEMA_VERSION } from '../../src/store/postgres/migrations.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openPostgresResumeStore } from '../../src/store/postgres/resume-store.js';
import type { ItemCommit, ResumeStore, RunItem } from '../../src/store/resume-store.js';
import { claimOf } from './effect-ledger-conformance.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL, testSchemas } from './postgres.js';
import { task } from './records.js';
import { at, computed, describeResumeStoreConformance, done, failed, fp, output, run } from './resume-conformance.js';

describe.runIf(POSTGRES_AVAILABLE)('PostgreSQL resume store', () => {
  const schemas = testSchemas();

  /** Runs `test` with `count` resume stores open on `schema`, then closes them. */
  async function withStores(
    schema: string,
    count: number,
    test: (stores: ResumeStore[]) => Promise<void>,
  ): Promise<void> {
    const stores = await Promise.all(
      Array.from({ length: count }, () => openPostgresResumeStore(TEST_POSTGRES_URL, { schema })),
    );
    try {
      await test(stores);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  }

  describeResumeStoreConformance('postgres', () =>
    openPostgresResumeStore(TEST_POSTGRES_URL, { schema: schemas.newSchema() }),
  );

  describe('openPostgresResumeStore', () => {
    it('shares a new schema with the Store and the effect ledger opened at once, migrated once', async () => {
      const schema = schemas.newSchema();
      const [store, resume, ledger] = await Promise.all([
        openPostgresStore(TEST_POSTGRES_URL, { schema }),
        openPostgresResumeStore(TEST_POSTGRES_URL, { schema }),
        openPostgresEffectLedger(TEST_POSTGRES_URL, { schema }),
      ]);
      try {
        const applied = await schemas.admin.query(`SELECT version FROM ${schema}.${MIGRATIONS_TABLE} ORDER BY version`);
        expect(applied.rows.map((row) => row.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
        await store.insertTask(task);
        await resume.createRun(run('r-1'));
        await ledger.claim(claimOf('k-1'));
        expect(await store.getTask(task.id)).toStrictEqual(task);
        expect(await resume.getRun('r-1')).toStrictEqual(run('r-1'));
        expect(await ledger.get('k-1')).toMatchObject({ state: 'claimed', holder: ledger.holder });
      } finally {
        await Promise.all([store.close(), resume.close(), ledger.close()]);
      }
    });

    it('keeps runs, outputs and run items across close and reopen, and shares them between open stores', async () => {
      const schema = schemas.newSchema();
      await withStores(schema, 1, async ([first]) => {
        await first?.createRun(run('r-1'));
        await first?.commitItems([computed('r-1', output(fp('a'))), { item: failed('r-1', 'review', 'c-1', fp('b')) }]);
      });
      await withStores(schema, 2, async ([a, b]) => {
        await a?.updateRun('r-1', { state: 'crashed', message: 'overloaded', updatedAt: at(9) });
        expect(await b?.getRun('r-1')).toStrictEqual({
          ...run('r-1'),
          state: 'crashed',
          message: 'overloaded',
          updatedAt: at(9),
        });
        expect((await b?.getOutputs([fp('a')]))?.get(fp('a'))).toStrictEqual(output(fp('a')));
        expect(await b?.listRunItems('r-1')).toStrictEqual([
          done('r-1', 'extract', 'c-1', fp('a')),
          failed('r-1', 'review', 'c-1', fp('b')),
        ]);
      });
    });

    it('loses nothing and deadlocks never when two stores commit the same items and outputs in opposite orders', async () => {
      const schema = schemas.newSchema();
      await withStores(schema, 2, async ([a, b]) => {
        if (a === undefined || b === undefined) throw new Error('two stores expected');
        await a.createRun(run('r-1'));
        const commits = Array.from({ length: 200 }, (_, index) =>
          computed('r-1', output(fp(`o${index}`), { item: `c-${String(index).padStart(3, '0')}` })),
        );
        const batches = (list: readonly ItemCommit[]) =>
          Array.from({ length: 4 }, (_, batch) => list.slice(batch * 50, batch * 50 + 50));
        await Promise.all([
          ...batches(commits).map((batch) => a.commitItems(batch)),
          ...batches([...commits].reverse()).map((batch) => b.commitItems(batch)),
          a.updateRun('r-1', { message: 'patched while committing', updatedAt: at(5) }),
        ]);
        expect(await a.listRunItems('r-1')).toStrictEqual(commits.map((commit) => commit.item));
        expect((await b.getOutputs(commits.map((commit) => commit.output?.fingerprint ?? ''))).size).toBe(200);
        expect(await b.getRun('r-1')).toMatchObject({ message: 'patched while committing' });
      });
    });

    it('rolls back a commit the database refuses midway, after earlier rows were written', async () => {
      await withStores(schemas.newSchema(), 1, async ([store]) => {
        await store?.createRun(run('r-1'));
        // `tries` is an integer column: the item upsert fails after the outputs were inserted.
        const refused = { ...done('r-1', 'extract', 'c-3', fp('c')), tries: 1.5 } as RunItem;
        await expect(
          store?.commitItems([
            computed('r-1', output(fp('a'), { item: 'c-1' })),
            computed('r-1', output(fp('b'), { item: 'c-2' })),
            { item: refused, output: output(fp('c'), { item: 'c-3' }) },
          ]),
        ).rejects.toThrow(/integer/);
        expect((await store?.getOutputs([fp('a'), fp('b'), fp('c')]))?.size).toBe(0);
        expect(await store?.listRunItems('r-1')).toEqual([]);
      });
    });

    it('refuses rows that break the record rules, whoever writes them', async () => {
      const schema = schemas.newSchema();
      await withStores(schema, 1, async () => {});
      const { admin } = schemas;
      const insertRun = `INSERT INTO ${schema}.workflow_runs (id, workflow, params, state, created_at, updated_at)
        VALUES ($1, 'wf', $2, $3, $4, $4)`;
      await expect(admin.query(insertRun, ['r-1', '{}', 'paused', at(0)])).rejects.toThrow(/check constraint/);
      await expect(admin.query(insertRun, ['r-2', '[1]', 'running', at(0)])).rejects.toThrow(/check constraint/);
      await expect(admin.query(insertRun, ['r-3', '{"month":', 'running', at(0)])).rejects.toThrow(/json/);
      await expect(admin.query(insertRun, ['r-4', '{}', 'running', 'not a time'])).rejects.toThrow(/timestamp/);
      await admin.query(insertRun, ['r-5', '{}', 'running', at(0)]);
      // A run's owner is whole or absent.
      const setOwner = `UPDATE ${schema}.workflow_runs SET owner_pid = $1, owner_host = 'h', owner_start_time = '1',
        owner_since = $2 WHERE id = 'r-5'`;
      await expect(admin.query(setOwner, [4242, null])).rejects.toThrow(/check constraint/);
      await expect(admin.query(setOwner, [0, at(0)])).rejects.toThrow(/check constraint/);
      await admin.query(setOwner, [4242, at(0)]);
      // Hashes are their 32 bytes: bytes of another length are refused.
      const hash = Buffer.alloc(32, 0xab);
      const insertOutput = `INSERT INTO ${schema}.step_outputs VALUES ($1, 'wf', 's', 'i', $2, '{}', '{}', 1, NULL, NULL, $3)`;
      await expect(admin.query(insertOutput, [Buffer.alloc(31), hash, at(0)])).rejects.toThrow(/check constraint/);
      await expect(admin.query(insertOutput, [hash, Buffer.alloc(33), at(0)])).rejects.toThrow(/check constraint/);
      await expect(admin.query(insertOutput, [null, hash, at(0)])).rejects.toThrow(/not-null/);
      const insertItem = `INSERT INTO ${schema}.run_items VALUES ($1, 's', 'i', $2, $3, $4, $5, $6, 1, '${at(0)}', $7)`;
      const item = (
        run: string,
        status: string,
        digest: Buffer | null,
        cached: boolean | null,
        error: string | null,
      ) => [run, status, hash, digest, cached, error, null];
      await expect(admin.query(insertItem, item('r-5', 'done', null, false, null))).rejects.toThrow(/check constraint/);
      await expect(admin.query(insertItem, item('r-5', 'done', hash, false, 'an error'))).rejects.toThrow(
        /check constraint/,
      );
      await expect(admin.query(insertItem, item('r-5', 'failed', hash, null, 'an error'))).rejects.toThrow(
        /check constraint/,
      );
      await expect(admin.query(insertItem, item('r-5', 'skipped', null, null, 'an error'))).rejects.toThrow(
        /check constraint/,
      );
      const replaced = item('r-5', 'failed', null, null, 'an error').with(6, hash);
      await expect(admin.query(insertItem, replaced)).rejects.toThrow(/check constraint/);
      await expect(admin.query(insertItem, item('no-such-run', 'failed', null, null, 'e'))).rejects.toThrow(
        /foreign key/,
      );
      await admin.query(insertItem, item('r-5', 'failed', null, null, 'an error'));
      const counted = await admin.query(`SELECT count(*)::int AS n FROM ${schema}.run_items`);
      expect(counted.rows).toEqual([{ n: 1 }]);
    });
  });
});
