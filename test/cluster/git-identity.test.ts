/** What an API node requires of a task's git identity (`clusterGitIdentity`, pure: no store, no git). */
import { describe, expect, it } from 'vitest';
import { clusterGitIdentity } from '../../src/cluster/cluster-executions.js';
import { TaskFileError } from '../../src/core/errors.js';
import { resolveTask, TaskFile } from '../../src/core/task.js';
import { CLUSTER_IDENTITY } from './workspace-fixture.js';

function task(harness: unknown, fallbacks: unknown[] = []) {
  return resolveTask(
    TaskFile.parse({ name: 't', repo: 'https://git.example.com/app.git', prompt: 'p', harness, fallbacks }),
    (path) => path,
  );
}

describe('clusterGitIdentity', () => {
  it("fills each link's committer from its author and keeps the primary link's identity for the task", () => {
    const given = task({ harness: 'codex', env: { ...CLUSTER_IDENTITY, KEY: 'v' } }, [
      { harness: 'codex', env: { GIT_AUTHOR_NAME: 'B', GIT_AUTHOR_EMAIL: 'b@example.com', GIT_COMMITTER_NAME: 'CI' } },
    ]);
    const identified = clusterGitIdentity(given);
    expect(identified.chain.map((link) => link.env)).toEqual([
      {
        ...CLUSTER_IDENTITY,
        KEY: 'v',
        GIT_COMMITTER_NAME: 'Cluster Test',
        GIT_COMMITTER_EMAIL: 'cluster@harmflow.invalid',
      },
      {
        GIT_AUTHOR_NAME: 'B',
        GIT_AUTHOR_EMAIL: 'b@example.com',
        GIT_COMMITTER_NAME: 'CI',
        GIT_COMMITTER_EMAIL: 'b@example.com',
      },
    ]);
    expect(identified.gitIdentity).toEqual({
      authorName: 'Cluster Test',
      authorEmail: 'cluster@harmflow.invalid',
      committerName: 'Cluster Test',
      committerEmail: 'cluster@harmflow.invalid',
    });
    expect({ ...identified, chain: given.chain, gitIdentity: undefined }).toEqual({ ...given, gitIdentity: undefined });
  });

  it('refuses a link that gives no author, or an empty one, or passes it through from the host', () => {
    for (const link of [
      'codex',
      { harness: 'codex', env: { GIT_AUTHOR_NAME: 'A' } },
      { harness: 'codex', env: { GIT_AUTHOR_NAME: ' ', GIT_AUTHOR_EMAIL: 'a@example.com' } },
      { harness: 'codex', passEnv: ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL'] },
    ]) {
      expect(() => clusterGitIdentity(task(link))).toThrow(TaskFileError);
    }
    expect(() => clusterGitIdentity(task({ harness: 'codex', env: CLUSTER_IDENTITY }, ['claude-code']))).toThrow(
      /and claude-code \(fallback 1\) does not: add them, or submit with `harmflow submit`/,
    );
  });
});
