/**
 * Reads a shell command line as the list of simple commands it runs, each with the directory it runs
 * in: `cd`/`pushd` move the directory for the commands after them (a `( … )` subshell's move ends
 * with it), and the command string of `sh -c '…'`/`bash -lc '…'`/`eval '…'` is read as commands too.
 * What it does not follow: `cd` into a directory only known at run time (later relative paths are
 * then unknown), `popd`, `cd -`, functions, aliases, loops run more than once, and commands hidden
 * inside substitutions or `xargs`. Pure; see `shell.ts` for the lexing.
 */
import { wordPath } from './paths.js';
import { commandWords, type Joiner, type Redirection, type ShellWord, shellCommands } from './shell.js';

export interface RunCommand {
  /** From the command's name on (keywords, assignments and wrappers like `sudo` dropped). */
  readonly words: readonly ShellWord[];
  /** The command's name (`words[0]`), '' when it has none (a bare redirection). */
  readonly name: string;
  readonly redirections: readonly Redirection[];
  /** The directory it runs in, absolute; undefined when an earlier `cd` went somewhere unknown. */
  readonly cwd: string | undefined;
  /** The directory named by the `cd` that moved there, for messages. */
  readonly movedBy?: string;
  readonly after?: Joiner;
  readonly text: string;
}

/** Shells whose `-c` argument is a command line. */
const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh']);

/** How deep `sh -c "sh -c '…'"` is followed: deeper is unusual enough to leave unread. */
const MAX_NESTING = 3;

/** The simple commands `line` runs, in order, each with its directory; `cwd` is where the line starts. */
export function runCommands(line: string, cwd: string | undefined, home: string | undefined): RunCommand[] {
  return walk(line, { cwd, movedBy: undefined }, home, 0);
}

interface Place {
  cwd: string | undefined;
  movedBy: string | undefined;
}

function walk(line: string, start: Place, home: string | undefined, nesting: number): RunCommand[] {
  const out: RunCommand[] = [];
  // The place at each subshell depth: entering a subshell copies the place, leaving drops it.
  const places: Place[] = [{ ...start }];
  for (const command of shellCommands(line)) {
    while (places.length <= command.depth) places.push({ ...(places.at(-1) as Place) });
    places.length = command.depth + 1;
    const place = places[command.depth] as Place;
    const words = commandWords(command.words);
    const name = words[0]?.value ?? '';
    out.push({
      words,
      name,
      redirections: command.redirections,
      cwd: place.cwd,
      ...(place.movedBy !== undefined && { movedBy: place.movedBy }),
      ...(command.after !== undefined && { after: command.after }),
      text: command.text,
    });
    if (name === 'cd' || name === 'pushd') {
      const target = words.slice(1).find((word) => !word.value.startsWith('-') || word.value === '-');
      const moved =
        target === undefined ? home : target.value === '-' ? undefined : wordPath(target, place.cwd, home)?.path;
      place.cwd = target?.glob ? undefined : moved;
      place.movedBy = target?.value ?? '~';
    } else if (name === 'popd') {
      place.cwd = undefined;
      place.movedBy = 'popd';
    }
    const inner = innerLine(words);
    if (inner !== undefined && nesting < MAX_NESTING) out.push(...walk(inner, place, home, nesting + 1));
  }
  return out;
}

/** The command line `sh -c '…'` or `eval …` runs, when it is literal text. */
function innerLine(words: readonly ShellWord[]): string | undefined {
  const name = words[0]?.value;
  if (name === 'eval') {
    const rest = words.slice(1);
    return rest.some((word) => word.expands) ? undefined : rest.map((word) => word.value).join(' ');
  }
  if (name === undefined || !SHELLS.has(name.slice(name.lastIndexOf('/') + 1))) return undefined;
  // `-c` may be bundled with other one-letter options: `-lc`, `-ec`, `-xc`.
  const flag = words.findIndex((word, index) => index > 0 && /^-[a-z]*c[a-z]*$/.test(word.value));
  const script = flag < 0 ? undefined : words[flag + 1];
  return script === undefined || script.expands ? undefined : script.value;
}
