/**
 * The ResumeStore conformance suite: every adapter runs it (sqlite-resume-store.test.ts,
 * postgres-resume-store.test.ts). `open` returns a new, empty store each call; the suite closes each
 * store it opens.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/core/errors.js';
import type {
  DriveStep,
  ItemCommit,
  Json,
  ResumeStore,
  RunItem,
  RunOwner,
  RunRecord,
  StepSpend,
  StoredOutput,
} from '../../src/store/resume-store.js';
import { NOTHING_SPENT } from '../../src/store/spend-sums.js';

/** An ISO timestamp `minute` minutes after 10:00 on 2025-03-01. */
export function at(minute: number): string {
  return new Date(Date.UTC(2025, 2, 1, 10, minute)).toISOString();
}

/** A fingerprint-like hash (64 lowercase hex characters), distinct for each name. */
export function fp(name: string): string {
  return Buffer.from(name).toString('hex').padEnd(64, '0');
}

/** The digest the helpers below give the output stored under `fingerprint`: a hash of its own. */
export function digestFor(fingerprint: string): string {
  return `d${fingerprint.slice(0, 63)}`;
}

/** A run with only its required fields. */
export function run(id: string, workflow = 'invoices', createdAt = at(0)): RunRecord {
  return { id, workflow, params: { month: '2025-03' }, state: 'running', createdAt, updatedAt: createdAt };
}

/** The process that drives a run, every field set. */
export const OWNER: RunOwner = { pid: 4242, host: 'build-1', startTime: '123456', since: at(0) };

/** An output with every field set, `measured` included. */
export function output(
  fingerprint: string,
  fields: { step?: string; item?: string; createdAt?: string; workflow?: string; value?: Json } = {},
): StoredOutput {
  return {
    fingerprint,
    workflow: fields.workflow ?? 'invoices',
    step: fields.step ?? 'extract',
    item: fields.item ?? 'c-1',
    digest: digestFor(fingerprint),
    output:
      fields.value !== undefined
        ? fields.value
        : { customer: fields.item ?? 'c-1', totals: { net: 120.5, tax: 24.1 }, lines: [] },
    components: { code: 'sha-abc', input: fingerprint.slice(0, 12), params: { month: '2025-03' } },
    measured: { durationMs: 1_250.5, inputTokens: 1_200, outputTokens: 340 },
    createdAt: fields.createdAt ?? at(1),
  };
}

/** A done item of `runId` that used `fingerprint`. */
export function done(runId: string, step: string, item: string, fingerprint: string, cached = false): RunItem {
  return {
    run: runId,
    step,
    item,
    status: 'done',
    fingerprint,
    digest: digestFor(fingerprint),
    cached,
    tries: cached ? 0 : 1,
    updatedAt: at(2),
  };
}

/** A failed item of `runId`. */
export function failed(runId: string, step: string, item: string, fingerprint: string): RunItem {
  return {
    run: runId,
    step,
    item,
    status: 'failed',
    fingerprint,
    error: 'output does not match the schema: totals.net: expected number',
    tries: 3,
    updatedAt: at(3),
  };
}

/** The commit of a newly computed output and the done item that used it. */
export function computed(runId: string, out: StoredOutput): ItemCommit {
  return { item: done(runId, out.step, out.item, out.fingerprint), output: out };
}

type DoneItem = Extract<RunItem, { status: 'done' }>;

const fingerprints = (map: Map<string, StoredOutput>) => [...map.values()].map((stored) => stored.fingerprint);

