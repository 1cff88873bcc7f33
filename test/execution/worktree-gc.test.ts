/**
 * The worktree collector on real repositories: it removes a clean, pushed, expired worktree (the
 * branch, run directory and record stay, the removal is recorded); it keeps, saying why, one with
 * uncommitted changes, one with unpushed commits, one whose git check fails, one git refuses to
 * remove, one a live process owns and one a follow-up reopened; it leaves younger ones alone; a dry
 * run changes nothing. And a removed worktree comes back from its branch for a follow-up.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimOwnership, releaseOwnership } from '../../src/execution/owner-file.js';
import { restoreRemovedWorktree } from '../../src/execution/restore-worktree.js';
import { collectWorktrees, DEFAULT_WORKTREE_RETENTION_MS } from '../../src/execution/worktree-gc.js';
import { readWorktreeRemoved } from '../../src/execution/worktree-removed.js';
import type { ExecutionRecord } from '../../src/store/store.js';
import { endedExecution } from './ended-execution.js';
import { type Bench, git, makeBench } from './fixture.js';

const DAY_MS = 86_400_000;
const NOW = Date.now();

let bench: Bench;
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  await bench.cleanup();
});

/** An execution that ended `daysAgo` days ago, with its worktree as `shape` leaves it. */
async function ended(
  taskName: string,
  daysAgo: number,
  shape: (worktree: string) => void = () => {},
): Promise<ExecutionRecord> {
  const record = await endedExecution({
    home: bench.home,
    store: bench.store,
    repo: bench.repo,
    taskName,
    endedAt: new Date(NOW - daysAgo * DAY_MS),
  });
  shape(record.worktree);
  return record;
}

function commit(worktree: string, file: string): void {
  writeFileSync(join(worktree, file), `${file}\n`);
  git(worktree, 'add', '-A');
  git(worktree, 'commit', '--quiet', '-m', `add ${file}`);
}

const collect = (dryRun: boolean) =>
  collectWorktrees({
    home: bench.home,
    store: bench.store,
    now: NOW,
    retentionMs: DEFAULT_WORKTREE_RETENTION_MS,
    dryRun,
  });

/** Everything a dry run must leave as it was: the worktrees folder, git's list of worktrees, the run directories. */
function snapshot(): unknown {
  return {
    worktrees: readdirSync(bench.home.worktrees).sort(),
    list: git(bench.repo, 'worktree', 'list', '--porcelain'),
    runs: readdirSync(bench.home.runs)
      .sort()
      .map((id) => [id, readdirSync(bench.home.runDir(id)).sort()]),
  };
}

