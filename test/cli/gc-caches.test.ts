/**
 * `harmflow gc` and the shared caches, as users run it (the built bin, a real state directory):
 * within the limit one line says so; over `--cache-limit-gib` the dry run lists the tool folders,
 * written longest ago first, and what would go, changing nothing; the real run removes them and
 * `--json` gives the report under `caches`; a limit that is not a size exits 2. Needs dist/ built.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/core/errors.js';
import { type HomePaths, harmflowHome } from '../../src/core/home.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));

let home: HomePaths;
beforeEach(() => {
  home = harmflowHome(mkdtempSync(join(tmpdir(), 'harmflow-gc-caches-')));
  // An old pip cache and a fresh npm one, 1 MiB each.
  for (const [tool, daysAgo] of [
    ['pip', 20],
    ['npm', 1],
  ] as const) {
    const folder = join(home.caches, tool);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'blob'), Buffer.alloc(1024 ** 2, 1));
    const at = Date.now() / 1000 - daysAgo * 86_400;
    utimesSync(join(folder, 'blob'), at, at);
    utimesSync(folder, at, at);
  }
});
afterEach(() => rmSync(home.root, { recursive: true, force: true }));

function harmflow(...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HARMFLOW_HOME: home.root },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const STAMP = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`;

describe('harmflow gc and the shared caches', () => {
  it('says they fit within the default limit', () => {
    const { code, stdout } = harmflow('gc', '--dry-run');
    expect(code).toBe(EXIT.ok);
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/^shared caches 2\.0 MiB, within the 10\.0 GiB limit$/);
  });

  it('--dry-run over the limit lists the tool folders, oldest first, and what would go; the real run removes it', () => {
    const dry = harmflow('gc', '--dry-run', '--cache-limit-gib', '0.0015');
    expect(dry.code).toBe(EXIT.ok);
    expect(dry.stdout.trimEnd().split('\n').slice(-3)).toEqual([
      expect.stringMatching(new RegExp(`^would remove  cache pip +1\\.0 MiB  written ${STAMP}$`)),
      expect.stringMatching(new RegExp(`^kept {10}cache npm +1\\.0 MiB  written ${STAMP}$`)),
      'shared caches 2.0 MiB, over the 1.5 MiB limit: would reclaim 1.0 MiB from 1 tool folder',
    ]);
    expect(existsSync(join(home.caches, 'pip'))).toBe(true);

    const real = JSON.parse(harmflow('gc', '--cache-limit-gib', '0.0015', '--json').stdout) as {
      caches: { entries: { tool: string; action: string }[]; reclaimedBytes: number };
    };
    expect(real.caches.entries.map((entry) => [entry.tool, entry.action])).toEqual([
      ['pip', 'removed'],
      ['npm', 'kept'],
    ]);
    expect(real.caches.reclaimedBytes).toBeGreaterThanOrEqual(1024 ** 2);
    expect(existsSync(join(home.caches, 'pip'))).toBe(false);
    expect(existsSync(join(home.caches, 'npm', 'blob'))).toBe(true);
  });

  it('refuses a limit that is not a size', () => {
    const bad = harmflow('gc', '--cache-limit-gib', 'lots');
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toBe('harmflow: --cache-limit-gib: not a size: lots\n');
  });
});
