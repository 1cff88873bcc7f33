/**
 * Symbolic links a command line makes before it uses them: `ln -s /outside l && echo x > l/f` writes
 * outside, though `l` does not exist yet when the gates look. `linksMade` reads the `ln -s` commands
 * before a command; `throughLinksMade` takes a path the file system could not follow (it does not
 * exist yet) through them, as the kernel will once they exist. Reads the file system only to follow
 * links (`paths.ts`) and to tell a directory destination of `ln` from a new name.
 */
import { statSync } from 'node:fs';
import { basename, dirname, isAbsolute } from 'node:path';
import type { RunCommand } from './command-line.js';
import { hasOption, optionValue, parseArgs } from './file-writes.js';
import { isInside, type PathTarget, realPath, wordPath } from './paths.js';

/** A link the line makes: where it will be, and where it will lead (absolute, links followed). */
export interface MadeLink {
  readonly at: string;
  readonly to: string;
}

/** The symbolic links the commands of `line` before `command` make. */
export function linksMade(line: readonly RunCommand[], command: RunCommand, home: string | undefined): MadeLink[] {
  const links: MadeLink[] = [];
  for (const earlier of line.slice(0, line.indexOf(command))) {
    if (earlier.name !== 'ln') continue;
    const args = parseArgs(earlier.words.slice(1), new Set(['-t', '-S', '--target-directory', '--suffix']));
    if (!hasOption(args, '-s', '--symbolic')) continue;
    const directory = optionValue(args, '-t', '--target-directory');
    const targets = directory || args.operands.length === 1 ? args.operands : args.operands.slice(0, -1);
    const last = directory ?? (args.operands.length > 1 ? args.operands.at(-1) : undefined);
    const place = last && wordPath(last, earlier.cwd, home, false)?.path;
    const into =
      last === undefined ? earlier.cwd : directory || targets.length > 1 || isDirectory(place) ? place : undefined;
    for (const target of targets) {
      if (target.expands) continue;
      const at = into === undefined ? place : `${into}/${basename(target.value)}`;
      if (at === undefined) continue;
      const to = isAbsolute(target.value) ? target.value : `${dirname(at)}/${target.value}`;
      links.push({ at, to: realPath(to) });
    }
  }
  return links;
}

/**
 * `target` taken through the link of `links` it lies under (the last one made wins); itself if none.
 * `followLast: false` leaves a link that is the path itself alone (`rm -r l` removes the link).
 */
export function throughLinksMade(target: PathTarget, links: readonly MadeLink[], followLast = true): PathTarget {
  const through = followLast || target.within;
  const link = links.findLast(({ at }) => isInside(target.path, at) && (through || target.path !== at));
  if (link === undefined) return target;
  const path = realPath(link.to + target.path.slice(link.at.length));
  return { path, written: target.written ?? target.path, within: target.within };
}

function isDirectory(path: string | undefined): boolean {
  if (path === undefined) return false;
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
