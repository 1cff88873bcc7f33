/**
 * What the everyday verbs load (issue 24): `--version`, `--help`, `ls`, `show` and `events` read
 * files and print; none of them may load the HTTP server (hono), the terminal UI (ink, react), the
 * cluster's clients (pg, bullmq, ioredis) or the browser driver. The built CLI runs with a module
 * hook (scripts/loaded-modules.mjs) that lists every module it imports; the check is on that list,
 * not on a time (bench/cli-start.mjs measures the time). Needs dist/ built.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
const HOOK = fileURLToPath(new URL('../../scripts/loaded-modules.mjs', import.meta.url));
/** Packages only `serve`, `ui`, `worker` and the cluster options need. */
const HEAVY = ['hono', '@hono/node-server', 'ink', 'react', 'pg', 'bullmq', 'ioredis', 'playwright-core'];
const ID = '01jf3k9x7q2m4n6p8r0s2t4v6w';

const dir = mkdtempSync(join(tmpdir(), 'harmflow-imports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The node_modules packages `node …argv` loads. */
function packagesOf(argv: readonly string[]): Set<string> {
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

describe('the everyday verbs load only what they need', () => {
  for (const args of [['--version'], ['--help'], ['ls'], ['show', ID], ['events', ID]]) {
    it(`harmflow ${args.join(' ')} loads none of ${HEAVY.join(', ')}`, { timeout: 30_000 }, () => {
      const loaded = packagesOf([BIN, ...args]);
      expect(loaded.has('commander')).toBe(true);
      expect(HEAVY.filter((name) => loaded.has(name))).toEqual([]);
    });
  }

  it('sees a package a process does load', { timeout: 30_000 }, () => {
    expect(packagesOf(['--input-type=module', '-e', "await import('hono')"]).has('hono')).toBe(true);
  });

  it('serve checks its options before it loads the service', { timeout: 30_000 }, () => {
    expect(packagesOf([BIN, 'serve', '--port', 'not-a-port']).has('hono')).toBe(false);
  });
});
