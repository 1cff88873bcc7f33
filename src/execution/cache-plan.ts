/**
 * Where an execution's harnesses keep their package and build caches (the task's `caches`,
 * docs/worktrees.md "Caches"): the environment variables that point npm, pnpm, Yarn, pip, Go, Cargo
 * and Bazel at HarmFlow's folders, the folders to make before the harness starts (and to bind
 * writable in its sandbox), the links that give the execution's own Cargo home the shared registry,
 * and the `~/.bazelrc` that gives Bazel its caches (Bazel reads no environment variable for them).
 * Pure: says what, makes nothing (run-attempt.ts makes it).
 *
 * `shared`: the tools' caches under `HARMFLOW_HOME/caches/<tool>`, used by every such execution.
 * `private`: the same folders under the execution's `runs/<execution>/caches/`. Either way, what is
 * the execution's alone — Cargo's home (its config, credentials and installed binaries) and target
 * directory, Bazel's output root — is under `runs/<execution>/caches/`, removed with the worktree
 * (worktree-gc.ts). `none`: nothing; the tools use their defaults, in the attempt's private home.
 */
import { join } from 'node:path';
import type { HomePaths } from '../core/home.js';
import type { CacheMode } from '../core/task.js';

/** The tools whose caches HarmFlow places: one folder each under the cache root, in this order. */
export const CACHE_TOOLS = ['npm', 'pnpm', 'yarn', 'pip', 'go', 'cargo', 'bazel'] as const;
export type CacheTool = (typeof CACHE_TOOLS)[number];

/**
 * What Cargo keeps in its home that is a cache, shared through links from the execution's own home:
 * the registry (index, `.crate` files, unpacked sources), git dependencies, and the two lock files
 * Cargo takes around them (`.package-cache`, `.package-cache-mutate`: cargo's CacheLocker), so that
 * two executions' cargos lock the same files. The rest of CARGO_HOME (config.toml, credentials.toml,
 * bin/) stays the execution's own: a config one agent wrote never runs in another execution.
 */
const CARGO_SHARED = ['registry', 'git', '.package-cache', '.package-cache-mutate'] as const;
const CARGO_SHARED_FILES: ReadonlySet<string> = new Set(['.package-cache', '.package-cache-mutate']);

export interface CachePlan {
  readonly mode: Exclude<CacheMode, 'none'>;
  readonly execution: string;
  /** The variables the harness gets, under its task's own `env` (the task wins). */
  readonly env: Readonly<Record<string, string>>;
  /** Folders made before each turn (each tool's, the execution's own). */
  readonly dirs: readonly string[];
  /**
   * What the sandbox binds writable: each tool's folder and the execution's own folder — never the
   * cache root itself, whose `.users/` and `.gc` (cache-users.ts) an agent must not touch.
   */
  readonly writable: readonly string[];
  /** Files made (empty) before each turn when missing: the shared Cargo lock files. */
  readonly files: readonly string[];
  /** Symbolic links made before each turn, `[link, target]`: the execution's Cargo home into the cache. */
  readonly links: readonly (readonly [string, string])[];
  /** The `.bazelrc` written into the harness's HOME (Bazel's user rc file). */
  readonly bazelrc: string;
  /** The folder whose tools' caches other executions share: `caches/` for `shared`; absent for `private`. */
  readonly sharedRoot?: string;
}

/** The cache plan of execution `execution` under `mode` (absent: `shared`); undefined for `none`. */
export function cachePlan(mode: CacheMode | undefined, home: HomePaths, execution: string): CachePlan | undefined {
  if (mode === 'none') return undefined;
  const own = home.executionCaches(execution);
  const root = mode === 'private' ? own : home.caches;
  const tool = (name: CacheTool, ...parts: string[]) => join(root, name, ...parts);
  const cargoHome = join(own, 'cargo-home');
  const bazelRoot = join(own, 'bazel-root');
  const env = {
    npm_config_cache: tool('npm'),
    // pnpm reads its settings from pnpm_config_* variables; npm_config_store_dir would make npm
    // itself warn `Unknown env config "store-dir"` on every command.
    pnpm_config_store_dir: tool('pnpm'),
    YARN_CACHE_FOLDER: tool('yarn', 'cache'),
    YARN_GLOBAL_FOLDER: tool('yarn', 'global'),
    PIP_CACHE_DIR: tool('pip'),
    GOCACHE: tool('go', 'build'),
    GOMODCACHE: tool('go', 'mod'),
    CARGO_HOME: cargoHome,
    CARGO_TARGET_DIR: join(own, 'cargo-target'),
  };
  const cargoDirs = CARGO_SHARED.filter((name) => !CARGO_SHARED_FILES.has(name)).map((name) => tool('cargo', name));
  const bazelDisk = tool('bazel', 'disk');
  const bazelRepository = tool('bazel', 'repository');
  const dirs = [
    ...Object.entries(env)
      .filter(([name]) => name !== 'CARGO_HOME')
      .map(([, path]) => path),
    cargoHome,
    ...cargoDirs,
    bazelDisk,
    bazelRepository,
    bazelRoot,
  ];
  return {
    mode: mode ?? 'shared',
    execution,
    env,
    dirs,
    writable: [...new Set([...CACHE_TOOLS.map((name) => tool(name)), own])],
    files: [...CARGO_SHARED_FILES].map((name) => tool('cargo', name)),
    links: CARGO_SHARED.map((name) => [join(cargoHome, name), tool('cargo', name)] as const),
    bazelrc: bazelrcText(bazelRoot, bazelDisk, bazelRepository),
    ...(mode !== 'private' && { sharedRoot: home.caches }),
  };
}

/**
 * Bazel's user rc: its output root (the per-workspace server and build outputs, never shared: two
 * Bazel servers in one output base break each other, bazelbuild/bazel#12591, #16645) in the
 * execution's folder, and the action (`--disk_cache`) and download (`--repository_cache`) caches,
 * both content-addressed, in the cache folder. `build` lines also apply to `test` and `run`.
 */
function bazelrcText(outputRoot: string, disk: string, repository: string): string {
  return [
    '# Written by HarmFlow (docs/worktrees.md, "Caches"); the task\'s `caches: none` leaves it out.',
    `startup --output_user_root=${outputRoot}`,
    `build --disk_cache=${disk}`,
    ...['build', 'fetch', 'query'].map((command) => `${command} --repository_cache=${repository}`),
    '',
  ].join('\n');
}
