/**
 * Reads a shell command line as the list of simple commands it runs, each with the directory it runs
 * in and the commands whose output it reads:
 *
 * - `cd`/`pushd` move the directory for the commands after them (a `( … )` subshell's move ends with
 *   it), through symbolic links as the shell would;
 * - what a command runs is read through every wrapper and nested shell `core/command-wrappers.ts`
 *   knows (`timeout 60 git push`, `sudo`, `xargs`, `find -exec`, `sh -c '…'`, `eval`, `watch`,
 *   `parallel`, git aliases given with `-c`, …), to NESTING_LIMIT layers; the command's name loses its
 *   directory (`/usr/bin/git` is `git`);
 * - `NAME=value` assignments standing alone (or after `export`) are remembered and put in place of
 *   `$NAME`/`${NAME}` later on the line, so `G=git; $G push` reads as `git push`;
 * - a pipeline's commands read the output of those before them; the commands of a nested shell read
 *   what the shell reads.
 *
 * - the command lines of substitutions (`$(…)`, `` `…` ``, `<(…)`, `>(…)`) are read as commands
 *   too, run before the command that holds them.
 *
 * What it cannot look into is kept on the command as `hidden`: a line nested past the limit, a
 * command line or a command name known only at run time. What it does not follow: `cd` into a
 * directory only known at run time (later relative paths are then unknown), `popd`, `cd -`,
 * functions, aliases and loops run more than once. See `shell.ts` for the lexing. Reads the file
 * system only to follow links (`paths.ts`).
 */
import { isAssignment, programName, type Run, unwrap } from '../core/command-wrappers.js';
import { type PathTarget, wordPath } from './paths.js';
import { type Joiner, type Redirection, type ShellWord, shellCommands, substitutions } from './shell.js';

export interface RunCommand {
  /** From the command's name on; the name without its directory (`git` for `/usr/bin/git`). */
  readonly words: readonly ShellWord[];
  /** The command's name (`words[0]`), '' when it has none (a bare redirection). */
  readonly name: string;
  /** The command's first word as written (`./install.sh`, `/usr/bin/git`). */
  readonly program?: ShellWord;
  readonly redirections: readonly Redirection[];
  /** The directory it runs in, absolute, links followed; undefined when an earlier `cd` went somewhere unknown. */
  readonly cwd: string | undefined;
  /** The directory named by the `cd` that moved there, for messages. */
  readonly movedBy?: string;
  /** `cwd` as written, when a symbolic link took the `cd` elsewhere. */
  readonly cwdWritten?: string;
  readonly after?: Joiner;
  /** Its simple command as written (for a command a wrapper runs, the wrapper's). */
  readonly text: string;
  /** The commands before it in its pipeline, whose output reaches its stdin; a nested shell's commands read what it reads. */
  readonly upstream: readonly RunCommand[];
  /** More arguments are added at run time (`xargs`): its operands are not all in `words`. */
  readonly appends?: true;
  /** What the analysis could not look into, when the command hides something. */
  readonly hidden?: Hidden;
}

/** Something a command runs that only run time shows. */
export interface Hidden {
  /** What it is, for messages: "a command line known only at run time". */
  readonly what: string;
  /** Its text as far as it is known (the line, or the arguments of a command whose name is unknown). */
  readonly text: string;
  /** The command's name is the unknown: any command could receive `text` as its arguments. */
  readonly anyName?: true;
}

/**
 * 8 layers of wrappers and nested shells: real commands use two or three (`sudo -u x timeout 60 sh -c
 * '…'`); past eight, what runs is `hidden` and judged as such.
 */
const NESTING_LIMIT = 8;

/** The simple commands `line` runs, in order, each with its directory; `cwd` is where the line starts. */
export function runCommands(line: string, cwd: string | undefined, home: string | undefined): RunCommand[] {
  return walk(
    line,
    { cwd, movedBy: undefined, cwdWritten: undefined },
    { home, upstream: [], variables: new Map() },
    0,
  );
}

interface Place {
  cwd: string | undefined;
  movedBy: string | undefined;
  cwdWritten: string | undefined;
}

interface Context {
  readonly home: string | undefined;
  /** What the line's first pipeline reads (a nested shell's stdin). */
  readonly upstream: readonly RunCommand[];
  /** Literal values assigned earlier on the line. */
  readonly variables: Map<string, string>;
}

