/**
 * Splits a shell command line into simple commands — words and redirections — the way a POSIX shell
 * tokenizes it, far enough for the gates to see what a command names. It is a lexer, not a shell:
 *
 * - understood: single and double quotes, backslash escapes, line continuations, comments, the
 *   operators `&& || ; | |& &` and newlines, `( )` subshells (their depth is kept), redirections
 *   (`> >> >| &> &>> <> N>` write a file; `>&N`, `N>&M` only copy a descriptor), here-documents
 *   (their bodies are skipped, so text written through `cat <<EOF` is never read as commands) and
 *   here-strings (`<<< word`, kept as a redirection that reads: its word is the command's stdin).
 * - kept as written, marked `expands`: parameter expansions (`$X`, `${X}`), command substitutions
 *   (`$(…)`, backquotes) and process substitutions (`<(…)`, `>(…)`); their values exist only at run
 *   time, and the commands inside a substitution are not split out.
 * - not understood: aliases, functions, `case` patterns, arithmetic beyond skipping it, brace
 *   expansion. Keywords (`if`, `then`, `do`, …) come out as ordinary words; `command-line.ts` drops
 *   them, with wrappers and assignments.
 *
 * Never throws: an unterminated quote or substitution runs to the end of the line. Pure.
 */

/** One word after quote removal. */
export interface ShellWord {
  /** The text with quotes removed and escapes applied; expansions kept as written (`$HOME/x`). */
  readonly value: string;
  /** It holds an expansion or substitution: its run-time value is not `value`. */
  readonly expands: boolean;
  /** It holds an unquoted `*`, `?` or `[`: it names the files that match, not itself. */
  readonly glob: boolean;
  /** It starts with an unquoted `~` (the shell puts a home directory there). */
  readonly tilde: boolean;
}

export interface Redirection {
  /** The operator as written, without a descriptor number: `>`, `>>`, `&>`, `<`, … */
  readonly op: string;
  /** True when the operator opens `target` for writing. */
  readonly writes: boolean;
  readonly target: ShellWord;
}

/** The operator that joins a command to the one before it; `|` (and `|&`) pipe its output in. */
export type Joiner = '|' | '&&' | '||' | ';' | '&';

export interface ShellCommand {
  readonly words: readonly ShellWord[];
  readonly redirections: readonly Redirection[];
  /** How many `( … )` enclose it. */
  readonly depth: number;
  readonly after?: Joiner;
  /** Its source text, trimmed (here-document bodies are not part of it). */
  readonly text: string;
}

/** Characters a backslash escapes inside double quotes (POSIX). */
const DOUBLE_QUOTE_ESCAPABLE = '$`"\\';

/** Redirection operators, longest first so `>>` is not read as `>`. */
const REDIRECTION_OPS = ['&>>', '&>', '<<<', '<<-', '<<', '<>', '<&', '>>', '>|', '>&', '<', '>'] as const;

const WRITING_OPS: ReadonlySet<string> = new Set(['&>>', '&>', '<>', '>>', '>|', '>&', '>']);

/** A `>&`/`<&` target that names a descriptor (`2>&1`, `>&-`) rather than a file. */
const DESCRIPTOR = /^(?:\d+-?|-)$/;

