/**
 * The shared caches' collector (src/execution/cache-gc.ts) on real folders: under the limit it
 * removes nothing; over it, whole tool folders go, the one written longest ago first, until the rest
 * fit; a dry run says the same and changes nothing; while a harness turn uses the caches (a live
 * user file, cache-users.ts) nothing goes, and a user file of a process that is gone is ignored and
 * tidied away; a read-only tree (Go's module cache) goes all the same.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HomePaths, harmflowHome } from '../../src/core/home.js';
import { collectCaches } from '../../src/execution/cache-gc.js';
import { useSharedCaches } from '../../src/execution/cache-users.js';

const KiB = 1024;
const DAY_S = 86_400;

let home: HomePaths;
beforeEach(() => {
  home = harmflowHome(mkdtempSync(join(tmpdir(), 'harmflow-cache-gc-')));
});
afterEach(() => rmSync(home.root, { recursive: true, force: true }));

/** Fills `caches/<tool>` with `kib` KiB, every entry last written `daysAgo` days ago. */
function cache(tool: string, kib: number, daysAgo: number): string {
  const folder = join(home.caches, tool, 'content');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'blob'), Buffer.alloc(kib * KiB, 1));
  const at = Date.now() / 1000 - daysAgo * DAY_S;
  for (const path of [join(folder, 'blob'), folder, join(home.caches, tool)]) utimesSync(path, at, at);
  return join(home.caches, tool);
}

const tools = () =>
  readdirSync(home.caches)
    .filter((name) => !name.startsWith('.'))
    .sort();

describe('collectCaches', () => {
  it('removes nothing while the caches fit under the limit', async () => {
    cache('npm', 100, 3);
    cache('go', 100, 1);
    const report = await collectCaches({ home, limitBytes: 1024 * KiB, dryRun: false });
    expect(report.entries.map((entry) => [entry.tool, entry.action])).toEqual([
      ['npm', 'kept'],
      ['go', 'kept'],
    ]);
    expect(report.reclaimedBytes).toBe(0);
    expect(tools()).toEqual(['go', 'npm']);
  });

  it('removes whole tool folders, written longest ago first, until the rest fit; a dry run only says so', async () => {
    cache('npm', 400, 1);
    cache('pip', 400, 30);
    cache('go', 400, 10);
    cache('cargo', 400, 5);

    const dry = await collectCaches({ home, limitBytes: 900 * KiB, dryRun: true });
    expect(dry.entries.map((entry) => [entry.tool, entry.action])).toEqual([
      ['pip', 'would-remove'],
      ['go', 'would-remove'],
      ['cargo', 'kept'],
      ['npm', 'kept'],
    ]);
    expect(tools()).toEqual(['cargo', 'go', 'npm', 'pip']);

    const report = await collectCaches({ home, limitBytes: 900 * KiB, dryRun: false });
    expect(report.entries.map((entry) => [entry.tool, entry.action])).toEqual([
      ['pip', 'removed'],
      ['go', 'removed'],
      ['cargo', 'kept'],
      ['npm', 'kept'],
    ]);
    expect(report.totalBytes).toBeGreaterThan(1600 * KiB);
    expect(report.totalBytes - report.reclaimedBytes).toBeLessThanOrEqual(900 * KiB);
    expect(tools()).toEqual(['cargo', 'npm']);
    expect(readdirSync(home.caches).filter((name) => name.startsWith('.removing-'))).toEqual([]);
  });

  it('removes nothing while a harness turn uses the caches, and says so; a dry run says it too', async () => {
    cache('npm', 400, 1);
    cache('pip', 400, 30);
    const release = await useSharedCaches(home.caches, 'e1');
    try {
      const dry = await collectCaches({ home, limitBytes: 500 * KiB, dryRun: true });
      expect(dry.skipped).toBe('in use by 1 running harness turn now: a real run would wait for none');
      const report = await collectCaches({ home, limitBytes: 500 * KiB, dryRun: false });
      expect(report.skipped).toBe('in use by 1 running harness turn');
      expect(report.entries.find((entry) => entry.tool === 'pip')).toMatchObject({
        action: 'kept',
        why: 'in use by 1 running harness turn',
      });
      expect(report.reclaimedBytes).toBe(0);
      expect(tools()).toEqual(['npm', 'pip']);
    } finally {
      release();
    }
    const after = await collectCaches({ home, limitBytes: 500 * KiB, dryRun: false });
    expect(after.entries.find((entry) => entry.tool === 'pip')?.action).toBe('removed');
  });

  it('takes a user file of a process that is gone for no user, and removes it', async () => {
    cache('pip', 400, 30);
    mkdirSync(join(home.caches, '.users'), { recursive: true });
    // pid 2^22+1 is above Linux's pid_max: no such process.
    writeFileSync(join(home.caches, '.users', 'e9.4194305.1'), '4194305 123\n');
    const report = await collectCaches({ home, limitBytes: 100 * KiB, dryRun: false });
    expect(report.skipped).toBeUndefined();
    expect(tools()).toEqual([]);
    expect(readdirSync(join(home.caches, '.users'))).toEqual([]);
  });

  it('removes a read-only tree, as Go leaves its module cache', async () => {
    const go = cache('go', 400, 3);
    const module = join(go, 'mod', 'example.com@v1.0.0');
    mkdirSync(module, { recursive: true });
    writeFileSync(join(module, 'go.mod'), 'module example.com\n');
    chmodSync(join(module, 'go.mod'), 0o444);
    chmodSync(module, 0o555);
    const report = await collectCaches({ home, limitBytes: 0, dryRun: false });
    expect(report.entries).toMatchObject([{ tool: 'go', action: 'removed' }]);
    expect(existsSync(go)).toBe(false);
  });
});
