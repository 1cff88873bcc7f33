/**
 * Which words of a simple command name files it writes, creates, moves or deletes, for the commands
 * agents use to change files from a shell. Covered: `rm rmdir unlink shred touch mkdir tee truncate`
 * (every operand), `mv` (every operand: the sources go away too), `cp ln install rsync scp` (the
 * destination), `chmod chown chgrp` (the files), `dd of=`, `sed -i`, `sort -o`, `find … -delete`,
 * `curl -o`/`--output`, `wget -O`/`-P`, `git clone <url> <dir>` and `git worktree add <dir>`.
 * Not covered: writes a program makes on its own (`npm install -g`, `tar -x`, `make`, a script) and
 * interpreters' code (`python -c`, `node -e`). The commands `find -exec`, `xargs` and other wrappers
 * run are read by `command-line.ts` and checked here like any other. Pure.
 */
import type { ShellWord } from './shell.js';

/** A command's arguments split into options and operands. */
export interface ParsedArgs {
  readonly operands: readonly ShellWord[];
  /** Each option by name (`-t`, `--target-directory`), with its value when it takes one. */
  readonly options: readonly { readonly name: string; readonly value?: ShellWord }[];
}

/**
 * Splits `args` (the words after the command's name) into options and operands: `--` ends options,
 * `--name=value` and `-xVALUE` carry their value, bundled short options (`-rf`) are split, and the
 * options in `valued` take the next word when their value is not attached.
 */
export function parseArgs(args: readonly ShellWord[], valued: ReadonlySet<string> = NO_VALUES): ParsedArgs {
  const operands: ShellWord[] = [];
  const options: { name: string; value?: ShellWord }[] = [];
  let optionsEnded = false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as ShellWord;
    const text = word.value;
    if (optionsEnded || text === '-' || !text.startsWith('-')) {
      operands.push(word);
    } else if (text === '--') {
      optionsEnded = true;
    } else if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const name = equals < 0 ? text : text.slice(0, equals);
      const value = equals >= 0 ? part(word, text.slice(equals + 1)) : valued.has(name) ? args[++index] : undefined;
      options.push({ name, ...(value !== undefined && { value }) });
    } else {
      for (let at = 1; at < text.length; at++) {
        const name = `-${text[at]}`;
        if (!valued.has(name)) {
          options.push({ name });
          continue;
        }
        const rest = text.slice(at + 1);
        const value = rest === '' ? args[++index] : part(word, rest);
        options.push({ name, ...(value !== undefined && { value }) });
        break;
      }
    }
  }
  return { operands, options };
}

const NO_VALUES: ReadonlySet<string> = new Set();

/** A word made of the tail of another (an option's attached value). */
function part(word: ShellWord, value: string): ShellWord {
  return { value, expands: word.expands, glob: word.glob, tilde: value.startsWith('~') };
}

/** The value of the first of `names` among the options. */
export function optionValue(args: ParsedArgs, ...names: string[]): ShellWord | undefined {
  return args.options.find((option) => names.includes(option.name) && option.value !== undefined)?.value;
}

export function hasOption(args: ParsedArgs, ...names: string[]): boolean {
  return args.options.some((option) => names.includes(option.name));
}

interface Writer {
  /** Options that take a value. */
  readonly valued: readonly string[];
  readonly writes: (args: ParsedArgs, words: readonly ShellWord[]) => readonly ShellWord[];
}

const everyOperand: Writer['writes'] = (args) => args.operands;

/** `-t DIR` when given, else the last operand when there are at least two. */
const destination: Writer['writes'] = (args) => {
  const target = optionValue(args, '-t', '--target-directory');
  if (target) return [target];
  return args.operands.length >= 2 ? args.operands.slice(-1) : [];
};

/** A remote `host:path` operand of rsync/scp: not a local file. */
const REMOTE_OPERAND = /^[^/]*:/;

