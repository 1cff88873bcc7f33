import { describe, expect, it } from 'vitest';
import type { ItemCommit } from '../../src/store/resume-store.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import { GroupCommit } from '../../src/workflows/group-commit.js';
import { startRun } from '../../src/workflows/run.js';

/** A failed run item `n`: the smallest ItemCommit. */
function result(n: number): ItemCommit {
  return {
    item: {
      run: 'r',
      step: 's',
      item: `i${n}`,
      status: 'failed',
      fingerprint: `f${n}`,
      error: 'x',
      tries: 1,
      updatedAt: 't',
    },
  };
}

const keys = (batch: readonly ItemCommit[]) => batch.map((commit) => commit.item.item);

describe('GroupCommit', () => {
  it('commits a group when it reaches maxItems, and the rest on flush, in order', async () => {
    const batches: string[][] = [];
    const group = new GroupCommit(async (batch) => void batches.push(keys(batch)), { maxItems: 3, windowMs: 60_000 });
    for (let n = 1; n <= 7; n += 1) await group.add(result(n));
    expect(batches).toEqual([
      ['i1', 'i2', 'i3'],
      ['i4', 'i5', 'i6'],
    ]);
    await group.flush();
    await group.flush();
    expect(batches).toEqual([['i1', 'i2', 'i3'], ['i4', 'i5', 'i6'], ['i7']]);
  });

  it('commits a lone result within the window, without a flush', async () => {
    const batches: string[][] = [];
    const group = new GroupCommit(async (batch) => void batches.push(keys(batch)), { maxItems: 1000, windowMs: 20 });
    await group.add(result(1));
    expect(batches).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(batches).toEqual([['i1']]);
  });

  it('starts a commit only after the one before it finished', async () => {
    const events: string[] = [];
    let release: () => void = () => {};
    const first = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const group = new GroupCommit(
      async (batch) => {
        calls += 1;
        events.push(`start ${keys(batch).join(',')}`);
        if (calls === 1) await first;
        events.push(`end ${keys(batch).join(',')}`);
      },
      { maxItems: 1, windowMs: 60_000 },
    );
    const one = group.add(result(1));
    const two = group.add(result(2));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(events).toEqual(['start i1']);
    release();
    await Promise.all([one, two]);
    expect(events).toEqual(['start i1', 'end i1', 'start i2', 'end i2']);
  });

  it('throws a commit the timer started that failed at the next add or flush', async () => {
    const group = new GroupCommit(
      async () => {
        throw new Error('disk full');
      },
      { maxItems: 1000, windowMs: 5 },
    );
    await group.add(result(1));
    await new Promise((resolve) => setTimeout(resolve, 40));
    await expect(group.add(result(2))).rejects.toThrow('disk full');
    await expect(group.flush()).rejects.toThrow('disk full');
  });

  it('makes a finished item durable while a slow one of the same step still runs', async () => {
    const store = openSqliteResumeStore(':memory:');
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = 0;
    const running = startRun(
      {
        name: 'slow-step',
        source: () => ['fast', 'slow'],
        steps: [
          {
            kind: 'code',
            name: 'call',
            version: '1',
            items: 'source',
            concurrency: 2,
            run: async ({ key }) => {
              started += 1;
              if (key === 'slow') await slow;
              return key;
            },
          },
        ],
      },
      { store, groupCommit: { maxItems: 1000, windowMs: 10 } },
    );
    try {
      while (started < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      await new Promise((resolve) => setTimeout(resolve, 60));
      const [run] = await store.listRuns();
      expect((await store.listRunItems(run?.id ?? '')).map((item) => [item.item, item.status])).toEqual([
        ['fast', 'done'],
      ]);
    } finally {
      release();
      expect((await running).run.state).toBe('succeeded');
      await store.close();
    }
  });
});
