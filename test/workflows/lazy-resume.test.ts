/**
 * What a resume reads: it decides what to run from fingerprints and output digests, and loads an
 * output's value only for what reads it — an item that computes, an items function or a read
 * selector; a plan reads a run's items only for the steps it must explain. Counted through a thin
 * wrapper of the real SQLite store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  DigestQuery,
  DriveStep,
  Invalidation,
  ItemCommit,
  OutputRecord,
  ResumeStore,
  RunItem,
  RunPatch,
  RunRecord,
  SpendDelta,
  StepSpend,
  StoredOutput,
} from '../../src/store/resume-store.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import type { CodeStep, ItemInput, Json, WorkflowDefinition } from '../../src/workflows/define.js';
import { DefectError } from '../../src/workflows/errors.js';
import { planResume } from '../../src/workflows/plan.js';
import { resumeRun, startRun, type WorkflowOptions } from '../../src/workflows/run.js';

/** One call to the store: the method and what it was asked. */
type Call =
  | { readonly method: 'getOutputs'; readonly fingerprints: readonly string[] }
  | { readonly method: 'getOutputRecords'; readonly fingerprints: readonly string[] }
  | { readonly method: 'outputDigests'; readonly query: DigestQuery }
  | { readonly method: 'listRunItems'; readonly step: string | undefined }
  | { readonly method: 'other'; readonly name: string };

/** The real store, each call recorded; `beforeGetOutputs` runs before a getOutputs is passed on. */
class CountingStore implements ResumeStore {
  readonly calls: Call[] = [];
  beforeGetOutputs: (fingerprints: readonly string[]) => void = () => {};
  constructor(private readonly inner: ResumeStore) {}

