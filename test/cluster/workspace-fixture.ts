/**
 * Fixtures for the cluster workspace tests: a "remote" (a bare repository reached by its absolute
 * path, as a worker reaches a URL), tasks naming it, machines (a state directory and a mirror cache
 * each), and the suites run once per store — SQLite, and PostgreSQL when the test server answers
 * (test/store/postgres.ts).
 */
import { join } from 'node:path';
import { afterEach, describe } from 'vitest';
import { type HomePaths, harmflowHome } from '../../src/core/home.js';
import { resolveTask, type Task, TaskFile } from '../../src/core/task.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL, testSchemas } from '../store/postgres.js';
import { commitAll, sh, tempDirs, write } from '../workspace/helpers.js';

export const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** A bare remote whose `main` holds README.md and a.txt, with an annotated tag `v1` on it. */
export async function newRemote(): Promise<{ readonly remote: string; readonly work: string; readonly main: string }> {
  const work = await dirs.repo();
  await write(work, 'a.txt', 'a\n');
  const main = commitAll(work, 'a');
  sh(work, 'tag', '-a', 'v1', '-m', 'version 1');
  const remote = await dirs.remote(work, 'origin');
  sh(work, 'push', '-q', 'origin', 'main', 'v1');
  return { remote, work, main };
}

/** The git identity a cluster task's links give in their env (an API node refuses a link without one). */
export const CLUSTER_IDENTITY = { GIT_AUTHOR_NAME: 'Cluster Test', GIT_AUTHOR_EMAIL: 'cluster@harmflow.invalid' };

/** A task on `repo` at `baseRef`, with a 10 min timeout, its one link giving the git identity. */
export function clusterTask(repo: string, baseRef = 'HEAD'): Task {
  const file = TaskFile.parse({
    name: 'fix',
    repo,
    baseRef,
    prompt: 'fix it',
    harness: { harness: 'codex', env: CLUSTER_IDENTITY },
    timeout: '10m',
  });
  return resolveTask(file, (path) => path);
}

/** A worker's machine: its own state directory and mirror cache. */
export interface Machine {
  readonly home: HomePaths;
  readonly cacheDir: string;
}

export async function newMachine(): Promise<Machine> {
  const root = await dirs.make();
  return { home: harmflowHome(join(root, 'home')), cacheDir: join(root, 'cache') };
}

/**
 * Declares `suite` once per store; `openStore` opens a new, empty store, closed after the test.
 * Call at the top level of a test file.
 */
export function describeEachStore(suite: (openStore: () => Promise<Store>) => void): void {
  describe('with the SQLite store', () => {
    const open = closedAfterEach();
    suite(() => open(async () => openSqliteStore(join(await dirs.make(), 'harmflow.db'))));
  });
  describe.runIf(POSTGRES_AVAILABLE)('with the PostgreSQL store', () => {
    const schemas = testSchemas();
    // Registered after the schemas' hooks, so the stores close before their schemas are dropped.
    const open = closedAfterEach();
    suite(() => open(() => openPostgresStore(TEST_POSTGRES_URL, { schema: schemas.newSchema() })));
  });
}

function closedAfterEach(): (opener: () => Promise<Store>) => Promise<Store> {
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });
  return async (opener) => {
    const store = await opener();
    stores.push(store);
    return store;
  };
}