describe('collectWorktrees', () => {
  it('removes clean pushed expired worktrees and keeps, with why, every one holding unsaved work', async () => {
    const pushed = await ended('pushed', 9, (worktree) => {
      commit(worktree, 'a.txt');
      git(worktree, 'push', '--quiet', 'origin', 'HEAD');
    });
    const untouched = await ended('untouched', 8);
    const dirty = await ended('dirty', 10, (worktree) => writeFileSync(join(worktree, 'notes.txt'), 'draft\n'));
    const unpushed = await ended('unpushed', 11, (worktree) => commit(worktree, 'b.txt'));
    const broken = await ended('broken', 12, (worktree) =>
      writeFileSync(join(worktree, '.git'), 'gitdir: /nonexistent/worktrees/gone\n'),
    );
    const locked = await ended('locked', 13, (worktree) => git(bench.repo, 'worktree', 'lock', worktree));
    const owned = await ended('owned', 14);
    const young = await ended('young', 2, (worktree) => writeFileSync(join(worktree, 'x'), 'x'));
    claimOwnership(bench.home.ownerFile(owned.id));

    const report = await collect(false);
    releaseOwnership(bench.home.ownerFile(owned.id));

    const byId = new Map(report.entries.map((entry) => [entry.id, entry]));
    expect(report.entries.map((entry) => entry.taskName)).toEqual([
      'owned',
      'locked',
      'broken',
      'unpushed',
      'dirty',
      'pushed',
      'untouched',
    ]);
    expect(byId.get(pushed.id)).toMatchObject({ action: 'removed', bytes: expect.any(Number) });
    expect(byId.get(untouched.id)).toMatchObject({ action: 'removed' });
    expect(byId.get(dirty.id)).toMatchObject({ action: 'kept', why: '1 uncommitted change (git status)' });
    expect(byId.get(unpushed.id)).toMatchObject({ action: 'kept', why: '1 commit on no remote and not on main' });
    expect(byId.get(broken.id)).toMatchObject({
      action: 'kept',
      why: 'git check failed: fatal: not a git repository: /nonexistent/worktrees/gone',
    });
    expect(byId.get(locked.id)).toMatchObject({
      action: 'kept',
      why: expect.stringMatching(/^git worktree remove refused: fatal: cannot remove a locked working tree/),
    });
    expect(byId.get(owned.id)).toMatchObject({ action: 'kept', why: 'a live process drives it' });
    expect(byId.has(young.id)).toBe(false);
    expect(report.notExpired).toBe(1);
    expect(report.reclaimedBytes).toBe((byId.get(pushed.id)?.bytes ?? 0) + (byId.get(untouched.id)?.bytes ?? 0));
    expect(report.reclaimedBytes).toBeGreaterThan(0);

    for (const record of [pushed, untouched]) {
      expect(existsSync(record.worktree)).toBe(false);
      expect(git(bench.repo, 'worktree', 'list', '--porcelain')).not.toContain(record.worktree);
      // The branch, the run directory and the record stay.
      expect(git(bench.repo, 'rev-parse', '--verify', `refs/heads/${record.branch}`)).toMatch(/^[0-9a-f]{40}$/);
      expect(existsSync(bench.home.eventsFile(record.id))).toBe(true);
      expect(await bench.store.getExecution(record.id)).toEqual(record);
      expect(existsSync(bench.home.ownerFile(record.id))).toBe(false);
    }
    expect(await readWorktreeRemoved(bench.home, pushed.id)).toEqual({
      removedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      path: pushed.worktree,
      branch: pushed.branch,
      head: git(bench.repo, 'rev-parse', pushed.branch),
    });
    expect(git(bench.repo, 'rev-parse', pushed.branch)).toBe(git(bench.repo, 'rev-parse', `origin/${pushed.branch}`));
    for (const record of [dirty, unpushed, broken, locked, owned, young]) {
      expect(existsSync(record.worktree)).toBe(true);
      expect(await readWorktreeRemoved(bench.home, record.id)).toBeUndefined();
    }

    // A second run finds the removed ones gone and says the same of the rest.
    const again = await collect(false);
    expect(again.entries.map((entry) => [entry.taskName, entry.action])).toEqual([
      ['owned', 'removed'],
      ['locked', 'kept'],
      ['broken', 'kept'],
      ['unpushed', 'kept'],
      ['dirty', 'kept'],
    ]);
  });

  it('changes nothing in a dry run, and says what would go', async () => {
    const clean = await ended('clean', 8);
    const dirty = await ended('dirty', 9, (worktree) => writeFileSync(join(worktree, 'notes.txt'), 'draft\n'));
    const before = snapshot();

    const report = await collect(true);

    expect(report.dryRun).toBe(true);
    expect(report.entries.map((entry) => [entry.id, entry.action, entry.why])).toEqual([
      [dirty.id, 'kept', '1 uncommitted change (git status)'],
      [clean.id, 'would-remove', undefined],
    ]);
    expect(report.reclaimedBytes).toBe(report.entries[1]?.bytes);
    expect(snapshot()).toEqual(before);
    expect(existsSync(bench.home.worktreeRemovedFile(clean.id))).toBe(false);
  });

  it("removes the execution's own build folders and private caches with its worktree, never the shared caches, and keeps a kept one's", async () => {
    const gone = await ended('gone', 9);
    const dirty = await ended('dirty-caches', 10, (worktree) => writeFileSync(join(worktree, 'notes.txt'), 'draft\n'));
    for (const record of [gone, dirty]) {
      mkdirSync(join(bench.home.executionCaches(record.id), 'cargo-target', 'debug'), { recursive: true });
      writeFileSync(join(bench.home.executionCaches(record.id), 'cargo-target', 'debug', 'app'), 'x'.repeat(10_000));
    }
    // Read-only, as Go leaves its module cache: removed all the same.
    const modules = join(bench.home.executionCaches(gone.id), 'go', 'mod', 'example.com@v1.0.0');
    mkdirSync(modules, { recursive: true });
    writeFileSync(join(modules, 'go.mod'), 'module example.com\n');
    chmodSync(modules, 0o555);
    const shared = join(bench.home.caches, 'npm', '_cacache');
    mkdirSync(shared, { recursive: true });
    writeFileSync(join(shared, 'entry'), 'tarball');

    const report = await collect(false);

    const byId = new Map(report.entries.map((entry) => [entry.id, entry]));
    expect(byId.get(gone.id)).toMatchObject({ action: 'removed', cachesBytes: expect.any(Number) });
    expect(byId.get(gone.id)?.cachesBytes).toBeGreaterThanOrEqual(10_000);
    expect(existsSync(bench.home.executionCaches(gone.id))).toBe(false);
    expect(existsSync(bench.home.runDir(gone.id))).toBe(true);
    expect(byId.get(dirty.id)).toMatchObject({ action: 'kept' });
    expect(existsSync(join(bench.home.executionCaches(dirty.id), 'cargo-target', 'debug', 'app'))).toBe(true);
    expect(existsSync(join(shared, 'entry'))).toBe(true);
    expect(report.reclaimedBytes).toBe((byId.get(gone.id)?.bytes ?? 0) + (byId.get(gone.id)?.cachesBytes ?? 0));
  });

  it('keeps one a follow-up reopened after it was listed', async () => {
    const reopened = await ended('reopened', 30);
    const listed = await bench.store.listExecutions();
    await bench.store.updateExecution(reopened.id, { state: 'running', endedAt: null });
    // The store as it was when listed, and as it is when each execution is read again.
    const stale = new Proxy(bench.store, {
      get: (target, name) =>
        name === 'listExecutions' ? async () => listed : Reflect.get(target, name, target).bind(target),
    });

    const report = await collectWorktrees({ home: bench.home, store: stale, now: NOW, retentionMs: 0, dryRun: false });

    expect(report.entries).toMatchObject([{ id: reopened.id, action: 'kept', why: 'reopened by a follow-up' }]);
    expect(existsSync(reopened.worktree)).toBe(true);
    expect(existsSync(bench.home.ownerFile(reopened.id))).toBe(false);
    // Live again, it is not looked at at all.
    expect(
      (await collectWorktrees({ home: bench.home, store: bench.store, now: NOW, retentionMs: 0, dryRun: false }))
        .entries,
    ).toEqual([]);
  });
});