  of<M extends Call['method']>(method: M): Extract<Call, { method: M }>[] {
    return this.calls.filter((call): call is Extract<Call, { method: M }> => call.method === method);
  }
  createRun(run: RunRecord): Promise<void> {
    this.calls.push({ method: 'other', name: 'createRun' });
    return this.inner.createRun(run);
  }
  getRun(id: string): Promise<RunRecord | undefined> {
    this.calls.push({ method: 'other', name: 'getRun' });
    return this.inner.getRun(id);
  }
  updateRun(id: string, patch: RunPatch): Promise<void> {
    this.calls.push({ method: 'other', name: 'updateRun' });
    return this.inner.updateRun(id, patch);
  }
  listRuns(query?: { readonly workflow?: string }): Promise<RunRecord[]> {
    this.calls.push({ method: 'other', name: 'listRuns' });
    return this.inner.listRuns(query);
  }
  getOutputs(fingerprints: readonly string[]): Promise<Map<string, StoredOutput>> {
    this.calls.push({ method: 'getOutputs', fingerprints: [...fingerprints] });
    this.beforeGetOutputs(fingerprints);
    return this.inner.getOutputs(fingerprints);
  }
  getOutputRecords(fingerprints: readonly string[]): Promise<Map<string, OutputRecord>> {
    this.calls.push({ method: 'getOutputRecords', fingerprints: [...fingerprints] });
    return this.inner.getOutputRecords(fingerprints);
  }
  outputDigests(query: DigestQuery): Promise<Map<string, string>> {
    this.calls.push({ method: 'outputDigests', query });
    return this.inner.outputDigests(query);
  }
  latestOutputs(workflow: string, step: string): Promise<Map<string, StoredOutput>> {
    this.calls.push({ method: 'other', name: 'latestOutputs' });
    return this.inner.latestOutputs(workflow, step);
  }
  commitItems(commits: readonly ItemCommit[], spend?: readonly SpendDelta[]): Promise<void> {
    this.calls.push({ method: 'other', name: 'commitItems' });
    return this.inner.commitItems(commits, spend);
  }
  startDrive(run: string, steps: readonly DriveStep[], at: string): Promise<number> {
    this.calls.push({ method: 'other', name: 'startDrive' });
    return this.inner.startDrive(run, steps, at);
  }
  listSpend(runs: readonly string[]): Promise<StepSpend[]> {
    this.calls.push({ method: 'other', name: 'listSpend' });
    return this.inner.listSpend(runs);
  }
  invalidate(invalidation: Invalidation): Promise<void> {
    this.calls.push({ method: 'other', name: 'invalidate' });
    return this.inner.invalidate(invalidation);
  }
  listInvalidations(run: string): Promise<Invalidation[]> {
    this.calls.push({ method: 'other', name: 'listInvalidations' });
    return this.inner.listInvalidations(run);
  }
  listRunItems(run: string, step?: string): Promise<RunItem[]> {
    this.calls.push({ method: 'listRunItems', step });
    return this.inner.listRunItems(run, step);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'harmflow-lazy-resume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let file: string;
let files = 0;
let store: CountingStore;
beforeEach(() => {
  file = join(dir, `${++files}.db`);
  store = new CountingStore(openSqliteResumeStore(file));
});
afterEach(async () => {
  await store.close();
});

const KEYS = Array.from({ length: 10 }, (_, n) => `c${n}`);
const options = (): WorkflowOptions => ({ store, sleep: async () => {}, random: () => 0 });
const code = (step: Omit<CodeStep, 'kind' | 'version'> & { version?: string }): CodeStep => ({
  kind: 'code',
  version: '1',
  ...step,
});

/** The `n` of the output an item read from `step` (NaN when it read none). */
const nOf = (input: ItemInput, step: string): number =>
  (input.inputs[step]?.[input.key] as { n: number } | undefined)?.n ?? Number.NaN;

/**
 * Three steps over KEYS, each reading the previous one's output for the same item; `broken` items of
 * the last one fail with a defect.
 */
function chain(broken: ReadonlySet<string> = new Set()): WorkflowDefinition {
  return {
    name: 'chain',
    source: () => KEYS,
    steps: [
      code({ name: 's1', items: 'source', run: ({ key }) => ({ n: Number(key.slice(1)) }) }),
      code({
        name: 's2',
        items: 'source',
        reads: [{ step: 's1', items: 'same' }],
        run: (input) => ({ n: (nOf(input, 's1') + 1) * 10 }),
      }),
      code({
        name: 's3',
        items: 'source',
        reads: [{ step: 's2', items: 'same' }],
        run: (input) => {
          if (broken.has(input.key)) throw new DefectError(`${input.key} is broken`);
          return `${input.key}: ${nOf(input, 's2')}`;
        },
      }),
    ],
  };
}

/** Each item of a run as (step, item, status, fingerprint, digest): what it used, whenever it was done. */
async function used(run: string): Promise<string[]> {
  return (await store.listRunItems(run)).map(
    (item) =>
      `${item.step} ${item.item} ${item.status} ${item.fingerprint} ${item.status === 'done' ? item.digest : ''}`,
  );
}

/** The fingerprints of a run's done items of `step`, by item. */
async function fingerprintsOf(run: string, step: string): Promise<Map<string, string>> {
  return new Map((await store.listRunItems(run, step)).map((item) => [item.item, item.fingerprint]));
}

describe('a resume that finds everything cached', () => {
  it('reads the digests of each step, and no output value or run item', async () => {
    const first = await startRun(chain(), options());
    const before = await store.listRunItems(first.run.id);
    store.calls.length = 0;
    const again = await resumeRun(chain(), first.run.id, options());
    expect(again.run.state).toBe('succeeded');
    expect(again.steps.map((step) => [step.step, step.cached, step.computed])).toEqual([
      ['s1', 10, 0],
      ['s2', 10, 0],
      ['s3', 10, 0],
    ]);
    expect(store.of('getOutputs')).toEqual([]);
    expect(store.of('listRunItems')).toEqual([]);
    expect(store.of('outputDigests').map((call) => call.query)).toEqual(
      ['s1', 's2', 's3'].map((step) => ({ run: first.run.id, step })),
    );
    expect(await store.listRunItems(first.run.id)).toStrictEqual(before);
  });
});

describe('a resume where some items compute', () => {
  it('loads, in one call, only the outputs those items read, and leaves the reused items as they were', async () => {
    const first = await startRun(chain(new Set(['c3', 'c7'])), options());
    expect(first.run.state).toBe('failed');
    const before = await store.listRunItems(first.run.id);
    const s2 = await fingerprintsOf(first.run.id, 's2');
    store.calls.length = 0;

    const fixed = await resumeRun(chain(), first.run.id, options());
    expect(fixed.run.state).toBe('succeeded');
    expect(fixed.steps.map((step) => [step.step, step.cached, step.computed])).toEqual([
      ['s1', 10, 0],
      ['s2', 10, 0],
      ['s3', 8, 2],
    ]);
    expect(store.of('getOutputs').map((call) => call.fingerprints)).toEqual([[s2.get('c3'), s2.get('c7')]]);
    expect(store.of('listRunItems').map((call) => call.step)).toEqual(['s3']);
    expect(store.of('outputDigests').map((call) => call.query)).toEqual([
      { run: first.run.id, step: 's1' },
      { run: first.run.id, step: 's2' },
      { run: first.run.id, step: 's3' },
      {
        fingerprints: [
          (await fingerprintsOf(first.run.id, 's3')).get('c3'),
          (await fingerprintsOf(first.run.id, 's3')).get('c7'),
        ],
      },
    ]);
    const after = await store.listRunItems(first.run.id);
    const reused = (items: readonly RunItem[]) =>
      items.filter((item) => !(item.step === 's3' && ['c3', 'c7'].includes(item.item)));
    expect(reused(after)).toStrictEqual(reused(before));
    const s3 = await store.getOutputs([...(await fingerprintsOf(first.run.id, 's3')).values()]);
    expect([...s3.values()].map((output) => output.output)).toEqual(
      KEYS.map((key) => `${key}: ${(Number(key.slice(1)) + 1) * 10}`),
    );

    // What the resume used is what a new run of the fixed workflow uses.
    const fresh = await startRun(chain(), options());
    expect(await used(fresh.run.id)).toEqual(await used(first.run.id));
  });

  it('recomputes an item whose output is no longer stored, and what reads it sees the same digest', async () => {
    const first = await startRun(chain(), options());
    const pruned = (await fingerprintsOf(first.run.id, 's2')).get('c4') as string;
    deleteOutput(pruned);
    const resumed = await resumeRun(chain(), first.run.id, options());
    expect(resumed.steps.map((step) => [step.step, step.cached, step.computed])).toEqual([
      ['s1', 10, 0],
      ['s2', 9, 1],
      ['s3', 10, 0],
    ]);
    expect((await store.getOutputs([pruned])).size).toBe(1);
    expect((await store.listRunItems(first.run.id, 's2')).find((item) => item.item === 'c4')).toMatchObject({
      status: 'done',
      fingerprint: pruned,
      cached: false,
    });
  });

  it('stops resumably when an output it loads was pruned since it read the digests', async () => {
    const first = await startRun(chain(new Set(['c3'])), options());
    const pruned = (await fingerprintsOf(first.run.id, 's2')).get('c3') as string;
    store.beforeGetOutputs = () => deleteOutput(pruned);
    await expect(resumeRun(chain(), first.run.id, options())).rejects.toThrow(
      /output of step s2 item c3 is no longer stored/,
    );
    expect(await store.getRun(first.run.id)).toMatchObject({ state: 'crashed' });

    store.beforeGetOutputs = () => {};
    const resumed = await resumeRun(chain(), first.run.id, options());
    expect(resumed.run.state).toBe('succeeded');
    expect(resumed.steps.map((step) => [step.step, step.computed])).toEqual([
      ['s1', 0],
      ['s2', 1],
      ['s3', 1],
    ]);
  });
});

/** Deletes the output stored under `fingerprint`, as pruning old outputs would. */
function deleteOutput(fingerprint: string): void {
  const db = new Database(file);
  try {
    db.prepare('DELETE FROM step_outputs WHERE fingerprint = unhex(?)').run(fingerprint);
  } finally {
    db.close();
  }
}

/**
 * Groups of members: a single `groups` item, `members` listed from it by an items function that
 * swallows the view's errors, and `byGroup`, whose items read their members through a selector.
 */
function grouped(byGroupVersion = '1'): WorkflowDefinition {
  const groupsOf = (run: { output(step: string, key: string): Json }) =>
    run.output('groups', 'all') as Record<string, string[]>;
  return {
    name: 'grouped',
    steps: [
      code({ name: 'groups', items: 'single', run: () => ({ g1: ['a', 'b'], g2: ['c'] }) }),
      code({
        name: 'members',
        items: (run) => {
          try {
            return Object.values(groupsOf(run)).flat();
          } catch {
            return [];
          }
        },
        run: ({ key }) => key.toUpperCase(),
      }),
      code({
        name: 'byGroup',
        version: byGroupVersion,
        items: (run) => Object.keys(groupsOf(run)),
        reads: [{ step: 'members', items: (key, run) => groupsOf(run)[key] ?? [] }],
        run: ({ key, inputs }) => `${key}${byGroupVersion}: ${Object.values(inputs.members ?? {}).join('+')}`,
      }),
    ],
  };
}

describe('items functions and read selectors on resume', () => {
  it('see the values they ask for, loaded a step at a time, even when they catch the error that asked', async () => {
    const first = await startRun(grouped(), options());
    expect(first.steps.map((step) => [step.step, step.items])).toEqual([
      ['groups', 1],
      ['members', 3],
      ['byGroup', 2],
    ]);
    const groups = (await fingerprintsOf(first.run.id, 'groups')).get('all');
    store.calls.length = 0;
    const again = await resumeRun(grouped(), first.run.id, options());
    expect(again.steps.map((step) => [step.step, step.items, step.cached])).toEqual([
      ['groups', 1, 1],
      ['members', 3, 3],
      ['byGroup', 2, 2],
    ]);
    expect(store.of('getOutputs').map((call) => call.fingerprints)).toEqual([[groups]]);

    store.calls.length = 0;
    const bumped = await resumeRun(grouped('2'), first.run.id, options());
    expect(bumped.steps.map((step) => [step.step, step.computed])).toEqual([
      ['groups', 0],
      ['members', 0],
      ['byGroup', 2],
    ]);
    const members = await fingerprintsOf(first.run.id, 'members');
    expect(store.of('getOutputs').map((call) => call.fingerprints)).toEqual([
      [groups],
      ['a', 'b', 'c'].map((key) => members.get(key)),
    ]);
    const byGroup = await store.getOutputs([...(await fingerprintsOf(first.run.id, 'byGroup')).values()]);
    expect([...byGroup.values()].map((output) => output.output)).toEqual(['g12: A+B', 'g22: C']);
  });
});

describe('plans', () => {
  it("read a run's items only for the steps with items not done as they are now", async () => {
    const first = await startRun(chain(new Set(['c3'])), options());
    store.calls.length = 0;
    const plan = await planResume(chain(), { store, run: first.run.id });
    expect(plan.steps.map((step) => [step.step, step.cached, step.willRun.items, step.willRun.reasons])).toEqual([
      ['s1', 10, 0, {}],
      ['s2', 10, 0, {}],
      ['s3', 9, 1, { failed: 1 }],
    ]);
    expect(store.of('listRunItems').map((call) => call.step)).toEqual(['s3']);
    expect(store.of('outputDigests').map((call) => call.query)).toEqual(
      ['s1', 's2', 's3'].map((step) => ({ run: first.run.id, step })),
    );
  });

  it('list the items of an items function that catches the error the view throws for a value not loaded', async () => {
    const first = await startRun(grouped(), options());
    const plan = await planResume(grouped(), { store, run: first.run.id });
    expect(plan.steps.map((step) => [step.step, step.items, step.cached, step.willRun.items])).toEqual([
      ['groups', 1, 1, 0],
      ['members', 3, 3, 0],
      ['byGroup', 2, 2, 0],
    ]);
  });

  it('read the values of the steps an items function or a selector reads, and of the rest only the records', async () => {
    const first = await startRun(grouped(), options());
    const groups = (await fingerprintsOf(first.run.id, 'groups')).get('all');
    const members = await fingerprintsOf(first.run.id, 'members');
    const byGroup = await fingerprintsOf(first.run.id, 'byGroup');
    store.calls.length = 0;
    const plan = await planResume(grouped('2'), { store, run: first.run.id });
    expect(plan.steps.map((step) => [step.step, step.cached, step.willRun.items, step.willRun.reasons])).toEqual([
      ['groups', 1, 0, {}],
      ['members', 3, 0, {}],
      ['byGroup', 0, 2, { version: 2 }],
    ]);
    expect(plan.steps.map((step) => step.rate.secondsFrom)).toEqual(['measured', 'measured', 'measured']);
    // The value of `groups` only: both items functions and the selector read it.
    expect(store.of('getOutputs').map((call) => call.fingerprints)).toEqual([[groups]]);
    // The records looked up (the new fingerprints and the outputs they replace) and measured.
    const asked = store.of('getOutputRecords').map((call) => call.fingerprints);
    expect(asked).toHaveLength(3);
    expect(asked[0]).toEqual([groups]);
    expect(new Set(asked[1])).toEqual(new Set(members.values()));
    expect(asked[2]).toEqual(expect.arrayContaining([...byGroup.values()]));
    expect(asked[2]).toHaveLength(4);
  });
});
