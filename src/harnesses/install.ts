/**
 * Installs the verified harness CLIs into a cache folder outside HarmFlow's own package (they are not
 * dependencies of `harmflow`: each is a few hundred MB), one folder per CLI and version, reused
 * between runs; and finds which CLI, of which version, a PATH holds.
 *
 * The cache is `$HARMFLOW_HARNESS_CACHE`, else `$XDG_CACHE_HOME/harmflow/harnesses`, else
 * `~/.cache/harmflow/harnesses`. An install goes to a temporary folder first and is renamed into
 * place only when npm succeeded, so a half-finished install is never used.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { HarmflowError } from '../core/errors.js';
import type { HarnessName } from '../core/outcome.js';
import { runCommand } from '../proc/run.js';
import { findExecutable } from '../proc/which.js';
import { getAdapter } from './registry.js';
import { VERIFIED_VERSION } from './verified.js';

/** npm took ~20 s per CLI here; 10 minutes allows a slow registry without hanging forever. */
const INSTALL_TIMEOUT_MS = 10 * 60_000;

/** `--version` answers in well under a second; Gemini's JS launcher is the slowest at ~1 s. */
const VERSION_TIMEOUT_MS = 20_000;

/** An install that failed: npm's own last line says why. */
export class HarnessInstallError extends HarmflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 1, options);
  }
}

/** The cache folder for installed harness CLIs. */
export function harnessCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HARMFLOW_HARNESS_CACHE) return env.HARMFLOW_HARNESS_CACHE;
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'harmflow', 'harnesses');
}

/** The folder holding the verified CLI's executable once installed in `cache`. */
export function cachedBinDir(harness: HarnessName, cache: string = harnessCacheDir()): string {
  const { npmPackage } = getAdapter(harness);
  const version = VERIFIED_VERSION[harness];
  return join(cache, `${npmPackage.replace('/', '+')}@${version}`, 'node_modules', '.bin');
}

export interface InstallResult {
  readonly harness: HarnessName;
  readonly binDir: string;
  /** False when it was already in the cache. */
  readonly installed: boolean;
}

/** Installs the verified version of `harness` into `cache` unless it is there already. */
export async function installHarness(harness: HarnessName, cache: string = harnessCacheDir()): Promise<InstallResult> {
  const { npmPackage, binary } = getAdapter(harness);
  const version = VERIFIED_VERSION[harness];
  const binDir = cachedBinDir(harness, cache);
  if (existsSync(join(binDir, binary))) return { harness, binDir, installed: false };
  const target = join(binDir, '..', '..');
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(cache, '.install-'));
  try {
    writeFileSync(join(staging, 'package.json'), '{"name":"harmflow-harness","private":true}\n');
    // --omit=optional would drop the platform package that carries the native binary (note §1).
    const npm = await runCommand(
      'npm',
      ['install', '--no-audit', '--no-fund', '--save-exact', `${npmPackage}@${version}`],
      { cwd: staging, timeoutMs: INSTALL_TIMEOUT_MS },
    );
    if (npm.exitCode !== 0 || !existsSync(join(staging, 'node_modules', '.bin', binary))) {
      const why = npm.timedOut ? 'timed out' : (npm.stderr.trim().split('\n').at(-1) ?? `exit ${npm.exitCode}`);
      throw new HarnessInstallError(`cannot install ${npmPackage}@${version}: ${why}`);
    }
    renameSync(staging, target);
    return { harness, binDir, installed: true };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

export interface FoundHarness {
  readonly harness: HarnessName;
  readonly binary: string;
  /** Absolute path of the executable found on the PATH; absent when none is. */
  readonly path?: string;
  /** What `<binary> --version` printed, reduced to x.y.z; absent when it said nothing usable. */
  readonly version?: string;
  readonly verifiedVersion: string;
  readonly verified: boolean;
}

/** Finds `harness`'s CLI on `searchPath` and asks it its version (in a throwaway HOME). */
export async function findHarness(harness: HarnessName, searchPath: string): Promise<FoundHarness> {
  const { binary } = getAdapter(harness);
  const verifiedVersion = VERIFIED_VERSION[harness];
  const path = findExecutable(binary, searchPath);
  if (path === undefined) return { harness, binary, verifiedVersion, verified: false };
  const home = mkdtempSync(join(tmpdir(), 'harmflow-version-'));
  try {
    const answer = await runCommand(path, ['--version'], {
      cwd: home,
      env: { PATH: searchPath, HOME: home, LANG: 'C.UTF-8' },
      timeoutMs: VERSION_TIMEOUT_MS,
    });
    const version = /\d+\.\d+\.\d+/.exec(answer.stdout)?.[0];
    return {
      harness,
      binary,
      path,
      ...(version !== undefined && { version }),
      verifiedVersion,
      verified: version === verifiedVersion,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