describe('restoreRemovedWorktree', () => {
  it('checks the branch out again where gc removed it, and forgets the removal', async () => {
    const record = await ended('pushed', 9, (worktree) => {
      commit(worktree, 'a.txt');
      git(worktree, 'push', '--quiet', 'origin', 'HEAD');
    });
    const head = git(record.worktree, 'rev-parse', 'HEAD');
    expect(await restoreRemovedWorktree(bench.home, record)).toBe(false);
    await collect(false);
    expect(existsSync(record.worktree)).toBe(false);

    expect(await restoreRemovedWorktree(bench.home, record)).toBe(true);

    expect(git(record.worktree, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(record.worktree, 'symbolic-ref', 'HEAD')).toBe(`refs/heads/${record.branch}`);
    expect(git(record.worktree, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(record.worktree, 'a.txt'))).toBe(true);
    expect(await readWorktreeRemoved(bench.home, record.id)).toBeUndefined();
    expect(await restoreRemovedWorktree(bench.home, record)).toBe(false);
  });

  it('says why when the branch is gone', async () => {
    const record = await ended('deleted', 9);
    await collect(false);
    git(bench.repo, 'branch', '-D', record.branch);
    await expect(restoreRemovedWorktree(bench.home, record)).rejects.toThrow(
      new RegExp(`^cannot restore worktree ${record.worktree}: fatal: invalid reference: ${record.branch}$`),
    );
  });
});