/** Splits `line` into its simple commands, in order. */
export function shellCommands(line: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let words: ShellWord[] = [];
  let redirections: Redirection[] = [];
  let depth = 0;
  let commandDepth = 0;
  let commandStart = 0;
  let after: Joiner | undefined;
  let pendingOp: string | undefined;
  let pendingHeredoc: { stripTabs: boolean } | undefined;
  const heredocs: { delimiter: string; stripTabs: boolean }[] = [];

  let value = '';
  let started = false;
  let expands = false;
  let glob = false;
  let tilde = false;

  const add = (text: string) => {
    value += text;
    started = true;
  };

  const endWord = () => {
    if (!started) return;
    const word: ShellWord = { value, expands, glob, tilde };
    value = '';
    started = false;
    expands = false;
    glob = false;
    tilde = false;
    if (pendingHeredoc) {
      heredocs.push({ delimiter: word.value, stripTabs: pendingHeredoc.stripTabs });
      pendingHeredoc = undefined;
    } else if (pendingOp !== undefined) {
      const op = pendingOp;
      pendingOp = undefined;
      const duplicates = (op === '>&' || op === '<&') && DESCRIPTOR.test(word.value);
      if (!duplicates) redirections.push({ op, writes: WRITING_OPS.has(op), target: word });
    } else {
      words.push(word);
    }
  };

  const endCommand = (index: number, joiner: Joiner | undefined) => {
    endWord();
    if (words.length > 0 || redirections.length > 0) {
      const text = line.slice(commandStart, index).trim();
      commands.push({ words, redirections, depth: commandDepth, ...(after !== undefined && { after }), text });
    }
    words = [];
    redirections = [];
    pendingOp = undefined;
    after = joiner;
    commandDepth = depth;
  };

  /** Where the next command starts, after an operator that ends at `index`. */
  const restartAt = (index: number) => {
    commandStart = index;
    return index;
  };

  const dollar = (index: number): number => {
    const end = expansionEnd(line, index);
    if (end === undefined) {
      add('$');
      return index + 1;
    }
    add(line.slice(index, end));
    expands = true;
    return end;
  };

  /** Adds a backquoted command substitution starting at `index` as it is written (it expands); returns where it ends. */
  const backquoted = (index: number): number => {
    const end = closing(line, index + 1, '`');
    add(line.slice(index, end));
    expands = true;
    return end;
  };

  const doubleQuoted = (start: number): number => {
    started = true;
    let index = start;
    while (index < line.length) {
      const char = line[index] as string;
      if (char === '"') return index + 1;
      if (char === '\\') {
        const next = line[index + 1];
        if (next === '\n') index += 2;
        else if (next !== undefined && DOUBLE_QUOTE_ESCAPABLE.includes(next)) {
          add(next);
          index += 2;
        } else {
          add(char);
          index += 1;
        }
      } else if (char === '`') {
        index = backquoted(index);
      } else if (char === '$') {
        index = dollar(index);
      } else {
        add(char);
        index += 1;
      }
    }
    return index;
  };

  /** Skips the bodies of the here-documents opened on the line that ended at `index`. */
  const skipHeredocBodies = (index: number): number => {
    let at = index;
    for (const { delimiter, stripTabs } of heredocs.splice(0)) {
      while (at < line.length) {
        const end = line.indexOf('\n', at);
        const stop = end < 0 ? line.length : end;
        const text = line.slice(at, stop);
        at = stop + 1;
        if ((stripTabs ? text.replace(/^\t+/, '') : text) === delimiter) break;
      }
    }
    return Math.min(at, line.length);
  };

  let index = 0;
  while (index < line.length) {
    const char = line[index] as string;
    const next = line[index + 1];
    if (char === ' ' || char === '\t') {
      endWord();
      index += 1;
    } else if (char === '\n') {
      endCommand(index, ';');
      index = restartAt(skipHeredocBodies(index + 1));
    } else if (char === '#' && !started) {
      const end = line.indexOf('\n', index);
      index = end < 0 ? line.length : end;
    } else if (char === '\\') {
      if (next !== undefined && next !== '\n') add(next);
      index += 2;
    } else if (char === "'") {
      const end = line.indexOf("'", index + 1);
      const stop = end < 0 ? line.length : end;
      add(line.slice(index + 1, stop));
      index = stop + 1;
    } else if (char === '"') {
      index = doubleQuoted(index + 1);
    } else if (char === '`') {
      index = backquoted(index);
    } else if (char === '$') {
      index = dollar(index);
    } else if ((char === '<' || char === '>') && next === '(') {
      const end = skipParens(line, index + 1);
      add(line.slice(index, end));
      expands = true;
      index = end;
    } else if (char === '<' || char === '>' || (char === '&' && next === '>')) {
      // A word of digits right before the operator is its descriptor (`2>`), not an argument.
      if (started && /^\d+$/.test(value) && !expands) {
        value = '';
        started = false;
      } else {
        endWord();
      }
      const op = REDIRECTION_OPS.find((candidate) => line.startsWith(candidate, index)) as string;
      if (op === '<<' || op === '<<-') pendingHeredoc = { stripTabs: op === '<<-' };
      else pendingOp = op;
      index += op.length;
    } else if (char === ';') {
      endCommand(index, ';');
      index = restartAt(index + (next === ';' ? 2 : 1));
    } else if (char === '&') {
      endCommand(index, next === '&' ? '&&' : '&');
      index = restartAt(index + (next === '&' ? 2 : 1));
    } else if (char === '|') {
      endCommand(index, next === '|' ? '||' : '|');
      index = restartAt(index + (next === '|' || next === '&' ? 2 : 1));
    } else if (char === '(') {
      endWord();
      if (words.length > 0 || redirections.length > 0) endCommand(index, ';');
      depth += 1;
      commandDepth = depth;
      index = restartAt(index + 1);
    } else if (char === ')') {
      endCommand(index, ';');
      depth = Math.max(0, depth - 1);
      commandDepth = depth;
      index = restartAt(index + 1);
    } else {
      if (!started && char === '~') tilde = true;
      if (char === '*' || char === '?' || char === '[') glob = true;
      add(char);
      index += 1;
    }
  }
  endCommand(line.length, undefined);
  return commands;
}

