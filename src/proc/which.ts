/**
 * `findExecutable` locates a command the way a shell would before HarmFlow starts it, so a missing
 * harness CLI is reported as "not installed" up front rather than as a failed attempt.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/**
 * Returns the absolute path of the first regular file named `name` that the current user may
 * execute, searching the directories of `searchPath` (a PATH value) in order; undefined when there
 * is none. A name containing `/` is checked as a path (relative to the cwd) without searching.
 * Empty and relative PATH entries are skipped: they would depend on whatever the cwd is.
 */
export function findExecutable(name: string, searchPath: string): string | undefined {
  if (name.includes('/')) {
    const path = resolve(name);
    return isExecutableFile(path) ? path : undefined;
  }
  for (const dir of searchPath.split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
