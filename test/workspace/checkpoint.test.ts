import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RepositoryError } from '../../src/core/errors.js';
import { newExecutionId } from '../../src/core/ids.js';
import { checkpointRef, deleteCheckpoint, pushCheckpoint, restoreCheckpoint } from '../../src/workspace/checkpoint.js';
import { ensureMirror, worktreeFromMirror } from '../../src/workspace/mirror.js';
import { commitAll, sh, tempDirs, write } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/**
 * A bare "remote" whose `main` holds README.md, a.txt, b.txt, gone.txt and a .gitignore of `*.log`,
 * and worker A's worktree of it (made from A's own mirror) on the execution's branch.
 */
async function workerA() {
  const work = await dirs.repo();
  await write(work, 'a.txt', 'a\n');
  await write(work, 'b.txt', 'b\n');
  await write(work, 'gone.txt', 'gone\n');
  await write(work, '.gitignore', '*.log\n');
  commitAll(work, 'files');
  const remote = await dirs.remote(work, 'origin');
  sh(work, 'push', '-q', 'origin', 'main');
  const execution = newExecutionId();
  const branch = `harmflow/task-${execution}`;
  const mirror = await ensureMirror({ url: remote, cacheDir: join(await dirs.make(), 'cache-a') });
  const worktree = join(await dirs.make(), 'worktree-a');
  await worktreeFromMirror({ mirror, startPoint: 'origin/main', branch, path: worktree });
  return { remote, execution, branch, mirror, worktree };
}

/** What the agent leaves: a commit, then every kind of uncommitted change, and an ignored file. */
async function doWork(worktree: string): Promise<string> {
  await write(worktree, 'committed.txt', 'committed\n');
  const head = commitAll(worktree, 'agent commit');
  await write(worktree, 'b.txt', 'b modified, not staged\n');
  await write(worktree, 'untracked dir/new file.txt', 'untracked\n');
  await write(worktree, 'staged.txt', 'staged new file\n');
  sh(worktree, 'add', 'staged.txt');
  await write(worktree, 'a.txt', 'a staged\n');
  sh(worktree, 'add', 'a.txt');
  await write(worktree, 'a.txt', 'a staged, then changed again\n');
  await rm(join(worktree, 'gone.txt'));
  await write(worktree, 'debug.log', 'ignored\n');
  return head;
}

/** Status with both columns, untracked files listed one by one. */
function status(worktree: string): string {
  return sh(worktree, 'status', '--porcelain=v1', '--untracked-files=all');
}

function indexBytes(worktree: string): Buffer {
  return readFileSync(resolve(worktree, sh(worktree, 'rev-parse', '--git-path', 'index')));
}

function remoteRef(remote: string, ref: string): string {
  return sh(remote, 'for-each-ref', '--format=%(objectname)', ref);
}

describe('checkpointRef', () => {
  it('lies outside the branch and tag namespaces, and takes only execution ids', () => {
    const execution = newExecutionId();
    expect(checkpointRef(execution)).toBe(`refs/harmflow/checkpoints/${execution}`);
    expect(() => checkpointRef('../heads/main')).toThrow(new RepositoryError('not an execution id: "../heads/main"'));
  });
});

