import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClusterExecution } from '../../src/cluster/create-records.js';
import { materializeWorkspace } from '../../src/cluster/materialize.js';
import { NotFoundError, RepositoryError } from '../../src/core/errors.js';
import type { ExecutionRecord, Store } from '../../src/store/store.js';
import { checkpointRef, pushCheckpoint } from '../../src/workspace/checkpoint.js';
import { ensureMirror } from '../../src/workspace/mirror.js';
import { commitAll, sh, write } from '../workspace/helpers.js';
import { clusterTask, describeEachStore, type Machine, newMachine, newRemote } from './workspace-fixture.js';

/** Status with both columns, untracked files listed one by one. */
function status(worktree: string): string {
  return sh(worktree, 'status', '--porcelain=v1', '--untracked-files=all');
}

describeEachStore((openStore) => {
  /** A remote, a queued execution of it in a new store, and two machines. */
  async function cluster() {
    const { remote, main } = await newRemote();
    const store = await openStore();
    const record = await createClusterExecution(clusterTask(remote), store);
    return { remote, main, store, record, a: await newMachine(), b: await newMachine() };
  }

  const on = (machine: Machine, record: ExecutionRecord, store: Store) =>
    materializeWorkspace({ record, store, ...machine });

  describe('materializeWorkspace', () => {
    it('makes a new worktree at the base on the first worker, and records its paths', async () => {
      const { main, store, record, a } = await cluster();

      const made = await on(a, record, store);

      expect(made).toStrictEqual({
        worktree: a.home.worktree(record.id),
        runDir: a.home.runDir(record.id),
        restored: 'base',
      });
      expect(sh(made.worktree, 'rev-parse', 'HEAD')).toBe(main);
      expect(sh(made.worktree, 'symbolic-ref', 'HEAD')).toBe(`refs/heads/${record.branch}`);
      expect(statSync(made.runDir).isDirectory()).toBe(true);
      expect(await store.getExecution(record.id)).toStrictEqual({
        ...record,
        worktree: made.worktree,
        runDir: made.runDir,
      });
    });

    it('returns the worktree already on this machine as it is', async () => {
      const { store, record, a } = await cluster();
      const first = await on(a, record, store);
      await write(first.worktree, 'wip.txt', 'work in progress\n');

      const again = await on(a, (await store.getExecution(record.id)) ?? record, store);

      expect(again).toStrictEqual({ worktree: first.worktree, runDir: first.runDir, restored: 'local' });
      expect(readFileSync(join(again.worktree, 'wip.txt'), 'utf8')).toBe('work in progress\n');
    });

    it("restores worker A's checkpoint on worker B, commits and uncommitted work, and the record follows", async () => {
      const { remote, store, record, a, b } = await cluster();
      const onA = await on(a, record, store);
      await write(onA.worktree, 'committed.txt', 'committed\n');
      const head = commitAll(onA.worktree, 'agent commit');
      await write(onA.worktree, 'a.txt', 'a changed\n');
      await write(onA.worktree, 'staged.txt', 'staged\n');
      sh(onA.worktree, 'add', 'staged.txt');
      await write(onA.worktree, 'untracked.txt', 'untracked\n');
      const before = status(onA.worktree);
      const pushed = await pushCheckpoint({ worktree: onA.worktree, remote: 'origin', execution: record.id });
      expect(pushed.pushed).toBe(true);

      const onB = await on(b, (await store.getExecution(record.id)) ?? record, store);

      expect(onB).toStrictEqual({
        worktree: b.home.worktree(record.id),
        runDir: b.home.runDir(record.id),
        restored: 'checkpoint',
        files: ['a.txt', 'staged.txt', 'untracked.txt'],
      });
      expect(onB.worktree).not.toBe(onA.worktree);
      expect(sh(onB.worktree, 'rev-parse', 'HEAD')).toBe(head);
      expect(sh(onB.worktree, 'symbolic-ref', 'HEAD')).toBe(`refs/heads/${record.branch}`);
      expect(status(onB.worktree)).toBe(before);
      expect(readFileSync(join(onB.worktree, 'a.txt'), 'utf8')).toBe('a changed\n');
      expect(await store.getExecution(record.id)).toMatchObject({ worktree: onB.worktree, runDir: onB.runDir });
      expect(sh(remote, 'for-each-ref', '--format=%(objectname)', checkpointRef(record.id))).toBe(pushed.sha);
    });

    it("refuses A's worktree once B has carried the execution on, and touches nothing", async () => {
      const { store, record, a, b } = await cluster();
      const onA = await on(a, record, store);
      await write(onA.worktree, 'a-only.txt', 'A\n');
      await pushCheckpoint({ worktree: onA.worktree, remote: 'origin', execution: record.id });
      // A's own checkpoint is what its worktree already holds.
      expect((await on(a, record, store)).restored).toBe('local');
      const onB = await on(b, record, store);
      await write(onB.worktree, 'b-only.txt', 'B\n');
      await pushCheckpoint({ worktree: onB.worktree, remote: 'origin', execution: record.id });

      await expect(on(a, record, store)).rejects.toThrow(
        new RepositoryError(
          `the worktree ${onA.worktree} is older than the checkpoint on the remote (another worker carried the execution on): move it away to restore the checkpoint`,
        ),
      );
      expect(existsSync(join(onA.worktree, 'a-only.txt'))).toBe(true);
      expect(await store.getExecution(record.id)).toMatchObject({ worktree: onB.worktree });
    });

    it('uses the branch an earlier attempt pushed when there is no checkpoint', async () => {
      const { remote, store, record, a, b } = await cluster();
      const onA = await on(a, record, store);
      await write(onA.worktree, 'pushed.txt', 'pushed\n');
      const head = commitAll(onA.worktree, 'pushed work');
      sh(onA.worktree, 'push', '-q', 'origin', record.branch);
      expect(sh(remote, 'rev-parse', `refs/heads/${record.branch}`)).toBe(head);

      const onB = await on(b, record, store);

      expect(onB).toStrictEqual({
        worktree: b.home.worktree(record.id),
        runDir: b.home.runDir(record.id),
        restored: 'branch',
      });
      expect(sh(onB.worktree, 'rev-parse', 'HEAD')).toBe(head);
      expect(sh(onB.worktree, 'symbolic-ref', 'HEAD')).toBe(`refs/heads/${record.branch}`);
      expect(status(onB.worktree)).toBe('');
    });

    it('refuses a path that is not the execution worktree, leaving it as it is', async () => {
      const { store, record, a } = await cluster();
      const path = a.home.worktree(record.id);
      await write(path, 'someone else.txt', 'keep me\n');

      await expect(on(a, record, store)).rejects.toThrow(
        new RepositoryError(`${path} exists but is not the worktree of execution ${record.id}`),
      );
      expect(readFileSync(join(path, 'someone else.txt'), 'utf8')).toBe('keep me\n');
      expect(await store.getExecution(record.id)).toStrictEqual(record);
    });

    it('takes an empty folder at the path as nothing there', async () => {
      const { store, record, a } = await cluster();
      await mkdir(a.home.worktree(record.id), { recursive: true });
      expect((await on(a, record, store)).restored).toBe('base');
    });

    it('leaves nothing half-made when the record cannot be updated', async () => {
      const { store, record, a } = await cluster();
      const elsewhere = await openStore();

      await expect(on(a, record, elsewhere)).rejects.toThrow(NotFoundError);

      expect(existsSync(a.home.worktree(record.id))).toBe(false);
      expect(existsSync(a.home.runDir(record.id))).toBe(false);
      const mirror = await ensureMirror({ url: record.repo, cacheDir: a.cacheDir });
      expect(sh(mirror, 'branch', '--list', record.branch)).toBe('');
      expect(sh(mirror, 'worktree', 'list', '--porcelain')).not.toContain(record.id);
      // And it can be made afterwards.
      expect((await on(a, record, store)).restored).toBe('base');
    });

    it('fails with a RepositoryError of one line when the remote is gone, making no worktree', async () => {
      const { store, record, a } = await cluster();
      const gone = { ...record, repo: `${record.repo}-gone` };

      const error = await on(a, gone, store).catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(RepositoryError);
      expect((error as Error).message).not.toContain('\n');
      expect(existsSync(a.home.worktree(record.id))).toBe(false);
      expect(await store.getExecution(record.id)).toStrictEqual(record);
    });
  });
});
