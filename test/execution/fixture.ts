/**
 * Fixtures for the engine tests: a real temporary repository (a tiny project with a passing test
 * suite) pushed to a bare origin, a forge folder, a state directory and a SQLite store — and a
 * runner that writes scenario files and runs a task through the real engine with the simulator.
 * Needs dist/ built (`npm run build`): the simulator runs from there.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { type HomePaths, harmflowHome } from '../../src/core/home.js';
import { resolveTask, type Task, TaskFile } from '../../src/core/task.js';
import { type EngineOptions, type ExecutionResult, runTask } from '../../src/execution/engine.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FORGE_BIN = join(ROOT, 'bin', 'forge');

export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'Engine Test',
  GIT_AUTHOR_EMAIL: 'engine@harmflow.invalid',
  GIT_COMMITTER_NAME: 'Engine Test',
  GIT_COMMITTER_EMAIL: 'engine@harmflow.invalid',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...GIT_IDENTITY },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

export interface Bench {
  readonly dir: string;
  readonly repo: string;
  readonly origin: string;
  readonly forgeDir: string;
  readonly home: HomePaths;
  readonly store: Store;
  /** Writes a scenario file and returns its path. */
  scenario(name: string, scenario: unknown): string;
  /** A task from task-file fields (validated like a file), paths relative to the bench folder. */
  task(fields: Record<string, unknown>): Task;
  /** Runs `task` through the engine with the simulator's environment. */
  run(task: Task, options?: Partial<EngineOptions>): Promise<ExecutionResult>;
  cleanup(): Promise<void>;
}

/** Creates a bench: repo `main` with package.json ("test": "node --test") and one passing test. */
export function makeBench(): Bench {
  if (!existsSync(join(ROOT, 'dist/simulators/sim/main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` before the engine tests');
  }
  const dir = mkdtempSync(join(tmpdir(), 'harmflow-engine-'));
  const repo = join(dir, 'repo');
  const origin = join(dir, 'origin.git');
  const forgeDir = join(dir, 'forge');
  mkdirSync(forgeDir);
  mkdirSync(join(repo, 'test'), { recursive: true });
  writeFileSync(
    join(repo, 'package.json'),
    JSON.stringify({ name: 'fixture', type: 'module', scripts: { test: 'node --test' } }),
  );
  writeFileSync(join(repo, 'test', 'one.test.js'), "import { test } from 'node:test';\ntest('one', () => {});\n");
  git(dir, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
  git(dir, 'init', '--quiet', '--initial-branch=main', repo);
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'initial');
  git(repo, 'remote', 'add', 'origin', origin);
  git(repo, 'push', '--quiet', '-u', 'origin', 'main');
  const home = harmflowHome(join(dir, 'home'));
  mkdirSync(home.root, { recursive: true });
  const store = openSqliteStore(home.database);
  return {
    dir,
    repo,
    origin,
    forgeDir,
    home,
    store,
    scenario(name, scenario) {
      const file = join(dir, `${name}.scenario.yaml`);
      writeFileSync(file, stringify(scenario));
      return file;
    },
    task(fields) {
      const file = TaskFile.parse({
        name: 'test-task',
        repo: 'repo',
        baseRef: 'main',
        prompt: 'Do the work.',
        ...fields,
      });
      return resolveTask(file, (path) => resolve(dir, path));
    },
    run(task, options = {}) {
      return runTask(task, {
        home,
        store,
        extraPath: [FORGE_BIN],
        hostEnv: { ...process.env, ...GIT_IDENTITY, HARMFLOW_FORGE_DIR: forgeDir },
        interruptBudgetMs: 1_000,
        ...options,
      });
    },
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A chain link played by the simulator from `scenario`, with the git identity and forge passed in. */
export function simulated(harness: 'claude-code' | 'codex', scenario: string): Record<string, unknown> {
  return { harness, simulate: scenario, passEnv: ['HARMFLOW_FORGE_DIR', ...Object.keys(GIT_IDENTITY)] };
}
