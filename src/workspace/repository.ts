/**
 * `resolveRepository` checks the repository a task names and pins its base ref to a commit. It only
 * reads: nothing is created, whether it succeeds or fails.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { RepositoryError } from '../core/errors.js';
import { isRepositoryUrl } from '../core/repository-url.js';
import { failureLine, git } from './git.js';
import { GitSha } from './git-sha.js';

export interface Repository {
  /** The absolute path of the repository's top-level directory. */
  readonly root: string;
  /** The commit the base ref named when it was resolved. */
  readonly baseSha: string;
}

/**
 * Resolves `repoPath` (any directory inside a work tree) to its top level, and `baseRef` (a
 * branch, tag, sha or any revision) to a commit. Throws RepositoryError
 * `repository <url> is a URL: …` (a URL needs cluster mode), `repository not found: <path>`,
 * `not a git repository: <path>` (git's reason as the cause) or
 * `base ref "<ref>" not found in <root>`.
 */
export async function resolveRepository(repoPath: string, baseRef: string): Promise<Repository> {
  if (isRepositoryUrl(repoPath)) {
    throw new RepositoryError(
      `repository ${repoPath} is a URL: this machine runs executions from a repository on its disk (clone it, or submit it to a cluster: docs/cluster.md)`,
    );
  }
  const path = resolve(repoPath);
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) throw new RepositoryError(`repository not found: ${path}`);
  const top = info.isDirectory() ? await git(path, ['rev-parse', '--show-toplevel']) : undefined;
  if (top?.error !== undefined) throw new RepositoryError(`cannot run git: ${top.error}`);
  if (top === undefined || top.exitCode !== 0) {
    const reason = top === undefined ? 'not a directory' : failureLine(top);
    throw new RepositoryError(`not a git repository: ${path}`, { cause: new Error(reason) });
  }
  const root = top.stdout.replace(/\n$/, '');
  // A ref starting with "-" would be read as an option; no ref name can start with one.
  const ref = baseRef.startsWith('-')
    ? undefined
    : await git(root, ['rev-parse', '--verify', '--quiet', `${baseRef}^{commit}`]);
  const sha = ref?.exitCode === 0 ? GitSha.safeParse(ref.stdout.trim()) : undefined;
  if (!sha?.success) throw new RepositoryError(`base ref "${baseRef}" not found in ${root}`);
  return { root, baseSha: sha.data };
}
