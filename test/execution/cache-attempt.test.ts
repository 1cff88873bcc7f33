/**
 * What a harness turn gets of the task's `caches` (cache-plan.ts through runAttempt): a fake `codex`
 * on PATH writes the variables it saw, its `~/.bazelrc`, where its Cargo home's registry leads, and
 * the shared caches' users while it runs. `shared` points every tool at `HARMFLOW_HOME/caches/`,
 * with Cargo's home, target and Bazel's output root the execution's own; `private` puts all of it
 * under `runs/<execution>/caches/`; `none` sets nothing; the link's own `env` wins over each
 * variable; and a turn does not start while a cache collection holds the caches.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HomePaths, harmflowHome } from '../../src/core/home.js';
import type { CacheMode } from '../../src/core/task.js';
import { AttemptObserver } from '../../src/execution/attempt-observer.js';
import { cachePlan } from '../../src/execution/cache-plan.js';
import { holdForCollection } from '../../src/execution/cache-users.js';
import { Recorder } from '../../src/execution/recorder.js';
import { runAttempt } from '../../src/execution/run-attempt.js';
import { codexAdapter } from '../../src/harnesses/codex/index.js';

const NAMES = [
  'npm_config_cache',
  'pnpm_config_store_dir',
  'YARN_CACHE_FOLDER',
  'YARN_GLOBAL_FOLDER',
  'PIP_CACHE_DIR',
  'GOCACHE',
  'GOMODCACHE',
  'CARGO_HOME',
  'CARGO_TARGET_DIR',
];

/** Says what it saw, then ends its turn. */
const FAKE_CODEX = `#!/usr/bin/env node
const { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const env = Object.fromEntries(${JSON.stringify(NAMES)}.map((name) => [name, process.env[name]]));
const rc = join(process.env.HOME, '.bazelrc');
const users = join(process.env.SHARED_CACHES, '.users');
const registry = process.env.CARGO_HOME && join(process.env.CARGO_HOME, 'registry');
writeFileSync(process.env.SAID, JSON.stringify({
  env,
  bazelrc: existsSync(rc) ? readFileSync(rc, 'utf8') : null,
  registry: registry && existsSync(registry) ? realpathSync(registry) : null,
  users: existsSync(users) ? readdirSync(users) : [],
  startedAt: Date.now(),
}));
console.log(JSON.stringify({ type: 'thread.started', thread_id: 't' }));
console.log(JSON.stringify({ type: 'turn.completed', usage: { input_tokens: 1, output_tokens: 1 } }));
`;

