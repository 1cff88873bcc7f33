/**
 * Makes what a cache plan (cache-plan.ts) names, before a harness turn starts: the folders (a
 * sandbox binds only what exists, and a gc may have removed a tool's folder since the last turn),
 * Cargo's shared lock files, the links from the execution's Cargo home into the cache, and Bazel's
 * user rc in the harness's HOME. Idempotent: every turn calls it. A link already there is left as it
 * is (a task that replaced it meant to).
 */
import { closeSync, lstatSync, mkdirSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/home.js';
import type { CachePlan } from './cache-plan.js';

/** Bazel's user rc file, in the HOME the harness runs with. */
export const BAZELRC_FILE = '.bazelrc';

/** Makes `plan`'s folders, files and links, and writes its `.bazelrc` into `harnessHome` when that is absolute. */
export function makeCacheFolders(plan: CachePlan, harnessHome: string | undefined): void {
  for (const dir of plan.dirs) mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // 'a': made when missing, never truncated (another cargo may hold a lock on it).
  for (const file of plan.files) closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  for (const [link, target] of plan.links) {
    if (!exists(link)) symlinkSync(target, link);
  }
  if (harnessHome !== undefined && isAbsolute(harnessHome)) {
    mkdirSync(harnessHome, { recursive: true });
    writeFileSync(join(harnessHome, BAZELRC_FILE), plan.bazelrc, { mode: PRIVATE_FILE_MODE });
  }
}

/** True when something (a link included, even one pointing nowhere) is at `path`. */
function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
