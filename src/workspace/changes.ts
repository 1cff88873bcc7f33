/**
 * `readChanges` tells what an execution changed in its worktree against its base commit: the
 * commits on its branch and the uncommitted work, untracked files included (as added) — what
 * `git diff <base>` shows once git knows the untracked files. It is for people reading the work
 * (the Workbench), not for the switch path: it reads whole file contents.
 *
 * It never changes the worktree or its index: the untracked files are marked intent-to-add in a
 * copy of the index (GIT_INDEX_FILE) in a temporary folder this call owns and removes. The one write
 * to the repository is the empty blob `git add --intent-to-add` stores (content-addressed, so at
 * most once per repository, and unreachable). Untracked nested repositories (`dir/`) are left out:
 * git could only record them as submodules. Calls may overlap, with each other and with a harness
 * working in the worktree; what they report is the worktree as each git command found it.
 */
import { createReadStream } from 'node:fs';
import { copyFile, lstat, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { NotFoundError, RepositoryError } from '../core/errors.js';
import { failureLine, git } from './git.js';
import { GitSha } from './git-sha.js';

/**
 * The most diff text returned: 1 MiB. A diff is read by a person in a browser: 1 MiB is about
 * 22 000 lines at the 47 bytes a line this project's own history averages, 4.5 times the largest
 * commit in it (225 KiB; median 20 KiB, 62 commits, measured with `git show` per commit). Past that
 * a page of diff is not read but scrolled, and the answer would only grow the service's memory and
 * the page's; the file list stays complete either way.
 */
export const MAX_DIFF_BYTES = 1024 * 1024;

export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'renamed';

export interface ChangedFile {
  /** The path relative to the worktree; for a rename, the new path. */
  readonly path: string;
  /** `modified` includes a change of type (file to symlink) or of mode only. */
  readonly status: ChangeStatus;
  /** A renamed file's path at the base. */
  readonly from?: string;
  /** Lines added and deleted; both 0 for a binary file. */
  readonly additions: number;
  readonly deletions: number;
  readonly binary?: true;
}

export interface WorkspaceChanges {
  /** The base commit the changes are counted from. */
  readonly base: string;
  /** Every changed file, in git's path order. */
  readonly files: ChangedFile[];
  /** The unified diff (`a/`, `b/` prefixes), at most MAX_DIFF_BYTES, cut at the end of a line. */
  readonly diff: string;
  /** True when the diff was longer than MAX_DIFF_BYTES and was cut. */
  readonly truncated: boolean;
}

export interface ChangesInput {
  /** The worktree's absolute path. */
  readonly worktree: string;
  readonly baseSha: string;
}

/**
 * Diff options that keep the output in the format parsed here whatever the user's git config says
 * (color.ui=always, diff.noprefix, external diff drivers, textconv filters).
 */
const DIFF_OPTIONS = ['--no-color', '--no-ext-diff', '--no-textconv', '--find-renames'];

/**
 * Reads the changes. Throws NotFoundError when the worktree is gone (no folder, or no `.git` in it),
 * RepositoryError when git cannot read it (e.g. its metadata was pruned, or the base is unknown).
 */
export async function readChanges(input: ChangesInput): Promise<WorkspaceChanges> {
  const { worktree } = input;
  const base = GitSha.safeParse(input.baseSha);
  if (!base.success) throw new RepositoryError(`not a commit id: ${JSON.stringify(input.baseSha)}`);
  await requireWorktree(worktree);
  const scratch = await mkdtemp(join(tmpdir(), 'harmflow-changes-'));
  try {
    const index = join(scratch, 'index');
    // A folder whose `.git` vanished mid-call must not make git look for a repository above it.
    const ceiling = { GIT_CEILING_DIRECTORIES: dirname(worktree) };
    const env = { ...ceiling, GIT_INDEX_FILE: index };
    const [indexPath, untracked] = await Promise.all([
      run(worktree, ['rev-parse', '--git-path', 'index'], ceiling),
      run(worktree, ['ls-files', '--others', '--exclude-standard', '-z'], ceiling),
    ]);
    await copyFile(resolve(worktree, indexPath.trim()), index);
    const paths = untracked.split('\0').filter((path) => path.length > 0 && !path.endsWith('/'));
    if (paths.length > 0) {
      const list = join(scratch, 'untracked');
      await writeFile(list, paths.map((path) => `${path}\0`).join(''));
      await run(
        worktree,
        ['--literal-pathspecs', 'add', '--intent-to-add', `--pathspec-from-file=${list}`, '--pathspec-file-nul'],
        env,
      );
    }
    const patch = join(scratch, 'diff');
    const diff = ['--no-optional-locks', 'diff', ...DIFF_OPTIONS];
    const summary = run(worktree, [...diff, '--raw', '--numstat', '-z', base.data, '--'], env);
    const written = run(
      worktree,
      [...diff, '--src-prefix=a/', '--dst-prefix=b/', `--output=${patch}`, base.data, '--'],
      env,
    );
    // Both finish before the scratch folder goes (git writes into it), and are awaited in a fixed
    // order, so the error reported does not depend on which git finished first.
    await Promise.allSettled([summary, written]);
    const files = parseSummary(await summary);
    await written;
    return { base: base.data, files, ...(await readCapped(patch, MAX_DIFF_BYTES)) };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Throws NotFoundError unless `worktree` is a folder with a `.git` entry (a linked worktree's is a file). */
async function requireWorktree(worktree: string): Promise<void> {
  try {
    await lstat(join(worktree, '.git'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new NotFoundError(`worktree ${worktree} no longer exists (it was removed or cleaned up)`);
    }
    throw error;
  }
}

/** Runs git in the worktree and returns its stdout; throws RepositoryError on failure. */
async function run(worktree: string, args: readonly string[], env: Readonly<Record<string, string>>): Promise<string> {
  const result = await git(worktree, args, { env });
  if (result.exitCode !== 0) {
    throw new RepositoryError(`cannot read the changes in ${worktree}: ${failureLine(result)}`);
  }
  return result.stdout;
}

const STATUSES: Readonly<Record<string, ChangeStatus>> = {
  A: 'added',
  D: 'deleted',
  M: 'modified',
  // A type change (file ↔ symlink) and an unmerged path are modifications to someone reading the work.
  T: 'modified',
  U: 'modified',
  R: 'renamed',
};

/**
 * Parses `diff --raw --numstat -z`: first one raw entry per file, `:<modes> <shas> <status>\0<path>\0`
 * (a rename: `R<score>\0<from>\0<to>\0`), then one numstat entry per file, `<added>\t<deleted>\t<path>\0`
 * (a rename: `<added>\t<deleted>\t\0<from>\0<to>\0`; a binary file: `-\t-\t`). Paths are taken by
 * position, never by their look: a path may start with `:` or hold a tab.
 */
function parseSummary(stdout: string): ChangedFile[] {
  const tokens = stdout.split('\0');
  let at = 0;
  const next = (): string => {
    const token = tokens[at++];
    if (token === undefined) throw new RepositoryError('git diff --raw --numstat ended early');
    return token;
  };
  const entries: { status: ChangeStatus; path: string; from?: string }[] = [];
  while (tokens[at]?.startsWith(':')) {
    const letter = next().split(' ').at(-1)?.charAt(0) ?? '';
    const status = STATUSES[letter];
    if (status === undefined) throw new RepositoryError(`git diff --raw: unexpected status ${JSON.stringify(letter)}`);
    if (status === 'renamed') entries.push({ status, from: next(), path: next() });
    else entries.push({ status, path: next() });
  }
  const counts = new Map<string, Pick<ChangedFile, 'additions' | 'deletions' | 'binary'>>();
  while (at < tokens.length && tokens[at] !== '') {
    const match = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(next());
    if (match === null) throw new RepositoryError('git diff --numstat: unexpected line');
    const [, added = '', deleted = '', inline = ''] = match;
    let path = inline;
    if (path === '') {
      next();
      path = next();
    }
    const binary = added === '-';
    counts.set(path, {
      additions: binary ? 0 : Number(added),
      deletions: binary ? 0 : Number(deleted),
      ...(binary && { binary: true }),
    });
  }
  return entries.map((entry) => {
    const count = counts.get(entry.path);
    if (count === undefined) throw new RepositoryError(`git diff --numstat left out ${entry.path}`);
    return { ...entry, ...count };
  });
}

/**
 * Reads at most `max` bytes of `file`. When the file is longer, the text is cut after its last
 * whole line within `max` (or, for a single longer line, at the last whole UTF-8 character).
 */
async function readCapped(file: string, max: number): Promise<{ diff: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  for await (const chunk of createReadStream(file, { start: 0, end: max })) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  if (bytes.length <= max) return { diff: bytes.toString('utf8'), truncated: false };
  return { diff: bytes.subarray(0, cutPoint(bytes, max)).toString('utf8'), truncated: true };
}

/** The length of the longest prefix of `bytes`, at most `max`, that ends a line or else a UTF-8 character. */
function cutPoint(bytes: Buffer, max: number): number {
  const newline = bytes.lastIndexOf(0x0a, max - 1);
  if (newline >= 0) return newline + 1;
  let end = max;
  // Step back over continuation bytes (10xxxxxx) to the start of the character that `max` splits.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return end;
}
