/**
 * Commands that run other commands, read from a simple command's words (quotes already removed):
 *
 * - wrappers that run the command after their own options: `timeout 60 git push`, `sudo -u x …`,
 *   `env A=b …`, `nice`, `nohup`, `time`, `command`, `builtin`, `exec`, `stdbuf`, `ionice`, `chrt`,
 *   `setsid`, `taskset`, `flock`, `chroot`, `unbuffer`, `fakeroot`, `doas`, `pkexec`, `runuser -u`,
 *   `busybox <applet>`, `xargs` (which adds arguments read at run time), `watch -x`, and leading
 *   keywords (`if`, `!`, …) and `NAME=value` assignments;
 * - commands whose argument is a command line a shell runs: `sh -c`, `bash -lc`, `eval`, `su -c`,
 *   `runuser -c`, `script -c`, `flock -c`, `env -S`, `watch` (its words joined), `parallel` (its
 *   template with each argument), and git aliases defined on the command line
 *   (`git -c alias.x='!…' x`, `git -c alias.p=push p`);
 * - `find … -exec`/`-execdir`/`-ok`/`-okdir … ;`, whose `{}` stands for the files found.
 *
 * `unwrap` reads one layer; callers apply it again to what it finds, to a bound of their choosing.
 * Shared by the gates (src/gates/command-line.ts) and the operation recognizer
 * (src/events/operations.ts), so what a command runs is read the same way in both. Pure.
 */

import { type Option, readOptions } from './command-options.js';
import { shellWord } from './shell-words.js';

/** One command a wrapper runs. Word indices are into the words `unwrap` was given. */
export type Run =
  | {
      readonly kind: 'command';
      /** `words.slice(from, until)` is the command, from its name on. */
      readonly from: number;
      readonly until: number;
      /** More arguments are added at run time (`xargs`, `parallel` reading stdin). */
      readonly appends?: true;
      /** A word holding this token stands for something only run time knows (`xargs -I {}`). */
      readonly placeholder?: string;
      /** `find -exec`: `{}` stands for files found under these words (find's start paths); empty: `.`. */
      readonly found?: readonly number[];
    }
  | {
      readonly kind: 'line';
      /** The command line a shell runs. */
      readonly text: string;
      /** The words it was made of: when one of them expands, `text` is known only at run time. */
      readonly sources: readonly number[];
    };

export interface Unwrapped {
  /** The command itself does something worth judging too (`find`, a shell given `-c`, `eval`). */
  readonly keeps: boolean;
  /** What it runs: none when it runs nothing (`command -v git`, `chrt -p 10 1234`). */
  readonly runs: readonly Run[];
}

/** The name a command is run by: the last part of its path (`/usr/bin/git` → `git`). */
export function programName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/** `NAME=value`: an assignment, not a command. */
export function isAssignment(word: string): boolean {
  return ASSIGNMENT.test(word);
}

/** Shells whose `-c` makes their first operand a command line. */
export const SHELLS: ReadonlySet<string> = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'ash',
  'yash',
  'fish',
  'csh',
  'tcsh',
]);

/**
 * What `words` (a simple command, from its first word on) runs, when its first word is a keyword,
 * an assignment or a command that runs others; undefined when it is an ordinary command.
 */
export function unwrap(words: readonly string[]): Unwrapped | undefined {
  const first = words[0];
  if (first === undefined) return undefined;
  if (HEADERS.has(first)) return { keeps: false, runs: [] };
  if (KEYWORDS.has(first) || ASSIGNMENT.test(first)) return runsFrom(words, 1);
  const name = programName(first);
  if (SHELLS.has(name)) return shellLine(words);
  // Own keys only: a command named `constructor` or `toString` is not a wrapper.
  if (Object.hasOwn(SPECIAL, name)) return SPECIAL[name]?.(words);
  return Object.hasOwn(WRAPPERS, name) ? wrapped(words, WRAPPERS[name] as Wrapper) : undefined;
}

const ASSIGNMENT = /^[A-Za-z_]\w*=/;

/** Words that may start a simple command without being its name. */
const KEYWORDS: ReadonlySet<string> = new Set([
  '!',
  '{',
  '}',
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
]);

/** Words that open a loop or `case` header, which runs no command itself. */
const HEADERS: ReadonlySet<string> = new Set(['for', 'select', 'case']);

