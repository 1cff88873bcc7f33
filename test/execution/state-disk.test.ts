/**
 * What the state directory takes (execution-disk.ts `stateDisk`), the figures admission shows: the
 * worktrees, the run directories (an execution's own build folders counted there) and the shared
 * caches, in all and tool by tool, each measured apart.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HomePaths, harmflowHome } from '../../src/core/home.js';
import { stateDisk } from '../../src/execution/execution-disk.js';
import { diskUsage } from '../../src/workspace/disk-usage.js';

let home: HomePaths;
beforeEach(() => {
  home = harmflowHome(mkdtempSync(join(tmpdir(), 'harmflow-state-disk-')));
});
afterEach(() => rmSync(home.root, { recursive: true, force: true }));

function fill(dir: string, bytes: number): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'blob'), Buffer.alloc(bytes, 1));
}

describe('stateDisk', () => {
  it('counts the shared caches tool by tool, apart from the worktrees and the run directories', async () => {
    fill(join(home.caches, 'npm', '_cacache'), 300_000);
    fill(join(home.caches, 'go', 'build'), 100_000);
    fill(home.worktree('e1'), 50_000);
    fill(join(home.executionCaches('e1'), 'cargo-target'), 70_000);

    const disk = await stateDisk(home);

    const npm = await diskUsage(join(home.caches, 'npm'));
    const go = await diskUsage(join(home.caches, 'go'));
    expect(npm).toBeGreaterThanOrEqual(300_000);
    expect(disk.caches).toEqual({ npm, pnpm: 0, yarn: 0, pip: 0, go, cargo: 0, bazel: 0 });
    expect(disk.cachesBytes).toBe(npm + go);
    expect(disk.worktreesBytes).toBe(await diskUsage(home.worktree('e1')));
    expect(disk.runsBytes).toBeGreaterThanOrEqual(70_000);
    expect(disk.runsBytes).toBe(await diskUsage(home.runDir('e1')));
  });

  it('is all zeros for a state directory with nothing in it yet', async () => {
    const disk = await stateDisk(home);
    expect(disk).toEqual({
      worktreesBytes: 0,
      runsBytes: 0,
      cachesBytes: 0,
      caches: { npm: 0, pnpm: 0, yarn: 0, pip: 0, go: 0, cargo: 0, bazel: 0 },
    });
  });
});
