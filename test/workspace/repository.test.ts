import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT, RepositoryError } from '../../src/core/errors.js';
import { resolveRepository } from '../../src/workspace/repository.js';
import { commitAll, sh, tempDirs, write } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** Everything git knows of the repository and every file in it, to prove nothing changed. */
function footprint(repo: string): string {
  const files = readdirSync(repo, { recursive: true }).map(String).sort().join('\n');
  return [files, sh(repo, 'for-each-ref'), sh(repo, 'worktree', 'list', '--porcelain')].join('\n--\n');
}

describe('resolveRepository', () => {
  it('returns the top level and the base commit for a branch, a tag and a short sha, from a subdirectory', async () => {
    const repo = await dirs.repo();
    await write(repo, 'src/a.ts', 'a\n');
    const second = commitAll(repo, 'second');
    sh(repo, 'tag', 'v1', 'HEAD~1');
    const first = sh(repo, 'rev-parse', 'HEAD~1');
    expect(await resolveRepository(join(repo, 'src'), 'main')).toEqual({ root: repo, baseSha: second });
    expect(await resolveRepository(repo, 'v1')).toEqual({ root: repo, baseSha: first });
    expect(await resolveRepository(repo, first.slice(0, 8))).toEqual({ root: repo, baseSha: first });
  });

  it('refuses a URL in one line naming cluster mode, reading nothing', async () => {
    const error = await resolveRepository('https://git.example.com/team/app.git', 'main').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RepositoryError);
    expect((error as RepositoryError).message).toBe(
      'repository https://git.example.com/team/app.git is a URL: this machine runs executions from a repository on its disk (clone it, or submit it to a cluster: docs/cluster.md)',
    );
    expect((error as RepositoryError).exitCode).toBe(EXIT.repository);
  });

  it('fails on a missing path without creating it', async () => {
    const path = join(await dirs.make(), 'absent');
    const error = await resolveRepository(path, 'main').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RepositoryError);
    expect((error as RepositoryError).message).toBe(`repository not found: ${path}`);
    expect((error as RepositoryError).exitCode).toBe(EXIT.repository);
    expect(existsSync(path)).toBe(false);
  });

  it('fails on a directory or a file that is not a git repository, leaving it as it was', async () => {
    const dir = await dirs.make();
    await expect(resolveRepository(dir, 'main')).rejects.toThrow(new RepositoryError(`not a git repository: ${dir}`));
    expect(readdirSync(dir)).toEqual([]);
    const file = join(dir, 'file.txt');
    await writeFile(file, 'x');
    await expect(resolveRepository(file, 'main')).rejects.toThrow(`not a git repository: ${file}`);
    expect(readdirSync(dir)).toEqual(['file.txt']);
  });

  it('fails on a ref that does not name a commit, leaving the repository as it was', async () => {
    const repo = await dirs.repo();
    const before = footprint(repo);
    for (const ref of ['nope', 'HEAD:README.md', '--all', '-h']) {
      await expect(resolveRepository(repo, ref)).rejects.toThrow(
        new RepositoryError(`base ref "${ref}" not found in ${repo}`),
      );
    }
    expect(footprint(repo)).toBe(before);
  });
});