/** How a wrapper's words read: options, then `operands` words of its own, then the command. */
interface Wrapper {
  /** Options that take a value (the next word, when it is not attached). */
  readonly valued?: readonly string[];
  /** Words of its own between its options and the command (`timeout`'s duration, `flock`'s file). */
  readonly operands?: number;
  /** Options with which it runs no command (`command -v`, `chrt -p`). */
  readonly runsNothing?: readonly string[];
  /** Options whose value is a command line a shell runs (`su -c`, `env -S`); also after the operands. */
  readonly line?: readonly string[];
  /** The line option may come anywhere, even after a user name (`su root -c …`). */
  readonly lineAnywhere?: true;
  /** Without one of these options it runs no command of the line (`su user` starts a login shell). */
  readonly commandOnlyWith?: readonly string[];
}

const WRAPPERS: Readonly<Record<string, Wrapper>> = {
  timeout: { valued: ['-s', '-k', '--signal', '--kill-after'], operands: 1 },
  sudo: {
    valued: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-T', '-U', '--user', '--group', '--chdir', '--host'],
    runsNothing: ['-e', '--edit', '-l', '--list', '-v', '--validate', '-k', '-K'],
  },
  doas: { valued: ['-u', '-C'] },
  pkexec: { valued: ['--user'] },
  env: { valued: ['-u', '-C', '--unset', '--chdir'], line: ['-S', '--split-string'] },
  nice: { valued: ['-n', '--adjustment'] },
  nohup: {},
  time: { valued: ['-f', '-o', '--format', '--output'] },
  command: { runsNothing: ['-v', '-V'] },
  builtin: {},
  exec: { valued: ['-a'] },
  stdbuf: { valued: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  ionice: {
    valued: ['-c', '-n', '--class', '--classdata'],
    runsNothing: ['-p', '-P', '-u', '--pid', '--pgid', '--uid'],
  },
  chrt: {
    valued: ['-T', '-P', '-D', '--sched-runtime', '--sched-period', '--sched-deadline'],
    operands: 1,
    runsNothing: ['-p', '--pid'],
  },
  taskset: { operands: 1, runsNothing: ['-p', '--pid'] },
  setsid: {},
  unbuffer: {},
  fakeroot: { valued: ['-l', '-s', '-i', '--lib', '--faked'] },
  chroot: { valued: ['--userspec', '--groups'], operands: 1 },
  flock: { valued: ['-w', '-E', '--timeout', '--conflict-exit-code'], operands: 1, line: ['-c', '--command'] },
  runuser: {
    valued: ['-u', '-g', '-G', '-s', '-w', '--user', '--group', '--supp-group', '--shell'],
    line: ['-c', '--command'],
    lineAnywhere: true,
    commandOnlyWith: ['-u', '--user'],
  },
  su: {
    valued: ['-g', '-G', '-s', '-w', '--group', '--supp-group', '--shell'],
    line: ['-c', '--command'],
    lineAnywhere: true,
    commandOnlyWith: [],
  },
  script: {
    valued: ['-E', '-I', '-O', '-T', '-B', '-m', '--echo', '--log-in', '--log-out', '--log-timing'],
    line: ['-c', '--command'],
    lineAnywhere: true,
    commandOnlyWith: [],
  },
};

/** Commands read by code of their own. */
const SPECIAL: Readonly<Record<string, (words: readonly string[]) => Unwrapped | undefined>> = {
  eval: (words) => ({ keeps: true, runs: words.length > 1 ? [line(words, range(1, words.length))] : [] }),
  busybox: (words) =>
    words[1] === undefined || words[1].startsWith('-') ? { keeps: true, runs: [] } : runsFrom(words, 1),
  find: findExec,
  xargs: xargsCommand,
  watch: watchCommand,
  parallel: parallelCommand,
  git: gitAlias,
};

function runsFrom(words: readonly string[], from: number): Unwrapped {
  return { keeps: false, runs: [{ kind: 'command', from, until: words.length }] };
}

function line(words: readonly string[], sources: readonly number[]): Run {
  return { kind: 'line', text: sources.map((index) => words[index]).join(' '), sources };
}

function range(from: number, until: number): number[] {
  return Array.from({ length: Math.max(0, until - from) }, (_, offset) => from + offset);
}

function wrapped(words: readonly string[], wrapper: Wrapper): Unwrapped {
  const lineOptions = wrapper.line ?? [];
  const { options, next } = readOptions(words, 1, new Set([...(wrapper.valued ?? []), ...lineOptions]));
  if (options.some((option) => wrapper.runsNothing?.includes(option.name))) return { keeps: true, runs: [] };
  const from = next + (wrapper.operands ?? 0);
  const script =
    options.find((option) => lineOptions.includes(option.name)) ??
    lineOption(words, from, lineOptions) ??
    (wrapper.lineAnywhere ? lineOptionAnywhere(words, lineOptions) : undefined);
  if (script?.valueAt !== undefined) {
    // `env -S 'a b' c`: the string is split into words and the words after it follow.
    const value = script.attached ?? words[script.valueAt] ?? '';
    const rest = wrapper.lineAnywhere ? [] : range(Math.max(from, script.valueAt + 1), words.length);
    const text = [value, ...rest.map((index) => shellWord(words[index] as string))].join(' ');
    return { keeps: false, runs: [{ kind: 'line', text, sources: [script.valueAt, ...rest] }] };
  }
  const interactive = wrapper.commandOnlyWith?.every((name) => !options.some((option) => option.name === name));
  if (interactive || from >= words.length) return { keeps: true, runs: [] };
  return runsFrom(words, from);
}

/** The line option (`-c`, `--command[=…]`) written at `index`, if one is. */
function lineOption(words: readonly string[], index: number, names: readonly string[]): Option | undefined {
  const word = words[index];
  if (word === undefined) return undefined;
  const equals = word.indexOf('=');
  const name = equals < 0 ? word : word.slice(0, equals);
  if (!names.includes(name)) return undefined;
  return equals < 0 ? { name, valueAt: index + 1 } : { name, valueAt: index, attached: word.slice(equals + 1) };
}

function lineOptionAnywhere(words: readonly string[], names: readonly string[]): Option | undefined {
  for (let index = 1; index < words.length; index++) {
    const option = lineOption(words, index, names);
    if (option) return option;
  }
  return undefined;
}

/** Shell options that take a value. */
const SHELL_VALUED: ReadonlySet<string> = new Set(['-o', '-O', '--rcfile', '--init-file']);

/** `sh -c 'line'`: the first operand after the options is the command line, when `-c` is among them. */
function shellLine(words: readonly string[]): Unwrapped {
  const { options, next } = readOptions(words, 1, SHELL_VALUED);
  if (!options.some((option) => option.name === '-c') || next >= words.length) return { keeps: true, runs: [] };
  return { keeps: true, runs: [line(words, [next])] };
}

/** The actions of `find` that run a command, up to `;` or `+`. */
const FIND_EXEC: ReadonlySet<string> = new Set(['-exec', '-execdir', '-ok', '-okdir']);

function findExec(words: readonly string[]): Unwrapped {
  let index = 1;
  while (index < words.length && /^-(?:[HLP]|D|O\d*)$/.test(words[index] as string)) {
    index += words[index] === '-D' ? 2 : 1;
  }
  const found: number[] = [];
  while (index < words.length && !/^[-(!]/.test(words[index] as string)) found.push(index++);
  const runs: Run[] = [];
  for (; index < words.length; index++) {
    if (!FIND_EXEC.has(words[index] as string)) continue;
    const from = index + 1;
    let until = from;
    while (until < words.length && words[until] !== ';' && words[until] !== '+') until++;
    if (until > from) runs.push({ kind: 'command', from, until, placeholder: '{}', found });
    index = until;
  }
  return { keeps: true, runs };
}

const XARGS_VALUED: ReadonlySet<string> = new Set([
  ...['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter', '--max-lines', '--max-args'],
  ...['--max-procs', '--max-chars', '--process-slot-var'],
]);

/** `xargs [options] command …`: the command, given more arguments at run time (or `{}` replaced). */
function xargsCommand(words: readonly string[]): Unwrapped {
  const { options, next } = readOptions(words, 1, XARGS_VALUED);
  // `-i`, `-iR` and `--replace[=R]` replace R (default `{}`); `-I R` replaces R.
  const replace = options.find((option) => ['-I', '-i', '--replace'].includes(option.name));
  const token =
    replace === undefined
      ? undefined
      : replace.name === '-I'
        ? (replace.attached ?? words[replace.valueAt ?? -1])
        : (replace.attached ?? '{}');
  if (next >= words.length) return { keeps: false, runs: [] };
  return {
    keeps: false,
    runs: [
      token === undefined
        ? { kind: 'command', from: next, until: words.length, appends: true }
        : { kind: 'command', from: next, until: words.length, placeholder: token },
    ],
  };
}

/** `watch [options] command…`: its words joined are a line `sh -c` runs, or with `-x` a command. */
function watchCommand(words: readonly string[]): Unwrapped {
  const { options, next } = readOptions(words, 1, new Set(['-n', '--interval', '-q', '--equexit']));
  if (next >= words.length) return { keeps: false, runs: [] };
  if (options.some((option) => option.name === '-x' || option.name === '--exec')) return runsFrom(words, next);
  return { keeps: false, runs: [line(words, range(next, words.length))] };
}

const PARALLEL_VALUED: ReadonlySet<string> = new Set([
  ...['-j', '-S', '-a', '-d', '-I', '-N', '-n', '-L', '-E', '-C', '-P', '--jobs', '--sshlogin', '--arg-file'],
  ...['--delimiter', '--colsep', '--joblog', '--results', '--res', '--tmpdir', '--workdir', '--wd', '--timeout'],
  ...['--env', '--delay', '--max-procs', '--max-args', '--max-lines', '--basefile', '--return', '--tagstring'],
  ...['--halt', '--memfree', '--load', '--retries', '--sshloginfile'],
]);

/** The most arguments of `parallel … ::: a b c` read: each makes one command line. */
const PARALLEL_ARGUMENTS = 64;

/**
 * `parallel [options] template ::: arguments`: a line per argument, the template with `{}` replaced
 * by it (or it appended); without `:::` the arguments come from stdin or files at run time.
 */
function parallelCommand(words: readonly string[]): Unwrapped {
  const { next } = readOptions(words, 1, PARALLEL_VALUED);
  const marker = words.findIndex((word, index) => index >= next && /^:::[:+]*$/.test(word));
  const template = range(next, marker < 0 ? words.length : marker);
  if (marker < 0 || words[marker]?.startsWith('::::')) {
    return template.length === 0
      ? { keeps: false, runs: [] }
      : { keeps: false, runs: [{ kind: 'command', from: next, until: words.length, appends: true }] };
  }
  let end = marker + 1;
  while (end < words.length && !/^:::/.test(words[end] as string)) end++;
  const runs = range(marker + 1, end)
    .slice(0, PARALLEL_ARGUMENTS)
    .map((argument): Run => {
      // Without a template each argument is a command line; into a template, parallel quotes it.
      const raw = words[argument] as string;
      const value = shellWord(raw);
      const parts = template.map((index) => words[index] as string);
      const text =
        template.length === 0
          ? raw
          : parts.some((part) => part.includes('{}'))
            ? parts.map((part) => part.replaceAll('{}', value)).join(' ')
            : [...parts, value].join(' ');
      return { kind: 'line', text, sources: [...template, argument] };
    });
  return { keeps: false, runs };
}

/** git's global options that take a value. */
const GIT_VALUED: ReadonlySet<string> = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
]);

