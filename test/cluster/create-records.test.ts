import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClusterExecution, isMaterialized, NOT_MATERIALIZED } from '../../src/cluster/create-records.js';
import { RepositoryError } from '../../src/core/errors.js';
import { storedTask } from '../../src/core/task.js';
import { sh } from '../workspace/helpers.js';
import { clusterTask, describeEachStore, newRemote } from './workspace-fixture.js';

/** Every path under `root` with its size and modification time: what a write would change. */
function snapshot(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((path) => {
      const info = statSync(join(root, path));
      return `${path} ${info.size} ${info.mtimeMs}`;
    });
}

describeEachStore((openStore) => {
  describe('createClusterExecution', () => {
    it('pins HEAD to the remote HEAD and inserts the rows createExecution makes, with no workspace', async () => {
      const { remote, main } = await newRemote();
      const store = await openStore();
      const task = clusterTask(remote);
      const before = snapshot(remote);

      const record = await createClusterExecution(task, store);

      expect(record).toStrictEqual({
        id: record.id,
        taskId: `${record.id}-task`,
        taskName: 'fix',
        repo: remote,
        baseRef: 'HEAD',
        baseSha: main,
        branch: `harmflow/fix-${record.id}`,
        worktree: NOT_MATERIALIZED,
        runDir: NOT_MATERIALIZED,
        state: 'queued',
        createdAt: record.createdAt,
        deadline: new Date(Date.parse(record.createdAt) + 600_000).toISOString(),
        attemptCount: 0,
        turnCount: 0,
      });
      expect(isMaterialized(record)).toBe(false);
      expect(await store.getExecution(record.id)).toStrictEqual(record);
      expect(await store.getTask(record.taskId)).toStrictEqual({
        id: record.taskId,
        name: 'fix',
        definition: JSON.parse(JSON.stringify(storedTask(task))),
        createdAt: record.createdAt,
      });
      expect(snapshot(remote)).toEqual(before);
    });

    it('resolves a branch, a full ref name, an annotated tag (to its commit) and a file:// URL', async () => {
      const { remote, work, main } = await newRemote();
      sh(work, 'checkout', '-q', '-b', 'feature/main');
      sh(work, 'commit', '-q', '--allow-empty', '-m', 'feature');
      const feature = sh(work, 'rev-parse', 'HEAD');
      sh(work, 'push', '-q', 'origin', 'feature/main');
      const store = await openStore();

      const resolved = async (repo: string, ref: string) =>
        (await createClusterExecution(clusterTask(repo, ref), store)).baseSha;
      expect(await resolved(remote, 'main')).toBe(main);
      expect(await resolved(remote, 'feature/main')).toBe(feature);
      expect(await resolved(remote, 'refs/heads/feature/main')).toBe(feature);
      expect(await resolved(remote, 'heads/main')).toBe(main);
      expect(await resolved(remote, 'v1')).toBe(main);
      expect(await resolved(`file://${remote}`, 'main')).toBe(main);
      const file = await createClusterExecution(clusterTask(`file://${remote}`), store);
      expect(file.repo).toBe(`file://${remote}`);
    });

    it('takes a full sha as it is, without asking the remote', async () => {
      const store = await openStore();
      const sha = 'a'.repeat(40);
      const record = await createClusterExecution(clusterTask('/nowhere/at/all.git', sha), store);
      expect(record.baseSha).toBe(sha);
    });

    it('refuses an unknown ref, an unreachable remote and a relative path with one line, inserting nothing', async () => {
      const { remote, main } = await newRemote();
      const store = await openStore();
      const refused = (repo: string, ref = 'HEAD') => createClusterExecution(clusterTask(repo, ref), store);

      await expect(refused(remote, 'nope')).rejects.toThrow(
        new RepositoryError(`base ref "nope" not found in ${remote}`),
      );
      await expect(refused(remote, 'a.txt')).rejects.toThrow(RepositoryError);
      await expect(refused(remote, '--upload-pack=touch')).rejects.toThrow(
        new RepositoryError(`base ref "--upload-pack=touch" not found in ${remote}`),
      );
      // An abbreviated sha names no ref.
      await expect(refused(remote, main.slice(0, 12))).rejects.toThrow(RepositoryError);
      const missing = `${remote}-missing`;
      const error = await refused(missing).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RepositoryError);
      expect((error as Error).message).toMatch(new RegExp(`^cannot read the refs of ${missing}: [^\\n]+$`));
      await expect(refused('relative/repo')).rejects.toThrow(
        new RepositoryError('not a repository URL or absolute path: relative/repo'),
      );

      expect(await store.listExecutions()).toEqual([]);
    });

    it('leaves credentials out of its messages', async () => {
      const store = await openStore();
      // Port 1 on loopback: refused at once.
      const error = await createClusterExecution(clusterTask('https://user:secret@127.0.0.1:1/repo.git'), store).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(RepositoryError);
      expect((error as Error).message).toMatch(/^cannot read the refs of https:\/\/127\.0\.0\.1:1\/repo\.git: /);
      expect((error as Error).message).not.toContain('secret');
    });
  });
});
