/**
 * The everyday verbs run from bundles: `--version`, `--help` and the verbs of the record,
 * terminal-UI and workflow entries (`ls`, `show`, `events`, `context`, `ui`, `workflow`). Each entry
 * is one minified file in dist/cli-bundle/ that holds only its verbs' code, zod and commander
 * included (scripts/bundle.mjs,
 * part of `npm run build`), so a verb does not load the other verbs' modules one by one — the cost
 * that made every verb take 5–6× a bare Node start (BENCHMARKS.md, "CLI verb start").
 *
 * Each entry is CommonJS; it and its chunks are compiled with V8's code cache, kept beside them, one
 * per verb (`<file>.<verb>.cache`: a cache holds the functions the run that wrote it compiled, and
 * `events` runs other functions than `ls`). A verb's first run after a build, or on another Node,
 * compiles and writes its caches (atomically, best effort — a read-only install runs without them);
 * later runs skip the compiling. (The terminal UI's entry is CommonJS too: the build gives Ink a
 * yoga that loads without a top-level await, src/tui/deferred-yoga.ts. Code run from a code cache
 * cannot call `import()`, so each entry gets this module's: core/module-importer.ts.)
 *
 * bin/harmflow.js calls `runBundledVerb` first; `false` means the verb has no entry or the bundles
 * are not built, and the whole program (cli/main.ts) runs it. Both run verbs through cli/run-cli.ts.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import type { VerbSummary } from './root-help.js';

/** Where scripts/bundle.mjs writes the entries and their manifest. */
export const BUNDLE_DIR = fileURLToPath(new URL('../cli-bundle/', import.meta.url));

/** The name of the entry that prints the root help. */
export const ROOT_HELP_ENTRY = 'root-help';

/** One bundled entry: its CommonJS file in BUNDLE_DIR, its verbs and what it holds. */
export interface BundledEntry {
  readonly file: string;
  readonly verbs: readonly string[];
  /** The node_modules packages bundled into it or its chunks, or loaded from node_modules by them. */
  readonly packages: readonly string[];
}

/** dist/cli-bundle/manifest.json: written by the build, read by every start (so no zod here). */
export interface BundleManifest {
  readonly version: string;
  readonly verbs: readonly VerbSummary[];
  readonly entries: Readonly<Record<string, BundledEntry>>;
}

/**
 * What each entry exports: runs its verbs on `argv`; `verbs` feeds the root help; `importModule` is
 * this module's own `import()`, which code run from a code cache cannot call (core/module-importer.ts).
 */
type EntryMain = (
  argv: readonly string[],
  verbs: readonly VerbSummary[],
  importModule: (url: string) => Promise<unknown>,
) => Promise<void>;

/** Runs `argv`'s verb from its bundle; false when it has none (the whole program runs it). */
export async function runBundledVerb(argv: readonly string[]): Promise<boolean> {
  const manifest = readManifest();
  if (manifest === undefined) return false;
  const entryName = entryFor(manifest, argv);
  if (entryName === 'version') {
    process.stdout.write(`${manifest.version}\n`);
    return true;
  }
  const entry = entryName === undefined ? undefined : manifest.entries[entryName];
  if (entry === undefined) return false;
  const main = requireWithCodeCache(join(BUNDLE_DIR, entry.file), cacheKey(argv)).main as EntryMain;
  await main(argv, manifest.verbs, (url) => import(url));
  return true;
}

/** The entry that runs `argv` (`version` for a bare `--version`), or undefined. */
export function entryFor(manifest: BundleManifest, argv: readonly string[]): string | undefined {
  const verb = argv[2];
  if (verb === undefined) return undefined;
  if (argv.length === 3 && (verb === '--version' || verb === '-V')) return 'version';
  if (argv.length === 3 && (verb === '--help' || verb === '-h')) return ROOT_HELP_ENTRY;
  return Object.keys(manifest.entries).find((name) => manifest.entries[name]?.verbs.includes(verb));
}

function readManifest(): BundleManifest | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(BUNDLE_DIR, 'manifest.json'), 'utf8')) as BundleManifest;
    return typeof manifest.version === 'string' && typeof manifest.entries === 'object' ? manifest : undefined;
  } catch {
    return undefined; // not built (a `tsc` alone): the whole program runs every verb
  }
}

/** The bundle files this process has run, by path: a chunk two entries share runs once. */
const loaded = new Map<string, Record<string, unknown>>();

/**
 * Loads the CommonJS file `file` as `require` would, compiling it with its code cache for `key` when
 * V8 accepts that cache, and writing a fresh one when the process exits if it had none or V8
 * rejected it (another Node, another build). The chunks it requires (`./…`) load the same way.
 * Returns its exports.
 */
function requireWithCodeCache(file: string, key: string): Record<string, unknown> {
  const known = loaded.get(file);
  if (known !== undefined) return known;
  const cacheFile = `${file}.${key}.cache`;
  const cachedData = readIfPresent(cacheFile);
  const source = readFileSync(file, 'utf8');
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  if (cachedData === undefined || script.cachedDataRejected) {
    // At exit, so the cache holds every function this run compiled, not only the top level.
    process.once('exit', () => writeAtomically(cacheFile, script.createCachedData()));
  }
  const module = { exports: {} as Record<string, unknown> };
  loaded.set(file, module.exports);
  const nodeRequire = createRequire(file);
  const require = (id: string) =>
    id.startsWith('./') ? requireWithCodeCache(join(dirname(file), id), key) : nodeRequire(id);
  script.runInThisContext()(module.exports, require, module, file, dirname(file));
  loaded.set(file, module.exports);
  return module.exports;
}

/** Which code caches a run uses: its verb's (`help` for the root help). */
function cacheKey(argv: readonly string[]): string {
  const verb = argv[2] ?? '';
  return /^[a-z][a-z-]*$/.test(verb) ? verb : 'help';
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Writes `data` to `file` through a temporary file and a rename; a failure only costs the cache. */
function writeAtomically(file: string, data: Buffer): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, data);
    renameSync(temporary, file);
  } catch {
    rmSync(temporary, { force: true }); // a read-only install: the next run compiles again
  }
}