/**
 * `git -c alias.name=value … name args`: the alias's command. A value starting with `!` is a line
 * a shell runs with the arguments appended; another value is git's own words in place of the name.
 */
function gitAlias(words: readonly string[]): Unwrapped | undefined {
  const { options, next } = readOptions(words, 1, GIT_VALUED);
  const verb = words[next];
  if (verb === undefined) return undefined;
  const alias = options.find((option) => {
    const value = option.attached ?? words[option.valueAt ?? -1] ?? '';
    return option.name === '-c' && value.toLowerCase().startsWith(`alias.${verb.toLowerCase()}=`);
  });
  if (alias?.valueAt === undefined) return undefined;
  const setting = alias.attached ?? (words[alias.valueAt] as string);
  const value = setting.slice(setting.indexOf('=') + 1);
  const rest = range(next + 1, words.length);
  const args = rest.map((index) => shellWord(words[index] as string));
  const sources = [alias.valueAt, ...rest];
  if (value.startsWith('!'))
    return { keeps: false, runs: [{ kind: 'line', text: [value.slice(1), ...args].join(' '), sources }] };
  // Git's other global options stay: `git -C dir -c alias.p=push p` pushes from dir.
  const global = range(1, next).filter((index) => !aliasWords(alias).includes(index));
  const text = ['git', ...global.map((index) => shellWord(words[index] as string)), value, ...args].join(' ');
  return { keeps: false, runs: [{ kind: 'line', text, sources }] };
}

/** The word indices an option was written in: its own and, when its value is not attached, the next. */
function aliasWords(option: Option): number[] {
  return option.attached === undefined && option.valueAt !== undefined
    ? [option.valueAt - 1, option.valueAt]
    : [option.valueAt ?? -1];
}