/**
 * The command lines inside the substitutions a word holds as written: `$(…)`, `` `…` ``, `<(…)` and
 * `>(…)`, outermost first (a substitution inside one is found when its line is read in turn). A
 * `$(` inside single quotes was never kept as one: the lexer removed those quotes and marked the
 * word as not expanding, and only words that expand are given here.
 */
export function substitutions(word: ShellWord): string[] {
  if (!word.expands) return [];
  const lines: string[] = [];
  const text = word.value;
  let index = 0;
  while (index < text.length) {
    const char = text[index];
    // A process substitution is a word of its own: `<(` further in is text (`"a <(b)"`).
    const opens = text[index + 1] === '(' && (char === '$' || (index === 0 && (char === '<' || char === '>')));
    if (opens && text[index + 2] !== '(') {
      const end = skipParens(text, index + 1);
      lines.push(text.slice(index + 2, text[end - 1] === ')' ? end - 1 : end));
      index = end;
    } else if (char === '`') {
      const end = closing(text, index + 1, '`');
      lines.push(text.slice(index + 1, text[end - 1] === '`' ? end - 1 : end));
      index = end;
    } else {
      index += 1;
    }
  }
  return lines;
}

/** The index just past the expansion whose `$` is at `index`; undefined when that `$` is literal. */
function expansionEnd(line: string, index: number): number | undefined {
  const next = line[index + 1] ?? '';
  if (next === '(') return skipParens(line, index + 1);
  if (next === '{') return closing(line, index + 2, '}');
  if (/[A-Za-z_]/.test(next)) return index + 1 + (/^\w+/.exec(line.slice(index + 1))?.[0].length ?? 0);
  if (/[?$#@*!\-\d]/.test(next)) return index + 2;
  return undefined;
}

/** The index just past the `)` that closes the `(` at `open`, skipping quoted text; the end if none. */
function skipParens(line: string, open: number): number {
  let depth = 0;
  let index = open;
  while (index < line.length) {
    const char = line[index] as string;
    if (char === '\\') index += 2;
    else if (char === "'") index = closing(line, index + 1, "'");
    else if (char === '"') index = closing(line, index + 1, '"');
    else {
      if (char === '(') depth += 1;
      else if (char === ')' && --depth === 0) return index + 1;
      index += 1;
    }
  }
  return line.length;
}

/** The index just past the next unescaped `quote` from `start`; the end of the line if none. */
function closing(line: string, start: number, quote: string): number {
  let index = start;
  while (index < line.length) {
    const char = line[index];
    if (char === '\\' && quote !== "'") index += 2;
    else if (char === quote) return index + 1;
    else index += 1;
  }
  return line.length;
}
