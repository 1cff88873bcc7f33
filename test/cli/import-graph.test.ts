/**
 * What the everyday verbs load (issue 24): `--version`, `--help`, `ls`, `show` and `events` read
 * files and print; none of them may load the HTTP server (hono), the terminal UI (ink, react), the
 * cluster's clients (pg, bullmq, ioredis) or the browser driver. A verb's process loads the modules a
 * module hook (scripts/loaded-modules.mjs) lists, plus, when a bundled entry runs it
 * (src/cli/bundled-verbs.ts), the packages the build bundled into that entry or its chunks
 * (dist/cli-bundle/manifest.json). The check is on those lists, not on a time (bench/cli-start.mjs
 * measures the time). Needs dist/ built.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type BundleManifest, entryFor } from '../../src/cli/bundled-verbs.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
const HOOK = fileURLToPath(new URL('../../scripts/loaded-modules.mjs', import.meta.url));
/** Packages only `serve`, `ui`, `worker` and the cluster options need. */
const HEAVY = ['hono', '@hono/node-server', 'ink', 'react', 'pg', 'bullmq', 'ioredis', 'playwright-core'];
const ID = '01jf3k9x7q2m4n6p8r0s2t4v6w';
/** The built entries (src/cli/bundled-verbs.ts's BUNDLE_DIR, as the built bin finds it). */
const BUNDLE_DIR = fileURLToPath(new URL('../../dist/cli-bundle/', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'harmflow-imports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const manifest = JSON.parse(readFileSync(join(BUNDLE_DIR, 'manifest.json'), 'utf8')) as BundleManifest;

/** The node_modules packages the module hook saw `node …argv` import. */
function packagesImported(argv: readonly string[]): Set<string> {
  const list = join(
    dir,
    `${argv
      .join('-')
      .replace(/[^a-z0-9-]/gi, '')
      .slice(-80)}.txt`,
  );
  spawnSync(process.execPath, ['--import', HOOK, ...argv], {
    env: { ...process.env, HARMFLOW_LOADED_MODULES: list, HARMFLOW_HOME: join(dir, 'home') },
    stdio: 'ignore',
  });
  const urls = readFileSync(list, 'utf8').split('\n').filter(Boolean);
  expect(urls.length, `${argv.join(' ')} loaded nothing: the hook did not run`).toBeGreaterThan(0);
  return new Set(urls.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []));
}

/** What `harmflow …args` loads: what it imports, and what its bundled entry holds or loads. */
function packagesOf(args: readonly string[]): Set<string> {
  const loaded = packagesImported([BIN, ...args]);
  const entry = entryFor(manifest, ['node', BIN, ...args]);
  for (const name of (entry && manifest.entries[entry]?.packages) || []) loaded.add(name);
  return loaded;
}

describe('the everyday verbs load only what they need', () => {
  it('the record verbs and --help run from bundled entries; --version needs none', () => {
    expect(['ls', 'show', 'events'].map((verb) => entryFor(manifest, ['node', BIN, verb, ID]))).toEqual([
      'records',
      'records',
      'records',
    ]);
    expect(entryFor(manifest, ['node', BIN, '--help'])).toBe('root-help');
    expect(entryFor(manifest, ['node', BIN, '--version'])).toBe('version');
    expect(entryFor(manifest, ['node', BIN, 'serve'])).toBeUndefined();
  });

  for (const args of [['--version'], ['--help'], ['ls'], ['show', ID], ['events', ID]]) {
    it(`harmflow ${args.join(' ')} loads none of ${HEAVY.join(', ')}`, { timeout: 30_000 }, () => {
      const loaded = packagesOf(args);
      if (args[0] !== '--version') expect(loaded.has('commander')).toBe(true);
      expect(HEAVY.filter((name) => loaded.has(name))).toEqual([]);
    });
  }

  it('sees a package a process does load', { timeout: 30_000 }, () => {
    expect(packagesImported(['--input-type=module', '-e', "await import('hono')"]).has('hono')).toBe(true);
  });

  it("sees the packages bundled into an entry: the terminal UI's holds ink and react", () => {
    expect(manifest.entries.ui?.packages).toEqual(expect.arrayContaining(['ink', 'react', 'commander', 'zod']));
  });

  it('serve checks its options before it loads the service', { timeout: 30_000 }, () => {
    expect(packagesOf(['serve', '--port', 'not-a-port']).has('hono')).toBe(false);
  });
});