describe('pushCheckpoint and restoreCheckpoint', () => {
  it("carry worker A's commits and uncommitted work to worker B exactly, leaving A untouched", async () => {
    const { remote, execution, branch, worktree } = await workerA();
    const head = await doWork(worktree);
    const before = { status: status(worktree), index: indexBytes(worktree), b: readFileSync(join(worktree, 'b.txt')) };
    expect(before.status.split('\n')).toEqual([
      'MM a.txt',
      ' M b.txt',
      ' D gone.txt',
      'A  staged.txt',
      '?? "untracked dir/new file.txt"',
    ]);

    const pushed = await pushCheckpoint({ worktree, remote: 'origin', execution });

    expect(pushed).toEqual({ sha: expect.stringMatching(/^[0-9a-f]{40}$/), head, dirty: true, pushed: true });
    expect(remoteRef(remote, checkpointRef(execution))).toBe(pushed.sha);
    expect(sh(remote, 'rev-parse', `${pushed.sha}^1`)).toBe(head);
    // Worker A's HEAD, index and files are as they were.
    expect(sh(worktree, 'rev-parse', 'HEAD')).toBe(head);
    expect(sh(worktree, 'symbolic-ref', 'HEAD')).toBe(`refs/heads/${branch}`);
    expect(indexBytes(worktree).equals(before.index)).toBe(true);
    expect(status(worktree)).toBe(before.status);
    expect(readFileSync(join(worktree, 'b.txt')).equals(before.b)).toBe(true);

    // Worker B: its own cache, its own mirror.
    const mirrorB = await ensureMirror({ url: remote, cacheDir: join(await dirs.make(), 'cache-b') });
    const worktreeB = join(await dirs.make(), 'worktree-b');
    const restored = await restoreCheckpoint({ repo: mirrorB, remote: 'origin', execution, branch, path: worktreeB });

    expect(restored).toEqual({
      sha: pushed.sha,
      head,
      branch,
      path: worktreeB,
      files: ['a.txt', 'b.txt', 'gone.txt', 'staged.txt', 'untracked dir/new file.txt'],
    });
    expect(sh(worktreeB, 'symbolic-ref', 'HEAD')).toBe(`refs/heads/${branch}`);
    expect(sh(worktreeB, 'log', '--format=%H %s')).toBe(sh(worktree, 'log', '--format=%H %s'));
    expect(status(worktreeB)).toBe(before.status);
    for (const file of ['a.txt', 'b.txt', 'staged.txt', 'untracked dir/new file.txt', '.gitignore', 'committed.txt']) {
      expect(readFileSync(join(worktreeB, file), 'utf8')).toBe(readFileSync(join(worktree, file), 'utf8'));
    }
    expect(sh(worktreeB, 'show', ':a.txt')).toBe('a staged');
    expect(existsSync(join(worktreeB, 'gone.txt'))).toBe(false);
    expect(existsSync(join(worktreeB, 'debug.log'))).toBe(false);
  });

  it('pushes nothing when nothing changed since the last checkpoint, and again once something did', async () => {
    const { remote, execution, worktree } = await workerA();
    await doWork(worktree);
    const first = await pushCheckpoint({ worktree, remote: 'origin', execution });

    const again = await pushCheckpoint({ worktree, remote: 'origin', execution });
    expect(again).toEqual({ ...first, pushed: false });
    expect(remoteRef(remote, checkpointRef(execution))).toBe(first.sha);

    await write(worktree, 'b.txt', 'changed once more\n');
    const third = await pushCheckpoint({ worktree, remote: 'origin', execution });
    expect(third.pushed).toBe(true);
    expect(third.sha).not.toBe(first.sha);
    expect(remoteRef(remote, checkpointRef(execution))).toBe(third.sha);

    // Staging alone is a change too.
    sh(worktree, 'add', 'b.txt');
    expect((await pushCheckpoint({ worktree, remote: 'origin', execution })).pushed).toBe(true);
  });

  it('checkpoints a clean worktree as its commits alone, restored with no changes', async () => {
    const { remote, execution, branch, worktree } = await workerA();
    await write(worktree, 'committed.txt', 'committed\n');
    const head = commitAll(worktree, 'agent commit');

    const pushed = await pushCheckpoint({ worktree, remote: 'origin', execution });
    expect(pushed).toMatchObject({ head, dirty: false, pushed: true });

    const mirrorB = await ensureMirror({ url: remote, cacheDir: await dirs.make() });
    const path = join(await dirs.make(), 'b');
    const restored = await restoreCheckpoint({ repo: mirrorB, remote: 'origin', execution, branch, path });
    expect(restored).toMatchObject({ head, files: [] });
    expect(status(path)).toBe('');
  });

  it('lets the worker that took over carry on, and refuses the pushes of the one it replaced', async () => {
    const { remote, execution, branch, worktree } = await workerA();
    await doWork(worktree);
    await pushCheckpoint({ worktree, remote: 'origin', execution });
    const mirrorB = await ensureMirror({ url: remote, cacheDir: await dirs.make() });
    const worktreeB = join(await dirs.make(), 'b');
    await restoreCheckpoint({ repo: mirrorB, remote: 'origin', execution, branch, path: worktreeB });

    // What B restored is what it would push: nothing to do.
    expect((await pushCheckpoint({ worktree: worktreeB, remote: 'origin', execution })).pushed).toBe(false);
    await write(worktreeB, 'by-b.txt', 'B carries on\n');
    const fromB = await pushCheckpoint({ worktree: worktreeB, remote: 'origin', execution });
    expect(fromB.pushed).toBe(true);

    // A was taken for lost but is still running: its next checkpoint must not replace B's.
    await write(worktree, 'by-a.txt', 'A did not know\n');
    const error = await pushCheckpoint({ worktree, remote: 'origin', execution }).catch((e) => e);
    expect(error).toBeInstanceOf(RepositoryError);
    expect(error.message).toMatch(
      new RegExp(`^cannot push checkpoint ${checkpointRef(execution)}: ! \\[rejected\\] .* \\(stale info\\)$`),
    );
    expect(remoteRef(remote, checkpointRef(execution))).toBe(fromB.sha);
  });

  it('leaves the checkpoint out of a normal clone and out of the branch lists', async () => {
    const { remote, execution, worktree } = await workerA();
    await doWork(worktree);
    await pushCheckpoint({ worktree, remote: 'origin', execution });

    const clone = join(await dirs.make(), 'clone');
    sh(await dirs.make(), 'clone', '-q', remote, clone);

    expect(sh(clone, 'for-each-ref', '--format=%(refname)')).toBe(
      ['refs/heads/main', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main'].join('\n'),
    );
    expect(sh(clone, 'branch', '-r', '--format=%(refname:short)')).toBe(['origin/HEAD', 'origin/main'].join('\n'));
    expect(sh(clone, 'ls-remote', '--heads', '--tags', 'origin')).toBe(
      `${sh(remote, 'rev-parse', 'main')}\trefs/heads/main`,
    );
    // It is there for those who ask for it by name.
    expect(sh(clone, 'ls-remote', 'origin', checkpointRef(execution))).toContain(checkpointRef(execution));
  });
});

describe('restoreCheckpoint', () => {
  it('returns undefined when the remote holds no checkpoint, and creates nothing', async () => {
    const { remote, branch } = await workerA();
    const mirrorB = await ensureMirror({ url: remote, cacheDir: await dirs.make() });
    const path = join(await dirs.make(), 'b');
    const execution = newExecutionId();

    expect(await restoreCheckpoint({ repo: mirrorB, remote: 'origin', execution, branch, path })).toBeUndefined();
    expect(existsSync(path)).toBe(false);
    expect(sh(mirrorB, 'branch', '--list', branch)).toBe('');
  });

  it('resets an existing branch to the checkpoint', async () => {
    const { remote, execution, branch, worktree } = await workerA();
    const head = await doWork(worktree);
    await pushCheckpoint({ worktree, remote: 'origin', execution });
    const mirrorB = await ensureMirror({ url: remote, cacheDir: await dirs.make() });
    sh(mirrorB, 'branch', branch, 'origin/main');

    const path = join(await dirs.make(), 'b');
    await restoreCheckpoint({ repo: mirrorB, remote: 'origin', execution, branch, path });
    expect(sh(mirrorB, 'rev-parse', `refs/heads/${branch}`)).toBe(head);
  });

  it("reports git's line into an occupied path, and leaves the branch as it was", async () => {
    const { remote, execution, branch, worktree } = await workerA();
    await doWork(worktree);
    await pushCheckpoint({ worktree, remote: 'origin', execution });
    const mirrorB = await ensureMirror({ url: remote, cacheDir: await dirs.make() });
    const path = await dirs.make();
    await write(path, 'occupied.txt', 'mine\n');

    const error = await restoreCheckpoint({ repo: mirrorB, remote: 'origin', execution, branch, path }).catch((e) => e);
    expect(error).toBeInstanceOf(RepositoryError);
    expect(error.message).toMatch(new RegExp(`^cannot restore checkpoint ${checkpointRef(execution)}: fatal: .*`));
    expect(error.message).not.toContain('\n');
    expect(sh(mirrorB, 'branch', '--list', branch)).toBe('');
    expect(readFileSync(join(path, 'occupied.txt'), 'utf8')).toBe('mine\n');
  });

  it('removes the worktree it made, and puts the branch back, when filling it in fails', async () => {
    const { remote, execution, branch, worktree } = await workerA();
    const head = sh(worktree, 'rev-parse', 'HEAD');
    // A checkpoint whose tree git refuses to check out: an entry named `.git`.
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: worktree, input: 'x\n' })
      .toString()
      .trim();
    const tree = execFileSync('git', ['mktree'], { cwd: worktree, input: `100644 blob ${blob}\t.git\n` })
      .toString()
      .trim();
    const index = sh(worktree, 'commit-tree', '-p', head, '-m', 'index', `${head}^{tree}`);
    const bad = sh(worktree, 'commit-tree', '-p', head, '-p', index, '-m', 'bad', tree);
    sh(worktree, 'push', '-q', 'origin', `${bad}:${checkpointRef(execution)}`);
    const mirrorB = await ensureMirror({ url: remote, cacheDir: await dirs.make() });
    // The branch exists on B, elsewhere than the checkpoint's HEAD.
    const before = sh(mirrorB, 'rev-parse', 'origin/main~1');
    sh(mirrorB, 'branch', branch, before);
    const path = join(await dirs.make(), 'nested', 'b');

    const error = await restoreCheckpoint({ repo: mirrorB, remote: 'origin', execution, branch, path }).catch((e) => e);

    expect(error).toBeInstanceOf(RepositoryError);
    // read-tree's refusal: the worktree had been made by then.
    expect(error.message).toBe(`cannot restore checkpoint ${checkpointRef(execution)}: error: invalid path '.git'`);
    expect(existsSync(path)).toBe(false);
    expect(sh(mirrorB, 'worktree', 'list', '--porcelain')).not.toContain(path);
    expect(sh(mirrorB, 'rev-parse', `refs/heads/${branch}`)).toBe(before);
  });
});