export function describeResumeStoreConformance(name: string, open: () => Promise<ResumeStore> | ResumeStore): void {
  describe(`ResumeStore conformance: ${name}`, () => {
    let store: ResumeStore;

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      await store.close();
    });

    describe('runs', () => {
      it('returns a run with only required fields without the optional keys', async () => {
        await store.createRun(run('r-1'));
        const read = await store.getRun('r-1');
        expect(read).toStrictEqual(run('r-1'));
        expect(Object.keys(read ?? {}).sort()).toEqual(Object.keys(run('r-1')).sort());
      });

      it('returns a run with a message, its workflow file and nested parameters as it was created', async () => {
        const full: RunRecord = {
          ...run('r-1'),
          params: {
            month: '2025-03',
            limit: 50,
            ratio: 0.25,
            dry: false,
            none: null,
            tags: ['a', 'é "q"'],
            nested: {},
          },
          state: 'crashed',
          message: 'crashed at fact-check item c-1412: overloaded (retry budget spent)',
          module: '/work/statements/first.mjs',
        };
        await store.createRun(full);
        expect(await store.getRun('r-1')).toStrictEqual(full);
      });

      it('returns a run with the owner that drives it as it was created', async () => {
        const owned: RunRecord = { ...run('r-1'), owner: OWNER };
        await store.createRun(owned);
        expect(await store.getRun('r-1')).toStrictEqual(owned);
        expect(await store.listRuns()).toStrictEqual([owned]);
      });

      it('returns undefined for an unknown run', async () => {
        await store.createRun(run('r-1'));
        expect(await store.getRun('r-2')).toBeUndefined();
      });

      it('rejects a run whose id exists and keeps the first', async () => {
        await store.createRun(run('r-1'));
        await expect(store.createRun(run('r-1', 'other'))).rejects.toThrow();
        expect(await store.getRun('r-1')).toStrictEqual(run('r-1'));
      });
    });

    describe('updateRun', () => {
      it('sets the present keys and keeps the absent ones, on that run only', async () => {
        await store.createRun(run('r-1'));
        await store.createRun(run('r-2'));
        await store.updateRun('r-1', { state: 'crashed', message: 'overloaded', updatedAt: at(5) });
        await store.updateRun('r-1', { updatedAt: at(6) });
        expect(await store.getRun('r-1')).toStrictEqual({
          ...run('r-1'),
          state: 'crashed',
          message: 'overloaded',
          updatedAt: at(6),
        });
        expect(await store.getRun('r-2')).toStrictEqual(run('r-2'));
      });

      it('removes the message patched with null', async () => {
        await store.createRun({ ...run('r-1'), state: 'crashed', message: 'overloaded' });
        await store.updateRun('r-1', { state: 'succeeded', message: null, updatedAt: at(9) });
        const read = await store.getRun('r-1');
        expect(read).toStrictEqual({ ...run('r-1'), state: 'succeeded', updatedAt: at(9) });
        expect(read).not.toHaveProperty('message');
      });

      it('sets the owner patched with one, keeps it when absent, and removes it patched with null', async () => {
        await store.createRun({ ...run('r-1'), state: 'crashed', message: 'overloaded' });
        const taken = { ...OWNER, pid: 4243, since: at(7) };
        await store.updateRun('r-1', { state: 'running', message: null, owner: taken, updatedAt: at(7) });
        expect(await store.getRun('r-1')).toStrictEqual({ ...run('r-1'), owner: taken, updatedAt: at(7) });
        await store.updateRun('r-1', { updatedAt: at(8) });
        expect((await store.getRun('r-1'))?.owner).toStrictEqual(taken);
        await store.updateRun('r-1', { state: 'succeeded', owner: null, updatedAt: at(9) });
        const read = await store.getRun('r-1');
        expect(read).toStrictEqual({ ...run('r-1'), state: 'succeeded', updatedAt: at(9) });
        expect(read).not.toHaveProperty('owner');
      });

      it('rejects with NotFoundError for an unknown run, and creates none', async () => {
        await store.createRun(run('r-1'));
        await expect(store.updateRun('r-2', { state: 'failed', updatedAt: at(1) })).rejects.toBeInstanceOf(
          NotFoundError,
        );
        expect(await store.getRun('r-2')).toBeUndefined();
      });
    });

    describe('listRuns', () => {
      beforeEach(async () => {
        await store.createRun(run('r-b', 'invoices', at(10)));
        await store.createRun(run('r-a', 'invoices', at(10)));
        await store.createRun(run('r-c', 'reports', at(20)));
        await store.createRun(run('r-d', 'invoices', at(5)));
      });

      const ids = (records: readonly RunRecord[]) => records.map((record) => record.id);

      it('lists every run newest first, ties by id, newest first', async () => {
        expect(ids(await store.listRuns())).toEqual(['r-c', 'r-b', 'r-a', 'r-d']);
        expect(ids(await store.listRuns({}))).toEqual(['r-c', 'r-b', 'r-a', 'r-d']);
      });

      it('lists the runs of one workflow, whole records', async () => {
        expect(ids(await store.listRuns({ workflow: 'invoices' }))).toEqual(['r-b', 'r-a', 'r-d']);
        expect(await store.listRuns({ workflow: 'reports' })).toStrictEqual([run('r-c', 'reports', at(20))]);
        expect(await store.listRuns({ workflow: 'none' })).toEqual([]);
      });
    });

    describe('commitItems and getOutputs', () => {
      beforeEach(async () => {
        await store.createRun(run('r-1'));
      });

      it('returns each output committed, exact, keyed by fingerprint', async () => {
        const full = output(fp('a'), { item: 'c-1' });
        const bare: StoredOutput = { ...output(fp('b'), { item: 'c-2' }), measured: { durationMs: 0 } };
        await store.commitItems([computed('r-1', full), computed('r-1', bare)]);
        const read = await store.getOutputs([fp('a'), fp('b')]);
        expect(read).toStrictEqual(
          new Map([
            [fp('a'), full],
            [fp('b'), bare],
          ]),
        );
        expect(Object.keys(read.get(fp('b'))?.measured ?? {})).toEqual(['durationMs']);
      });

      it('gives with getOutputRecords the same outputs, less their values, leaving out unknown and non-hex fingerprints', async () => {
        const full = output(fp('a'), { item: 'c-1' });
        const bare: StoredOutput = { ...output(fp('b'), { item: 'c-2' }), measured: { durationMs: 0 } };
        await store.commitItems([computed('r-1', full), computed('r-1', bare)]);
        const { output: _a, ...fullRecord } = full;
        const { output: _b, ...bareRecord } = bare;
        expect(await store.getOutputRecords([fp('b'), fp('x'), 'not-hex', fp('a'), fp('b')])).toStrictEqual(
          new Map([
            [fp('b'), bareRecord],
            [fp('a'), fullRecord],
          ]),
        );
        expect((await store.getOutputRecords([])).size).toBe(0);
      });

      it('keeps any JSON value as an output: scalars, null, nesting, unicode, escapes', async () => {
        const values: Json[] = [
          null,
          0,
          -1.5e-7,
          true,
          'plain',
          '',
          [],
          {},
          [1, [2, [3, { deep: [null] }]]],
          { 'key with "quotes"': 'line\nbreak\ttab \\ backslash', emoji: '🧾', accents: 'Zürich, Québec' },
        ];
        const outs = values.map((value, index) => output(fp(`v${index}`), { item: `c-${index}`, value }));
        await store.commitItems(outs.map((out) => computed('r-1', out)));
        const read = await store.getOutputs(outs.map((out) => out.fingerprint));
        expect(outs.map((out) => read.get(out.fingerprint)?.output)).toStrictEqual(values);
      });

      it('leaves unknown fingerprints out, and reads an empty or repeating list', async () => {
        await store.commitItems([computed('r-1', output(fp('a')))]);
        expect(fingerprints(await store.getOutputs([fp('x'), fp('a'), fp('y'), fp('a')]))).toEqual([fp('a')]);
        expect((await store.getOutputs([])).size).toBe(0);
        expect((await store.getOutputs([fp('x')])).size).toBe(0);
      });

      it('finds nothing under a fingerprint that is not a SHA-256 in hex', async () => {
        await store.commitItems([computed('r-1', output(fp('a')))]);
        expect(fingerprints(await store.getOutputs(['not-hex', fp('a').slice(0, 62), fp('a')]))).toEqual([fp('a')]);
      });

      it('refuses a commit whose fingerprint, digest or replaced fingerprint is not a SHA-256 in hex, and commits nothing', async () => {
        const good = computed('r-1', output(fp('a'), { item: 'c-1' }));
        const bad: ItemCommit[] = [
          computed('r-1', output('f-1', { item: 'c-2' })),
          computed('r-1', { ...output(fp('b'), { item: 'c-2' }), digest: 'd-1' }),
          { item: failed('r-1', 'extract', 'c-2', `${fp('b')}00`) },
          { item: { ...(done('r-1', 'extract', 'c-2', fp('a'), true) as DoneItem), digest: fp('a').slice(2) } },
          { item: { ...(done('r-1', 'extract', 'c-2', fp('a'), true) as DoneItem), replaced: 'an old one' } },
        ];
        for (const commit of bad) await expect(store.commitItems([good, commit])).rejects.toThrow();
        expect((await store.getOutputs([fp('a'), fp('b')])).size).toBe(0);
        expect(await store.listRunItems('r-1')).toEqual([]);
      });

      it("stores a commit's texts and reads back the values they stand for", async () => {
        const out = output(fp('a'));
        await store.commitItems([
          {
            ...computed('r-1', out),
            texts: {
              output: '{"customer":"c-1","lines":[],"totals":{"net":120.5,"tax":24.1}}',
              components: '{"code":"sha-abc","input":"610000000000","params":{"month":"2025-03"}}',
            },
          },
        ]);
        expect((await store.getOutputs([fp('a')])).get(fp('a'))).toStrictEqual(out);
        expect((await store.latestOutputs('invoices', 'extract')).get('c-1')).toStrictEqual(out);
      });

      it('reads 20,000 fingerprints in one call', async () => {
        const outs = Array.from({ length: 1_000 }, (_, index) => output(fp(`n${index}`), { item: `c-${index}` }));
        await store.commitItems(outs.map((out) => computed('r-1', out)));
        const asked = Array.from({ length: 20_000 }, (_, index) => fp(`n${index}`));
        const read = await store.getOutputs(asked);
        expect(read.size).toBe(1_000);
        expect(read.get(fp('n999'))).toStrictEqual(outs[999]);
        expect(read.has(fp('n1000'))).toBe(false);
      });

      it('never overwrites an output: a second one under the same fingerprint keeps the first', async () => {
        const first = output(fp('a'), { value: { net: 1 }, createdAt: at(1) });
        const second = output(fp('a'), { value: { net: 2 }, createdAt: at(7) });
        await store.createRun(run('r-2'));
        await store.commitItems([computed('r-1', first)]);
        await store.commitItems([
          { item: { ...done('r-2', 'extract', 'c-1', fp('a')), updatedAt: at(8) }, output: second },
        ]);
        expect((await store.getOutputs([fp('a')])).get(fp('a'))).toStrictEqual(first);
        expect(await store.listRunItems('r-2')).toStrictEqual([
          { ...done('r-2', 'extract', 'c-1', fp('a')), updatedAt: at(8) },
        ]);
      });

      it('commits an item that reuses a stored output without storing anything else', async () => {
        await store.commitItems([computed('r-1', output(fp('a')))]);
        await store.createRun(run('r-2'));
        await store.commitItems([{ item: done('r-2', 'extract', 'c-1', fp('a'), true) }]);
        expect(await store.listRunItems('r-2')).toStrictEqual([done('r-2', 'extract', 'c-1', fp('a'), true)]);
        expect(fingerprints(await store.latestOutputs('invoices', 'extract'))).toEqual([fp('a')]);
      });

      it('commits the items of several runs in one call, and an empty list', async () => {
        await store.createRun(run('r-2'));
        await store.commitItems([]);
        await store.commitItems([
          computed('r-1', output(fp('a'))),
          { item: done('r-2', 'extract', 'c-1', fp('a'), true) },
        ]);
        expect(await store.listRunItems('r-1')).toStrictEqual([done('r-1', 'extract', 'c-1', fp('a'))]);
        expect(await store.listRunItems('r-2')).toStrictEqual([done('r-2', 'extract', 'c-1', fp('a'), true)]);
      });

      it('rejects with NotFoundError an item of an unknown run among valid ones, and commits nothing', async () => {
        const commits: ItemCommit[] = [
          computed('r-1', output(fp('a'), { item: 'c-1' })),
          computed('r-1', output(fp('b'), { item: 'c-2' })),
          computed('no-such-run', output(fp('c'), { item: 'c-3' })),
          computed('r-1', output(fp('d'), { item: 'c-4' })),
        ];
        await expect(store.commitItems(commits)).rejects.toBeInstanceOf(NotFoundError);
        expect((await store.getOutputs([fp('a'), fp('b'), fp('c'), fp('d')])).size).toBe(0);
        expect(await store.listRunItems('r-1')).toEqual([]);
        expect(await store.listRunItems('no-such-run')).toEqual([]);
        expect(await store.getRun('no-such-run')).toBeUndefined();
      });

      it('keeps everything of calls that overlap', async () => {
        const outs = Array.from({ length: 40 }, (_, index) => output(fp(`o${index}`), { item: `c-${index}` }));
        await Promise.all([
          ...outs.map((out) => store.commitItems([computed('r-1', out)])),
          store.getOutputs(outs.map((out) => out.fingerprint)),
          store.listRunItems('r-1'),
        ]);
        expect((await store.getOutputs(outs.map((out) => out.fingerprint))).size).toBe(40);
        expect(await store.listRunItems('r-1')).toHaveLength(40);
      });
    });

    describe('outputDigests', () => {
      beforeEach(async () => {
        await store.createRun(run('r-1'));
        await store.createRun(run('r-2'));
      });

      const digests = (entries: readonly string[]) =>
        new Map(entries.map((fingerprint) => [fingerprint, digestFor(fingerprint)]));

      it('returns the digests of the stored outputs among fingerprints, keyed by fingerprint', async () => {
        await store.commitItems([
          computed('r-1', output(fp('a'), { item: 'c-1' })),
          computed('r-1', output(fp('b'), { item: 'c-2' })),
        ]);
        expect(await store.outputDigests({ fingerprints: [fp('b'), fp('x'), fp('a'), fp('b')] })).toStrictEqual(
          digests([fp('b'), fp('a')]),
        );
        expect((await store.outputDigests({ fingerprints: [] })).size).toBe(0);
        expect(await store.outputDigests({ fingerprints: ['not-hex', fp('a').slice(0, 62), fp('a')] })).toStrictEqual(
          digests([fp('a')]),
        );
      });

      it("returns the digests of the outputs a run's done items use, in (step, item) order; of one step when asked", async () => {
        await store.commitItems([
          computed('r-1', output(fp('r2'), { step: 'review', item: 'c-2' })),
          computed('r-1', output(fp('e10'), { item: 'c-10' })),
          computed('r-1', output(fp('e2'), { item: 'c-2' })),
          computed('r-1', output(fp('e1'), { item: 'c-1' })),
          computed('r-2', output(fp('other'), { item: 'c-3' })),
          { item: failed('r-1', 'extract', 'c-3', fp('e3')) },
        ]);
        const read = await store.outputDigests({ run: 'r-1' });
        expect(read).toStrictEqual(digests([fp('e1'), fp('e10'), fp('e2'), fp('r2')]));
        expect([...read.keys()]).toEqual([fp('e1'), fp('e10'), fp('e2'), fp('r2')]);
        expect([...(await store.outputDigests({ run: 'r-1', step: 'extract' })).keys()]).toEqual([
          fp('e1'),
          fp('e10'),
          fp('e2'),
        ]);
        expect((await store.outputDigests({ run: 'r-1', step: 'publish' })).size).toBe(0);
        expect((await store.outputDigests({ run: 'no-such-run' })).size).toBe(0);
      });

      it("leaves out a run's done item whose output is not stored, and gives the stored output's digest", async () => {
        await store.commitItems([computed('r-2', output(fp('a'), { item: 'c-1' }))]);
        const recorded = { ...(done('r-1', 'extract', 'c-1', fp('a'), true) as DoneItem), digest: digestFor(fp('z')) };
        await store.commitItems([{ item: recorded }, { item: done('r-1', 'extract', 'c-2', fp('pruned'), true) }]);
        expect(await store.outputDigests({ run: 'r-1', step: 'extract' })).toStrictEqual(digests([fp('a')]));
      });

      it('reads 20,000 fingerprints in one call', async () => {
        const outs = Array.from({ length: 1_000 }, (_, index) => output(fp(`n${index}`), { item: `c-${index}` }));
        await store.commitItems(outs.map((out) => computed('r-1', out)));
        const read = await store.outputDigests({
          fingerprints: Array.from({ length: 20_000 }, (_, index) => fp(`n${index}`)),
        });
        expect(read).toStrictEqual(digests(outs.map((out) => out.fingerprint)));
        expect((await store.outputDigests({ run: 'r-1' })).size).toBe(1_000);
      });
    });

    describe('run items', () => {
      beforeEach(async () => {
        await store.createRun(run('r-1'));
        await store.createRun(run('r-2'));
      });

      it('returns done and failed items exact: a done item has no error, a failed one no digest or cached', async () => {
        await store.commitItems([
          computed('r-1', output(fp('a'), { item: 'c-1' })),
          { item: failed('r-1', 'extract', 'c-2', fp('b')) },
        ]);
        const [doneRead, failedRead] = await store.listRunItems('r-1');
        expect(doneRead).toStrictEqual(done('r-1', 'extract', 'c-1', fp('a')));
        expect(failedRead).toStrictEqual(failed('r-1', 'extract', 'c-2', fp('b')));
        expect(Object.keys(doneRead ?? {}).sort()).toEqual(Object.keys(done('r-1', 'x', 'y', 'z')).sort());
        expect(Object.keys(failedRead ?? {}).sort()).toEqual(Object.keys(failed('r-1', 'x', 'y', 'z')).sort());
      });

      it('upserts by (run, step, item): a later commit replaces the earlier status', async () => {
        await store.commitItems([{ item: failed('r-1', 'extract', 'c-1', fp('a')) }]);
        await store.commitItems([computed('r-1', output(fp('b')))]);
        expect(await store.listRunItems('r-1')).toStrictEqual([done('r-1', 'extract', 'c-1', fp('b'))]);
        const again = { ...failed('r-1', 'extract', 'c-1', fp('c')), tries: 4, updatedAt: at(30) };
        await store.commitItems([{ item: again }]);
        expect(await store.listRunItems('r-1')).toStrictEqual([again]);
        expect(await store.listRunItems('r-2')).toEqual([]);
      });

      it('keeps a done item’s replaced fingerprint, and drops it when the item fails or is done without one', async () => {
        const redrafted: RunItem = { ...(done('r-1', 'narrative', 'c-1', fp('b')) as DoneItem), replaced: fp('a') };
        await store.commitItems([{ item: redrafted }]);
        expect(await store.listRunItems('r-1')).toStrictEqual([redrafted]);
        await store.commitItems([{ item: failed('r-1', 'narrative', 'c-1', fp('c')) }]);
        expect(await store.listRunItems('r-1')).toStrictEqual([failed('r-1', 'narrative', 'c-1', fp('c'))]);
        await store.commitItems([{ item: done('r-1', 'narrative', 'c-1', fp('d')) }]);
        expect(await store.listRunItems('r-1')).toStrictEqual([done('r-1', 'narrative', 'c-1', fp('d'))]);
      });

      it('keeps the last of two commits of one item in the same call', async () => {
        await store.commitItems([{ item: failed('r-1', 'extract', 'c-1', fp('a')) }, computed('r-1', output(fp('b')))]);
        expect(await store.listRunItems('r-1')).toStrictEqual([done('r-1', 'extract', 'c-1', fp('b'))]);
      });

      it('lists a run’s items in (step, item) order whatever the commit order; one step when asked', async () => {
        const keys: [string, string][] = [
          ['review', 'c-2'],
          ['extract', 'c-2'],
          ['review', 'c-10'],
          ['extract', 'c-1'],
          ['review', 'c-1'],
        ];
        await store.commitItems(keys.map(([step, item]) => ({ item: failed('r-1', step, item, fp(step + item)) })));
        await store.commitItems([{ item: failed('r-2', 'extract', 'c-0', fp('other')) }]);
        const order = (items: readonly RunItem[]) => items.map((item) => `${item.step}/${item.item}`);
        expect(order(await store.listRunItems('r-1'))).toEqual([
          'extract/c-1',
          'extract/c-2',
          'review/c-1',
          'review/c-10',
          'review/c-2',
        ]);
        expect(order(await store.listRunItems('r-1', 'review'))).toEqual(['review/c-1', 'review/c-10', 'review/c-2']);
        expect(await store.listRunItems('r-1', 'publish')).toEqual([]);
        expect(await store.listRunItems('no-such-run')).toEqual([]);
      });
    });

    describe('latestOutputs', () => {
      beforeEach(async () => {
        await store.createRun(run('r-1'));
      });

      it('returns the newest output of each item of the step, keyed by item', async () => {
        const newest1 = output(fp('c1-new'), { item: 'c-1', createdAt: at(30) });
        const newest2 = output(fp('c2-only'), { item: 'c-2', createdAt: at(5) });
        const outs = [
          output(fp('c1-old'), { item: 'c-1', createdAt: at(10) }),
          newest1,
          output(fp('c1-mid'), { item: 'c-1', createdAt: at(20) }),
          newest2,
          output(fp('other-step'), { step: 'review', item: 'c-1', createdAt: at(50) }),
          output(fp('other-wf'), { workflow: 'reports', item: 'c-1', createdAt: at(50) }),
        ];
        for (const out of outs) await store.commitItems([computed('r-1', out)]);
        expect(await store.latestOutputs('invoices', 'extract')).toStrictEqual(
          new Map([
            ['c-1', newest1],
            ['c-2', newest2],
          ]),
        );
        expect(fingerprints(await store.latestOutputs('invoices', 'review'))).toEqual([fp('other-step')]);
        expect(fingerprints(await store.latestOutputs('reports', 'extract'))).toEqual([fp('other-wf')]);
        expect((await store.latestOutputs('invoices', 'publish')).size).toBe(0);
      });

      it('of two outputs created at the same instant, returns the one with the greater fingerprint', async () => {
        const low = output(fp('a-low'), { createdAt: at(10) });
        const high = output(fp('b-high'), { createdAt: at(10) });
        await store.commitItems([computed('r-1', high)]);
        await store.commitItems([computed('r-1', low)]);
        expect((await store.latestOutputs('invoices', 'extract')).get('c-1')).toStrictEqual(high);
      });
    });

    describe('invalidations', () => {
      it("lists a run's invalidations oldest first, and only that run's", async () => {
        await store.createRun(run('r-1'));
        await store.createRun(run('r-2', 'invoices', at(1)));
        await store.invalidate({ run: 'r-1', step: 'extract', reason: 'late', at: at(9) });
        await store.invalidate({ run: 'r-1', step: 'label', reason: 'the model misread refunds', at: at(5) });
        await store.invalidate({ run: 'r-2', step: 'extract', reason: 'other run', at: at(6) });
        expect(await store.listInvalidations('r-1')).toStrictEqual([
          { run: 'r-1', step: 'label', reason: 'the model misread refunds', at: at(5) },
          { run: 'r-1', step: 'extract', reason: 'late', at: at(9) },
        ]);
        expect(await store.listInvalidations('r-9')).toEqual([]);
      });

      it('rejects with NotFoundError for an unknown run', async () => {
        await expect(store.invalidate({ run: 'r-9', step: 'extract', reason: 'x', at: at(1) })).rejects.toThrow(
          NotFoundError,
        );
      });
    });

    describe('spend', () => {
      const PLANNED = { items: 3, inputTokens: 15_000, outputTokens: 3_000.5, usd: 0.09, hours: 0.25 };
      const STEPS: readonly DriveStep[] = [
        {
          step: 'extract',
          kind: 'model',
          model: 'haiku',
          price: { inputPerMTok: 3, outputPerMTok: 15 },
          planned: PLANNED,
        },
        {
          step: 'label',
          kind: 'model',
          model: 'unpriced',
          planned: { items: 0, inputTokens: null, outputTokens: null, usd: null, hours: 0 },
        },
        { step: 'send', kind: 'effect' },
      ];
      /** The row startDrive gives `step`, the `position`-th of drive `drive` of `runId`, nothing spent. */
      const started = (
        runId: string,
        drive: number,
        position: number,
        step: DriveStep,
        startedAt: string,
      ): StepSpend => ({
        run: runId,
        drive,
        step: step.step,
        position,
        startedAt,
        kind: step.kind,
        ...(step.model !== undefined && { model: step.model }),
        ...(step.price !== undefined && { price: step.price }),
        ...NOTHING_SPENT,
        ...(step.planned !== undefined && { planned: step.planned }),
      });

      it('numbers the drives of each run from 1 and lists their steps as started, nothing spent', async () => {
        await store.createRun(run('r-1'));
        await store.createRun(run('r-2'));
        expect(await store.listSpend(['r-1'])).toEqual([]);
        expect(await store.startDrive('r-1', STEPS, at(1))).toBe(1);
        expect(await store.startDrive('r-2', [{ step: 'extract', kind: 'code' }], at(2))).toBe(1);
        expect(await store.startDrive('r-1', [STEPS[2] as DriveStep, STEPS[0] as DriveStep], at(3))).toBe(2);
        expect(await store.listSpend(['r-1', 'r-2', 'r-9'])).toStrictEqual([
          started('r-1', 1, 0, STEPS[0] as DriveStep, at(1)),
          started('r-1', 1, 1, STEPS[1] as DriveStep, at(1)),
          started('r-1', 1, 2, STEPS[2] as DriveStep, at(1)),
          started('r-1', 2, 0, STEPS[2] as DriveStep, at(3)),
          started('r-1', 2, 1, STEPS[0] as DriveStep, at(3)),
          started('r-2', 1, 0, { step: 'extract', kind: 'code' }, at(2)),
        ]);
        expect(await store.listSpend([])).toEqual([]);
      });

      it('adds the spend of each commit to its drive step, in the transaction of the items it counts', async () => {
        await store.createRun(run('r-1'));
        await store.startDrive('r-1', STEPS, at(1));
        await store.startDrive('r-1', STEPS, at(2));
        const extract = { run: 'r-1', drive: 1, step: 'extract' };
        await store.commitItems(
          [computed('r-1', output(fp('a'), { item: 'c-1' })), { item: failed('r-1', 'extract', 'c-2', fp('b')) }],
          [
            {
              ...extract,
              items: 1,
              tries: 3,
              itemMs: 1_500.5,
              inputTokens: 1_200,
              outputTokens: 340,
              unreportedTokens: 2,
            },
            { ...extract, items: 1, failed: 1, tries: 1, itemMs: 800, inputTokens: 1_000, outputTokens: 90 },
          ],
        );
        // Spend without items (an item out of tries, a step's wall-clock time), to another drive too.
        await store.commitItems(
          [],
          [
            { ...extract, items: 1, tries: 5, itemMs: 10, unreportedItems: 1, wallMs: 60_000 },
            { run: 'r-1', drive: 2, step: 'send', items: 2, tries: 2, itemMs: 4 },
          ],
        );
        const [first, second, third, fourth] = await store.listSpend(['r-1']);
        expect(first).toStrictEqual({
          ...started('r-1', 1, 0, STEPS[0] as DriveStep, at(1)),
          items: 3,
          failed: 1,
          tries: 9,
          itemMs: 2_310.5,
          inputTokens: 2_200,
          outputTokens: 430,
          unreportedTokens: 2,
          unreportedItems: 1,
          wallMs: 60_000,
        });
        expect(second).toStrictEqual(started('r-1', 1, 1, STEPS[1] as DriveStep, at(1)));
        expect(third).toStrictEqual(started('r-1', 1, 2, STEPS[2] as DriveStep, at(1)));
        expect(fourth).toStrictEqual(started('r-1', 2, 0, STEPS[0] as DriveStep, at(2)));
        expect((await store.listSpend(['r-1']))[5]).toStrictEqual({
          ...started('r-1', 2, 2, STEPS[2] as DriveStep, at(2)),
          items: 2,
          tries: 2,
          itemMs: 4,
        });
        expect(await store.listRunItems('r-1')).toHaveLength(2);
      });

      it('commits nothing, items included, when spend names a drive step that was not started', async () => {
        await store.createRun(run('r-1'));
        await store.startDrive('r-1', STEPS, at(1));
        const before = await store.listSpend(['r-1']);
        for (const wrong of [
          { run: 'r-1', drive: 2, step: 'extract' },
          { run: 'r-1', drive: 1, step: 'nowhere' },
          { run: 'r-9', drive: 1, step: 'extract' },
        ]) {
          await expect(
            store.commitItems(
              [computed('r-1', output(fp('a')))],
              [
                { run: 'r-1', drive: 1, step: 'extract', items: 1, tries: 1 },
                { ...wrong, items: 1, tries: 1 },
              ],
            ),
          ).rejects.toThrow(NotFoundError);
        }
        expect(await store.listRunItems('r-1')).toEqual([]);
        expect((await store.getOutputs([fp('a')])).size).toBe(0);
        expect(await store.listSpend(['r-1'])).toStrictEqual(before);
      });

      it('refuses a figure that is not a number of at least 0, and a drive of an unknown run', async () => {
        await store.createRun(run('r-1'));
        await store.startDrive('r-1', STEPS, at(1));
        const extract = { run: 'r-1', drive: 1, step: 'extract' };
        await expect(store.commitItems([], [{ ...extract, tries: -1 }])).rejects.toThrow(/tries/);
        await expect(store.commitItems([], [{ ...extract, itemMs: Number.NaN }])).rejects.toThrow(/itemMs/);
        await expect(store.startDrive('r-9', STEPS, at(1))).rejects.toThrow(NotFoundError);
        expect((await store.listSpend(['r-1']))[0]).toStrictEqual(started('r-1', 1, 0, STEPS[0] as DriveStep, at(1)));
      });
    });

    describe('close', () => {
      it('is idempotent, and calls after it reject', async () => {
        await store.createRun(run('r-1'));
        await store.close();
        await store.close();
        await expect(store.getRun('r-1')).rejects.toThrow();
        await expect(store.createRun(run('r-2'))).rejects.toThrow();
        await expect(store.commitItems([computed('r-1', output(fp('a')))])).rejects.toThrow();
        await expect(store.getOutputs([fp('a')])).rejects.toThrow();
        await expect(store.outputDigests({ fingerprints: [fp('a')] })).rejects.toThrow();
        await expect(store.outputDigests({ run: 'r-1' })).rejects.toThrow();
        await expect(store.latestOutputs('invoices', 'extract')).rejects.toThrow();
        await expect(store.listRunItems('r-1')).rejects.toThrow();
        await expect(store.startDrive('r-1', [{ step: 'extract', kind: 'code' }], at(1))).rejects.toThrow();
        await expect(store.listSpend(['r-1'])).rejects.toThrow();
      });
    });
  });
}
