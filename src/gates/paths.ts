/**
 * Where a path a tool call names points, decided from text alone: `..` and `.` are resolved, `~` and
 * `$HOME` are read with the home the facts give, relative paths are taken from the directory the
 * call runs in. Nothing touches the file system, so a symbolic link is not followed: a link inside
 * the worktree that points outside it looks inside. Pure.
 */
import { isAbsolute, resolve, sep } from 'node:path';
import type { ShellWord } from './shell.js';

/** A path a word names. */
export interface PathTarget {
  /** Absolute and normalized. */
  readonly path: string;
  /** The word is a glob: it names entries inside `path`, not `path` itself. */
  readonly within: boolean;
}

/** True when `path` is `dir` or lies below it (both absolute and normalized). */
export function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** `$HOME` or `${HOME}` at the start of a word, followed by a slash or nothing. */
const HOME_VARIABLE = /^\$(?:HOME|\{HOME\})(?=\/|$)/;

/**
 * The path `word` names when run in `cwd` (undefined: not known, e.g. after `cd "$DIR"`).
 * Undefined when the word's value is only known at run time, names another user's home (`~bob`),
 * or needs a home or directory that is not known.
 */
export function wordPath(word: ShellWord, cwd: string | undefined, home: string | undefined): PathTarget | undefined {
  let text = word.value;
  if (word.tilde) {
    if (home === undefined || !(text === '~' || text.startsWith('~/'))) return undefined;
    text = home + text.slice(1);
  } else if (word.expands && HOME_VARIABLE.test(text)) {
    if (home === undefined) return undefined;
    text = text.replace(HOME_VARIABLE, home);
  }
  if (word.expands && /[$`]|[<>]\(/.test(text)) return undefined;
  let within = false;
  if (word.glob) {
    const first = text.search(/[*?[]/);
    text = text.slice(0, text.lastIndexOf('/', first) + 1);
    within = true;
  }
  return absolute(text, cwd, within);
}

/** `text` made absolute against `cwd`; undefined when it is relative and `cwd` is unknown, or empty. */
export function plainPath(text: string, cwd: string | undefined): PathTarget | undefined {
  return text === '' ? undefined : absolute(text, cwd, false);
}

function absolute(text: string, cwd: string | undefined, within: boolean): PathTarget | undefined {
  if (isAbsolute(text)) return { path: resolve(text), within };
  if (cwd === undefined) return undefined;
  if (text === '' && !within) return undefined;
  return { path: resolve(cwd, text), within };
}