describe('deleteCheckpoint', () => {
  it('removes the ref from the remote and the repository; deleting it again succeeds', async () => {
    const { remote, execution, mirror, worktree } = await workerA();
    await doWork(worktree);
    await pushCheckpoint({ worktree, remote: 'origin', execution });
    expect(remoteRef(mirror, checkpointRef(execution))).not.toBe('');

    await deleteCheckpoint({ repo: mirror, remote: 'origin', execution });

    expect(remoteRef(remote, checkpointRef(execution))).toBe('');
    expect(remoteRef(mirror, checkpointRef(execution))).toBe('');
    await deleteCheckpoint({ repo: mirror, remote: 'origin', execution });
    // The next checkpoint starts afresh.
    expect((await pushCheckpoint({ worktree, remote: 'origin', execution })).pushed).toBe(true);
  });
});

describe('failures', () => {
  it('are one line naming the ref and git’s reason', async () => {
    const { execution, worktree } = await workerA();
    const error = await pushCheckpoint({ worktree, remote: 'nowhere', execution }).catch((e) => e);
    expect(error).toBeInstanceOf(RepositoryError);
    expect(error.message).toMatch(new RegExp(`^cannot push checkpoint ${checkpointRef(execution)}: fatal: .*nowhere`));
    expect(error.message).not.toContain('\n');

    const gone = join(await dirs.make(), 'gone');
    const missing = await pushCheckpoint({ worktree: gone, remote: 'origin', execution }).catch((e) => e);
    expect(missing).toBeInstanceOf(RepositoryError);
    expect(missing.message).toMatch(new RegExp(`^cannot checkpoint ${gone}: `));
  });
});