const WRITERS: Readonly<Record<string, Writer>> = {
  rm: { valued: [], writes: everyOperand },
  rmdir: { valued: [], writes: everyOperand },
  unlink: { valued: [], writes: everyOperand },
  shred: { valued: ['-n', '-s', '--iterations', '--size'], writes: everyOperand },
  touch: { valued: ['-d', '-r', '-t', '--date', '--reference'], writes: everyOperand },
  mkdir: { valued: ['-m', '--mode'], writes: everyOperand },
  tee: { valued: [], writes: everyOperand },
  truncate: { valued: ['-s', '-r', '--size', '--reference'], writes: everyOperand },
  mv: {
    valued: ['-t', '-S', '--target-directory', '--suffix'],
    writes: (args) => {
      const target = optionValue(args, '-t', '--target-directory');
      return target ? [target, ...args.operands] : args.operands;
    },
  },
  cp: { valued: ['-t', '-S', '--target-directory', '--suffix'], writes: destination },
  ln: { valued: ['-t', '-S', '--target-directory', '--suffix'], writes: destination },
  install: {
    valued: ['-t', '-S', '-m', '-o', '-g', '--target-directory', '--suffix', '--mode', '--owner', '--group'],
    writes: (args, words) => (hasOption(args, '-d', '--directory') ? args.operands : destination(args, words)),
  },
  rsync: {
    valued: ['-e', '--rsh'],
    writes: (args) =>
      args.operands.slice(-1).filter((word) => args.operands.length >= 2 && !REMOTE_OPERAND.test(word.value)),
  },
  scp: {
    valued: ['-P', '-i', '-o', '-F', '-c', '-l', '-S', '-J'],
    writes: (args) =>
      args.operands.slice(-1).filter((word) => args.operands.length >= 2 && !REMOTE_OPERAND.test(word.value)),
  },
  chmod: { valued: [], writes: (args) => (hasOption(args, '--reference') ? args.operands : args.operands.slice(1)) },
  chown: { valued: [], writes: (args) => (hasOption(args, '--reference') ? args.operands : args.operands.slice(1)) },
  chgrp: { valued: [], writes: (args) => (hasOption(args, '--reference') ? args.operands : args.operands.slice(1)) },
  sort: {
    valued: [
      '-k',
      '-t',
      '-S',
      '-T',
      '-o',
      '--key',
      '--field-separator',
      '--buffer-size',
      '--temporary-directory',
      '--output',
    ],
    writes: (args) => {
      const output = optionValue(args, '-o', '--output');
      return output ? [output] : [];
    },
  },
  dd: {
    valued: [],
    writes: (args) =>
      args.operands.flatMap((word) => (word.value.startsWith('of=') ? [part(word, word.value.slice(3))] : [])),
  },
  sed: {
    valued: ['-e', '-f', '-l', '--expression', '--file', '--line-length'],
    writes: (args) => {
      if (!hasOption(args, '-i', '--in-place')) return [];
      return hasOption(args, '-e', '-f', '--expression', '--file') ? args.operands : args.operands.slice(1);
    },
  },
  find: {
    valued: [],
    writes: (_args, words) => {
      if (!words.some((word) => word.value === '-delete')) return [];
      const paths = words.slice(1).filter((word) => !['-H', '-L', '-P'].includes(word.value));
      const end = paths.findIndex((word) => /^[-(!]/.test(word.value));
      return end < 0 ? paths : paths.slice(0, end);
    },
  },
  curl: {
    valued: ['-o', '--output', '-d', '-H', '-X', '-u', '-A', '-e', '-F', '-T', '--data', '--header', '--request'],
    writes: (args) => {
      const output = optionValue(args, '-o', '--output');
      return output ? [output] : [];
    },
  },
  wget: {
    valued: ['-O', '-P', '--output-document', '--directory-prefix'],
    writes: (args) => {
      const output = optionValue(args, '-O', '--output-document', '-P', '--directory-prefix');
      return output && output.value !== '-' ? [output] : [];
    },
  },
};

/** `git` options before the subcommand that take a value. */
const GIT_GLOBAL_VALUED: ReadonlySet<string> = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace']);

/** `git clone` options that take a value. */
const GIT_CLONE_VALUED: ReadonlySet<string> = new Set([
  '-b',
  '-o',
  '-c',
  '-u',
  '-j',
  '--branch',
  '--origin',
  '--config',
  '--depth',
  '--reference',
  '--template',
  '--upload-pack',
  '--jobs',
  '--separate-git-dir',
  '--filter',
  '--shallow-since',
  '--shallow-exclude',
]);

/** A `git …` command: its global options and its subcommand with the subcommand's arguments. */
export interface GitCommand {
  readonly global: ParsedArgs;
  readonly verb: string | undefined;
  readonly args: readonly ShellWord[];
}

/** Reads `git [global options] <verb> <args>`; undefined for a command that is not git. */
export function gitCommand(words: readonly ShellWord[]): GitCommand | undefined {
  if (words[0]?.value !== 'git') return undefined;
  let index = 1;
  while (index < words.length && (words[index] as ShellWord).value.startsWith('-')) {
    const text = (words[index] as ShellWord).value;
    index += GIT_GLOBAL_VALUED.has(text) ? 2 : 1;
  }
  const global = parseArgs(words.slice(1, index), GIT_GLOBAL_VALUED);
  return { global, verb: words[index]?.value, args: words.slice(index + 1) };
}

/**
 * True when `words` (a command from its name on) acts on the directory entry `word` names rather than
 * on what a symbolic link there points to: every operand of `rm`, `rmdir` and `unlink`, and the
 * sources of `mv`. Writing, copying into and `mv`'s destination go through the link.
 */
export function actsOnEntry(words: readonly ShellWord[], word: ShellWord): boolean {
  const name = words[0]?.value;
  if (name === 'rm' || name === 'rmdir' || name === 'unlink') return true;
  if (name !== 'mv') return false;
  const args = parseArgs(words.slice(1), new Set(WRITERS.mv?.valued));
  const destination = optionValue(args, '-t', '--target-directory') ?? args.operands.at(-1);
  return word !== destination;
}

/** The words of `words` (a command from its name on) that name files it writes. */
export function writtenFiles(words: readonly ShellWord[]): readonly ShellWord[] {
  const name = words[0]?.value;
  if (name === undefined) return [];
  const git = gitCommand(words);
  if (git) return gitWrites(git);
  // Own keys only: a command named `constructor` writes nothing this table knows.
  const writer = Object.hasOwn(WRITERS, name) ? WRITERS[name] : undefined;
  if (!writer) return [];
  return writer.writes(parseArgs(words.slice(1), new Set(writer.valued)), words);
}

function gitWrites(git: GitCommand): readonly ShellWord[] {
  if (git.verb === 'clone') {
    const { operands } = parseArgs(git.args, GIT_CLONE_VALUED);
    return operands.slice(1, 2);
  }
  if (git.verb === 'worktree' && git.args[0]?.value === 'add') {
    const { operands } = parseArgs(git.args.slice(1), new Set(['-b', '-B', '--reason']));
    return operands.slice(0, 1);
  }
  return [];
}
