/**
 * A worker's local mirrors of the repositories it runs executions for (cluster mode):
 * `ensureMirror` keeps one bare clone per repository URL under a cache folder and brings it up to
 * date; `worktreeFromMirror` makes an execution's worktree and branch from one.
 *
 * A mirror is a bare repository whose remote `origin` is the URL. A fetch copies the remote's
 * branches to `refs/remotes/origin/*` and its tags to `refs/tags/*`, and prunes those the remote no
 * longer has. It is deliberately not `git clone --mirror`, whose fetch maps `refs/*` onto `refs/*`:
 * there a `git remote update --prune` deletes every local branch the remote lacks — the branches
 * the executions' worktrees have checked out, leaving their commits reachable from nothing — and
 * `git push origin <branch>` in a worktree fails ("--mirror can't be combined with refspecs").
 * Here the executions' branches live in the mirror's `refs/heads/`, which fetches never touch.
 *
 * Concurrency: all fetches into one mirror, the first included, run one at a time under the lock
 * file `<mirror>.lock` (lock-file.ts), since two fetches that update the same ref at once make one
 * of them fail ("cannot lock ref … is at … but expected …": it did in each of 40 rounds of four
 * concurrent fetches after a change to the remote's main). The first fetch goes into `<mirror>.new`, renamed to `<mirror>` once
 * complete, so a mirror is whole or absent: a clone cut short (a crash, a timeout) leaves only the
 * `.new` folder, which the next call removes and starts over. Worktrees, their branches and
 * checkpoint refs (checkpoint.ts) need no lock: a fetch updates none of their refs.
 */
import { createHash } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { RepositoryError } from '../core/errors.js';
import { failureLine, git } from './git.js';
import { GitSha } from './git-sha.js';
import { withLockFile } from './lock-file.js';
import { FIRST_FETCH_TIMEOUT_MS, REMOTE_TIMEOUT_MS, remoteArgument, remoteGit } from './remote-git.js';
import { createWorktree, type Worktree } from './worktree.js';

export interface MirrorSpec {
  /** The repository's URL, as `git clone` takes it; each distinct string has its own mirror. */
  readonly url: string;
  /** The folder the mirrors are kept in, created when missing; local to the machine (not NFS). */
  readonly cacheDir: string;
}

/**
 * Returns the absolute path of the mirror of `url` — `<cacheDir>/<hash>.git`, the hash being the
 * first 16 hex digits of the URL's SHA-256 — after creating it or fetching into it. Waits while
 * another call fetches into the same mirror. Throws RepositoryError `cannot create the mirror
 * <path>: <git's line>` or `cannot update the mirror <path>: <git's line>` (the URL is left out of
 * the message: it may hold credentials).
 */
export async function ensureMirror(spec: MirrorSpec): Promise<string> {
  const url = remoteArgument(spec.url);
  const cacheDir = resolve(spec.cacheDir);
  await mkdir(cacheDir, { recursive: true });
  const path = join(cacheDir, `${createHash('sha256').update(url).digest('hex').slice(0, 16)}.git`);
  // A waiter may wait for a whole first fetch, then its own.
  await withLockFile(`${path}.lock`, FIRST_FETCH_TIMEOUT_MS, async () => {
    if (await exists(path)) await fetch(path, REMOTE_TIMEOUT_MS, `cannot update the mirror ${path}`);
    else await create(path, url);
  });
  return path;
}

async function create(path: string, url: string): Promise<void> {
  const temp = `${path}.new`;
  const what = `cannot create the mirror ${path}`;
  await rm(temp, { recursive: true, force: true });
  try {
    await run(dirname(path), ['init', '--quiet', '--bare', temp], what);
    await run(temp, ['remote', 'add', 'origin', url], what);
    await run(temp, ['config', '--add', 'remote.origin.fetch', '+refs/tags/*:refs/tags/*'], what);
    await fetch(temp, FIRST_FETCH_TIMEOUT_MS, what);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}

async function fetch(mirror: string, timeoutMs: number, what: string): Promise<void> {
  const result = await remoteGit(mirror, ['fetch', '--quiet', '--prune', '--no-write-fetch-head', 'origin'], timeoutMs);
  if (result.exitCode !== 0) throw new RepositoryError(`${what}: ${failureLine(result)}`);
}

export type MirrorWorktreeSpec = {
  /** The mirror's path (`ensureMirror`). */
  readonly mirror: string;
  /** The branch to create in the mirror; it must not exist yet. */
  readonly branch: string;
  /** Where to check it out; created with its parents; must not exist or be an empty directory. */
  readonly path: string;
} & (
  | { readonly baseSha: string }
  | {
      /** A revision the mirror resolves to a commit: `origin/main` (a remote branch), `v1.2` (a tag), a sha. */
      readonly startPoint: string;
    }
);

/**
 * Creates `branch` at the base commit and checks it out at `path` (createWorktree, with the mirror
 * as the repository). Throws RepositoryError `start point "<ref>" not found in <mirror>`, or
 * createWorktree's errors; nothing is left behind when it throws.
 */
export async function worktreeFromMirror(spec: MirrorWorktreeSpec): Promise<Worktree> {
  const baseSha = 'baseSha' in spec ? spec.baseSha : await resolveCommit(spec.mirror, spec.startPoint);
  return createWorktree({ repoRoot: spec.mirror, baseSha, branch: spec.branch, path: spec.path });
}

async function resolveCommit(mirror: string, startPoint: string): Promise<string> {
  // A revision starting with "-" would be read as an option; no ref name can start with one.
  const result = startPoint.startsWith('-')
    ? undefined
    : await git(mirror, ['rev-parse', '--verify', '--quiet', `${startPoint}^{commit}`]);
  const sha = result?.exitCode === 0 ? GitSha.safeParse(result.stdout.trim()) : undefined;
  if (!sha?.success) throw new RepositoryError(`start point "${startPoint}" not found in ${mirror}`);
  return sha.data;
}

async function run(cwd: string, args: readonly string[], what: string): Promise<void> {
  const result = await git(cwd, args);
  if (result.exitCode !== 0) throw new RepositoryError(`${what}: ${failureLine(result)}`);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
}