/** What a produced command shares with the simple command it came from. */
interface Origin {
  readonly redirections: readonly Redirection[];
  readonly place: Place;
  readonly after?: Joiner;
  readonly text: string;
  readonly upstream: readonly RunCommand[];
  readonly context: Context;
}

function walk(line: string, start: Place, context: Context, nesting: number): RunCommand[] {
  const out: RunCommand[] = [];
  // The place at each subshell depth: entering a subshell copies the place, leaving drops it.
  const places: Place[] = [{ ...start }];
  let pipeline: RunCommand[] = [];
  for (const command of shellCommands(line)) {
    while (places.length <= command.depth) places.push({ ...(places.at(-1) as Place) });
    places.length = command.depth + 1;
    const place = places[command.depth] as Place;
    if (command.after !== '|') pipeline = [];
    const words = substitute(command.words, context.variables);
    remember(words, context.variables);
    const origin: Origin = {
      redirections: command.redirections,
      place: { ...place },
      ...(command.after !== undefined && { after: command.after }),
      text: command.text,
      upstream: [...context.upstream, ...pipeline],
      context,
    };
    // What substitutions run comes first: `x=$(git push -f …)` pushes before it assigns.
    if (nesting < NESTING_LIMIT) {
      const inner = [...words, ...command.redirections.map((each) => each.target)].flatMap(substitutions);
      for (const text of inner) out.push(...walk(text, place, { ...context, upstream: [] }, nesting + 1));
    }
    const produced = expand(words, origin, nesting);
    out.push(...produced);
    pipeline.push(...produced);
    const moving = produced.find((run) => run.text === command.text && ['cd', 'pushd', 'popd'].includes(run.name));
    if (moving) move(moving, place, context.home);
  }
  return out;
}

/** Moves `place` as `command` (`cd`, `pushd` or `popd`) does. */
function move(command: RunCommand, place: Place, home: string | undefined): void {
  if (command.name === 'popd') {
    place.cwd = undefined;
    place.cwdWritten = undefined;
    place.movedBy = 'popd';
    return;
  }
  const target = command.words.slice(1).find((word) => !word.value.startsWith('-') || word.value === '-');
  const moved: PathTarget | undefined =
    target === undefined
      ? home === undefined
        ? undefined
        : wordPath({ value: home, expands: false, glob: false, tilde: false }, undefined, home)
      : target.value === '-' || target.glob
        ? undefined
        : wordPath(target, place.cwd, home);
  place.cwd = moved?.path;
  place.cwdWritten = moved?.written;
  place.movedBy = target?.value ?? '~';
}

/**
 * The commands `words` runs: itself, or what its wrappers and nested shells run. The command itself
 * comes first when it acts too (`find`, `sh -c`) or hides what it runs (then with `hidden`).
 */
function expand(words: readonly ShellWord[], origin: Origin, nesting: number, appends = false): RunCommand[] {
  const unwrapped = unwrap(words.map((word) => word.value));
  if (unwrapped === undefined) return [make(words, origin, appends)];
  let hidden: Hidden | undefined;
  const inner: RunCommand[] = [];
  for (const run of unwrapped.runs) {
    if (nesting >= NESTING_LIMIT) {
      const text = run.kind === 'line' ? run.text : valuesOf(words.slice(run.from, run.until));
      hidden ??= { what: `a command nested more than ${NESTING_LIMIT} wrappers or shells deep`, text };
    } else if (run.kind === 'command') {
      for (const each of commandWords(words, run)) {
        inner.push(...expand(each.words, origin, nesting + 1, appends || each.appends));
      }
    } else if (run.sources.some((index) => words[index]?.expands)) {
      hidden ??= { what: 'a command line known only at run time', text: run.text };
    } else {
      inner.push(...walk(run.text, origin.place, { ...origin.context, upstream: origin.upstream }, nesting + 1));
    }
  }
  // A wrapper that hands a line to a shell keeps its own redirections (`watch ls > f`): judge them on it.
  const redirects = origin.redirections.length > 0 && unwrapped.runs.some((run) => run.kind === 'line');
  const itself = unwrapped.keeps || hidden !== undefined || redirects ? [make(words, origin, appends, hidden)] : [];
  return [...itself, ...inner];
}

