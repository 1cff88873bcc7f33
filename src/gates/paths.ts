/**
 * Where a path a tool call names leads. The text is read first — `~` and `$HOME` with the home the
 * facts give, relative paths from the directory the call runs in — and then followed on the file
 * system the way the kernel would: component by component, through every symbolic link, `..` taken
 * after the link before it (`lnk/../x` leaves from where `lnk` leads). A component that does not exist
 * ends the walk and the rest is joined as written, so a path about to be created is judged by the
 * real directory it would be created in, and a dangling link by where it points (writing through it
 * creates its target). The last component may be left unfollowed: deleting or moving a link acts on
 * the link, not on what it points to.
 *
 * Reads the file system (lstat, readlink) and nothing else; never throws.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { type GateFacts, stateDirOf } from './facts.js';
import type { ShellWord } from './shell.js';

/** A path a word names. */
export interface PathTarget {
  /** Where it leads: absolute, normalized, links followed. */
  readonly path: string;
  /** The path as written (absolute, normalized, links not followed), when a symbolic link took it elsewhere. */
  readonly written?: string;
  /** The word is a glob: it names entries inside `path`, not `path` itself. */
  readonly within: boolean;
}

/** True when `path` is `dir` or lies below it (both absolute and normalized). */
export function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** " (a/b leads there through a symbolic link)" when a link took `target` elsewhere; "" otherwise. */
export function throughLink(target: PathTarget): string {
  return target.written === undefined ? '' : ` (${target.written} leads there through a symbolic link)`;
}

/** `$HOME` or `${HOME}` at the start of a word, followed by a slash or nothing. */
const HOME_VARIABLE = /^\$(?:HOME|\{HOME\})(?=\/|$)/;

/**
 * The path `word` names when run in `cwd` (undefined: not known, e.g. after `cd "$DIR"`).
 * Undefined when the word's value is only known at run time, names another user's home (`~bob`),
 * or needs a home or directory that is not known. `followLast: false` leaves a link in the last
 * component unfollowed, unless the word ends with `/` (which always goes through it).
 */
export function wordPath(
  word: ShellWord,
  cwd: string | undefined,
  home: string | undefined,
  followLast = true,
): PathTarget | undefined {
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
  return target(text, cwd, within, followLast);
}

/** `text` (a file tool's path) made absolute against `cwd`; undefined when relative with `cwd` unknown, or empty. */
export function plainPath(text: string, cwd: string | undefined, followLast = true): PathTarget | undefined {
  return text === '' ? undefined : target(text, cwd, false, followLast);
}

/** Where `path` (absolute) leads, every link followed: how the gates compare the places they guard. */
export function realPath(path: string): string {
  return follow(path, true);
}

/** The places the gates guard, links followed, so that they compare with paths that were followed. */
export interface Places {
  readonly worktree: string;
  readonly tmpdir: string;
  readonly home?: string;
  /** HarmFlow's state directory, when known (`stateDirOf`). */
  readonly stateDir?: string;
}

export function placesOf(facts: GateFacts): Places {
  const stateDir = stateDirOf(facts);
  return {
    worktree: realPath(facts.worktree),
    tmpdir: realPath(facts.tmpdir),
    ...(facts.home !== undefined && { home: realPath(facts.home) }),
    ...(stateDir !== undefined && { stateDir: realPath(stateDir) }),
  };
}

function target(text: string, cwd: string | undefined, within: boolean, followLast: boolean): PathTarget | undefined {
  if (!isAbsolute(text) && (cwd === undefined || (text === '' && !within))) return undefined;
  const joined = isAbsolute(text) ? text : `${cwd}/${text}`;
  // A trailing slash (or a glob's directory) goes through the link it names.
  const last = followLast || within || /\/\.?$/.test(text);
  const path = follow(joined, last);
  const written = resolve(joined);
  return { path, ...(written !== path && { written }), within };
}

/** 40: the kernel's own limit on links followed in one lookup (Linux MAXSYMLINKS) before ELOOP. */
const MAX_LINKS = 40;

/** `path` (absolute, maybe with `.`, `..`, links) as the kernel would resolve it; see the module doc. */
function follow(path: string, followLast: boolean): string {
  const pending = path.split('/').filter((part) => part !== '' && part !== '.');
  let at = '/';
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === '..') {
      at = resolve(at, '..');
      continue;
    }
    const next = at === '/' ? `/${part}` : `${at}/${part}`;
    let link: string | undefined;
    try {
      link = lstatSync(next).isSymbolicLink() && (followLast || pending.length > 0) ? readlinkSync(next) : undefined;
    } catch {
      // It does not exist (or cannot be read): what follows is created under `at` as written.
      return resolve(next, ...pending);
    }
    if (link === undefined) {
      at = next;
      continue;
    }
    // A loop fails with ELOOP: nothing is written, so where it "leads" hardly matters.
    if (++links > MAX_LINKS) return resolve(next, ...pending);
    pending.unshift(...link.split('/').filter((piece) => piece !== '' && piece !== '.'));
    if (isAbsolute(link)) at = '/';
  }
  return at;
}