let dir: string;
let home: HomePaths;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'harmflow-cache-attempt-'));
  home = harmflowHome(join(dir, 'home'));
  writeFileSync(join(dir, 'codex'), FAKE_CODEX);
  chmodSync(join(dir, 'codex'), 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Said {
  env: Record<string, string | undefined>;
  bazelrc: string | null;
  registry: string | null;
  users: string[];
  startedAt: number;
}

/** One turn of execution `e1` under `mode`, the link setting `env`; its result. */
async function run(mode: CacheMode | undefined, env: Record<string, string> = {}, deadlineMs = 30_000) {
  const caches = cachePlan(mode, home, 'e1');
  const result = await runAttempt({
    ref: { number: 1, harness: 'codex' },
    adapter: codexAdapter,
    spec: {
      harness: 'codex',
      args: [],
      env: { SAID: join(dir, 'said.json'), SHARED_CACHES: home.caches, ...env },
      passEnv: [],
    },
    prompt: 'hello',
    worktree: dir,
    attemptDir: home.attemptDir('e1', 1),
    deadline: Date.now() + deadlineMs,
    interruptBudgetMs: 2_000,
    path: [dir, dirname(process.execPath)].join(delimiter),
    hostEnv: {},
    recorder: new Recorder({ append: () => {} }, 'e1'),
    observer: new AttemptObserver('t', dir),
    forgeDir: join(dir, 'forge'),
    ...(caches !== undefined && { caches }),
  });
  return result;
}

/** One completed turn (`run`); what the CLI said. */
async function turn(mode: CacheMode | undefined, env: Record<string, string> = {}) {
  expect((await run(mode, env)).outcome).toBe('completed');
  return JSON.parse(readFileSync(join(dir, 'said.json'), 'utf8')) as Said;
}

describe("a turn's caches", () => {
  it('shared: every tool points into HARMFLOW_HOME/caches, what is the execution’s own under its run directory', async () => {
    const said = await turn(undefined);
    const shared = home.caches;
    const own = home.executionCaches('e1');
    expect(said.env).toEqual({
      npm_config_cache: join(shared, 'npm'),
      pnpm_config_store_dir: join(shared, 'pnpm'),
      YARN_CACHE_FOLDER: join(shared, 'yarn', 'cache'),
      YARN_GLOBAL_FOLDER: join(shared, 'yarn', 'global'),
      PIP_CACHE_DIR: join(shared, 'pip'),
      GOCACHE: join(shared, 'go', 'build'),
      GOMODCACHE: join(shared, 'go', 'mod'),
      CARGO_HOME: join(own, 'cargo-home'),
      CARGO_TARGET_DIR: join(own, 'cargo-target'),
    });
    expect(said.registry).toBe(join(shared, 'cargo', 'registry'));
    expect(said.bazelrc).toContain(`startup --output_user_root=${join(own, 'bazel-root')}`);
    expect(said.bazelrc).toContain(`build --disk_cache=${join(shared, 'bazel', 'disk')}`);
    expect(said.bazelrc).toContain(`build --repository_cache=${join(shared, 'bazel', 'repository')}`);
    // Counted as a user while it ran, and no longer once it ended.
    expect(said.users).toHaveLength(1);
    expect(said.users[0]).toMatch(/^e1\.\d+\.\d+$/);
    expect(readdirSync(join(shared, '.users'))).toEqual([]);
  });

  it('private: all of it under runs/<execution>/caches, and no user of the shared caches', async () => {
    const said = await turn('private');
    const own = home.executionCaches('e1');
    for (const value of Object.values(said.env)) expect(value?.startsWith(`${own}/`)).toBe(true);
    expect(said.env.npm_config_cache).toBe(join(own, 'npm'));
    expect(said.registry).toBe(join(own, 'cargo', 'registry'));
    expect(said.bazelrc).toContain(`build --disk_cache=${join(own, 'bazel', 'disk')}`);
    expect(said.users).toEqual([]);
    expect(existsSync(home.caches)).toBe(false);
  });

  it('none: no variable is set and no .bazelrc written', async () => {
    const said = await turn('none');
    expect(said.env).toEqual({});
    expect(said.bazelrc).toBeNull();
    expect(existsSync(home.executionCaches('e1'))).toBe(false);
  });

  it("the link's own env wins over each variable", async () => {
    const said = await turn('shared', { npm_config_cache: '/srv/npm', CARGO_TARGET_DIR: 'target' });
    expect(said.env.npm_config_cache).toBe('/srv/npm');
    expect(said.env.CARGO_TARGET_DIR).toBe('target');
    expect(said.env.GOCACHE).toBe(join(home.caches, 'go', 'build'));
  });

  it('does not start while a cache collection holds the caches, and finds its folders made again after it', async () => {
    await turn('shared');
    const hold = holdForCollection(home.caches);
    if (!('release' in hold)) throw new Error('the collection could not hold the caches');
    const released = Date.now() + 600;
    setTimeout(() => {
      // What the collection removed while the turn waited.
      rmSync(join(home.caches, 'cargo'), { recursive: true, force: true });
      hold.release();
    }, 600);
    const said = await turn('shared');
    expect(said.startedAt).toBeGreaterThanOrEqual(released);
    expect(said.registry).toBe(join(home.caches, 'cargo', 'registry'));
  });

  it('ends timed_out without starting when its deadline passes while a collection holds the caches', async () => {
    const hold = holdForCollection(home.caches);
    if (!('release' in hold)) throw new Error('the collection could not hold the caches');
    try {
      const result = await run('shared', {}, 500);
      expect(result).toMatchObject({ outcome: 'timed_out', exitCode: null });
      expect(existsSync(join(dir, 'said.json'))).toBe(false);
      expect(readdirSync(join(home.caches, '.users'))).toEqual([]);
    } finally {
      hold.release();
    }
  });
});