/**
 * The words of the command `run` names, and whether arguments are added at run time. `find -exec`'s
 * `{}` becomes a glob of each start path (it stands for the files found there); a run-time
 * placeholder (`xargs -I {}`) stays as written, and the command is marked as taking arguments only
 * run time knows.
 */
function commandWords(
  words: readonly ShellWord[],
  run: Extract<Run, { kind: 'command' }>,
): { words: readonly ShellWord[]; appends: boolean }[] {
  const inner = words.slice(run.from, run.until);
  const token = run.placeholder;
  if (run.found === undefined || token === undefined) {
    return [{ words: inner, appends: run.appends === true || token !== undefined }];
  }
  const starts = run.found.length > 0 ? run.found.map((index) => words[index] as ShellWord) : [PLAIN('.')];
  return starts.map((start) => ({
    words: inner.map((word, index) =>
      index > 0 && word.value.includes(token)
        ? {
            ...word,
            value: word.value.replaceAll(token, `${start.value}/*`),
            glob: true,
            expands: word.expands || start.expands,
          }
        : word,
    ),
    appends: false,
  }));
}

function make(words: readonly ShellWord[], origin: Origin, appends: boolean, hidden?: Hidden): RunCommand {
  const program = words[0];
  const name = program === undefined ? '' : programName(program.value);
  const unknown = program?.expands === true && /[$`]|[<>]\(/.test(name);
  const known = hidden ?? (unknown ? unknownName(words) : undefined);
  const { place } = origin;
  return {
    words: program === undefined ? [] : [{ ...program, value: name }, ...words.slice(1)],
    name,
    ...(program !== undefined && { program }),
    redirections: origin.redirections,
    cwd: place.cwd,
    ...(place.movedBy !== undefined && { movedBy: place.movedBy }),
    ...(place.cwdWritten !== undefined && { cwdWritten: place.cwdWritten }),
    ...(origin.after !== undefined && { after: origin.after }),
    text: origin.text,
    upstream: origin.upstream,
    ...(appends && { appends: true as const }),
    ...(known !== undefined && { hidden: known }),
  };
}

function unknownName(words: readonly ShellWord[]): Hidden {
  return { what: 'a command whose name is known only at run time', text: valuesOf(words.slice(1)), anyName: true };
}

function valuesOf(words: readonly ShellWord[]): string {
  return words.map((word) => word.value).join(' ');
}

const PLAIN = (value: string): ShellWord => ({ value, expands: false, glob: false, tilde: false });

/** Commands whose `NAME=value` arguments set variables for the rest of the line. */
const DECLARERS: ReadonlySet<string> = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);

/** Records the literal values a command that only assigns (or `export`s) sets; forgets those set otherwise. */
function remember(words: readonly ShellWord[], variables: Map<string, string>): void {
  const declares = DECLARERS.has(words[0]?.value ?? '');
  if (!declares && !words.every((word) => isAssignment(word.value))) return;
  for (const word of declares ? words.slice(1) : words) {
    if (!isAssignment(word.value)) continue;
    const equals = word.value.indexOf('=');
    const name = word.value.slice(0, equals);
    if (word.expands) variables.delete(name);
    else variables.set(name, word.value.slice(equals + 1));
  }
}

const REFERENCE = /\$(?:\{(\w+)\}|(\w+))/g;

/**
 * `words` with the references to remembered variables replaced by their values. A command's name
 * that was a whole reference is split at blanks, as the shell splits an unquoted expansion.
 */
function substitute(words: readonly ShellWord[], variables: ReadonlyMap<string, string>): ShellWord[] {
  if (variables.size === 0) return [...words];
  return words.flatMap((word, index) => {
    if (!word.expands) return [word];
    const value = word.value.replace(REFERENCE, (reference, braced?: string, bare?: string) => {
      const known = variables.get(braced ?? bare ?? '');
      return known ?? reference;
    });
    if (value === word.value) return [word];
    const expands = /[$`]|[<>]\(/.test(value);
    const whole = /^\$(?:\{\w+\}|\w+)$/.test(word.value);
    if (index === 0 && whole && !expands) return value.split(/\s+/).filter(Boolean).map(PLAIN);
    return [{ ...word, value, expands }];
  });
}
