/**
 * How an interpreter takes the program it runs: inline code (`python3 -c …`, `node -e …`, `sh -c …`,
 * `eval …`, an `awk` program), a script file (`python3 x.py`, `bash x.sh`, `source x.sh`), or its
 * stdin (`… | python3`, `… | python3 -`, `bash -s`). The interpreters known: POSIX and other shells,
 * `eval`, `source`/`.`, Python (and PyPy), Node.js, Deno, Bun, Perl, Ruby, PHP, Lua, R, Tcl,
 * PowerShell, AppleScript and awk. For the `commands` gate: code fed to one from the network is
 * refused, and inline code the gates cannot read is judged by what it mentions. Pure.
 */
import { type Option, readOptions } from '../core/command-options.js';
import { SHELLS } from '../core/command-wrappers.js';
import type { ShellWord } from './shell.js';

/** What an interpreter command runs. */
export interface Program {
  /** The interpreter's name, as the command names it (`python3`). */
  readonly interpreter: string;
  /** The word holding its inline code. */
  readonly code?: ShellWord;
  /** The script file it runs (`-` and `/dev/stdin` are its stdin, not a file). */
  readonly script?: ShellWord;
  /** It reads its program from stdin. */
  readonly stdin: boolean;
}

interface Spec {
  /** Options whose value is inline code. */
  readonly code?: readonly string[];
  /** Options with which the first operand is inline code (`sh -c`). */
  readonly codeOperand?: readonly string[];
  /** Options whose value is the script file (`php -f`). */
  readonly script?: readonly string[];
  /** Other options that take a value. */
  readonly valued?: readonly string[];
  /** Options with which it runs neither code nor stdin but a module (`python3 -m`). */
  readonly module?: readonly string[];
  /** Options with which it reads its program from stdin (`bash -s`). */
  readonly stdinFlags?: readonly string[];
  /** Its first operand is its program (`awk '…'`), unless a script option names a file. */
  readonly operandIsCode?: true;
  /** Never reads its program from stdin (awk reads data there). */
  readonly noStdin?: true;
  /** A subcommand comes first (`deno run x.ts`, `deno eval '…'`): these run a script, these code. */
  readonly scriptVerbs?: readonly string[];
  readonly codeVerbs?: readonly string[];
}

const SHELL: Spec = {
  codeOperand: ['-c'],
  valued: ['-o', '-O', '--rcfile', '--init-file'],
  stdinFlags: ['-s'],
};

const SPECS: Readonly<Record<string, Spec>> = {
  ...Object.fromEntries([...SHELLS].map((name) => [name, SHELL])),
  source: {},
  '.': {},
  python: { code: ['-c'], valued: ['-W', '-X', '-Q'], module: ['-m'] },
  node: {
    code: ['-e', '--eval', '-p', '--print'],
    valued: ['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions'],
  },
  deno: { scriptVerbs: ['run'], codeVerbs: ['eval'], noStdin: true },
  bun: { code: ['-e', '--eval', '-p', '--print'], noStdin: true },
  perl: { code: ['-e', '-E'], valued: ['-I', '-M', '-m'] },
  ruby: { code: ['-e'], valued: ['-I', '-r', '-C', '-E', '-F'] },
  php: { code: ['-r'], script: ['-f'], valued: ['-c', '-d', '-z', '-t'] },
  lua: { code: ['-e'], valued: ['-l'] },
  Rscript: { code: ['-e'] },
  tclsh: {},
  wish: {},
  pwsh: { code: ['-c', '-Command', '-command'], script: ['-f', '-File', '-file'] },
  osascript: { code: ['-e'], valued: ['-l'] },
  awk: { operandIsCode: true, script: ['-f'], valued: ['-F', '-v'], noStdin: true },
};

/** Names that stand for an entry of SPECS: versioned Pythons, `nodejs`, `gawk`, `luajit`, … */
const ALIASES: readonly (readonly [RegExp, string])[] = [
  [/^(?:python|pypy)[\d.]*$/, 'python'],
  [/^nodejs$/, 'node'],
  [/^(?:g|m|n)awk$/, 'awk'],
  [/^luajit$|^lua[\d.]+$/, 'lua'],
  [/^powershell$/, 'pwsh'],
  [/^perl[\d.]+$/, 'perl'],
  [/^ruby[\d.]+$/, 'ruby'],
  [/^php[\d.]+$/, 'php'],
];

/** A script operand that is the interpreter's own stdin. */
const STDIN_SCRIPT = /^(?:-|\/dev\/stdin|\/proc\/self\/fd\/0|\/dev\/fd\/0)$/;

/** What `words` (a command, from its name on) runs, when its name is an interpreter's. */
export function programOf(words: readonly ShellWord[]): Program | undefined {
  const interpreter = words[0]?.value ?? '';
  if (interpreter === 'eval') return evalProgram(words);
  const key = Object.hasOwn(SPECS, interpreter)
    ? interpreter
    : ALIASES.find(([pattern]) => pattern.test(interpreter))?.[1];
  const spec = key === undefined ? undefined : SPECS[key];
  if (spec === undefined) return undefined;
  let start = 1;
  let verb: 'script' | 'code' | undefined;
  if (spec.scriptVerbs || spec.codeVerbs) {
    const word = words[1]?.value ?? '';
    verb = spec.scriptVerbs?.includes(word) ? 'script' : spec.codeVerbs?.includes(word) ? 'code' : undefined;
    if (verb === undefined) return { interpreter, stdin: false };
    start = 2;
  }
  const values = words.map((word) => word.value);
  const valued = new Set([
    ...(spec.code ?? []),
    ...(spec.script ?? []),
    ...(spec.valued ?? []),
    ...(spec.module ?? []),
  ]);
  const { options, next } = readOptions(values, start, valued);
  const has = (names: readonly string[] | undefined) => options.find((option) => names?.includes(option.name));
  if (has(spec.module)) return { interpreter, stdin: false };
  const codeOption = has(spec.code);
  const scriptOption = has(spec.script);
  const operand = words[next];
  const operandIsCode = verb === 'code' || has(spec.codeOperand) || (spec.operandIsCode && !scriptOption);
  const code = codeOption ? valueWord(words, codeOption) : operandIsCode ? operand : undefined;
  const named = scriptOption ? valueWord(words, scriptOption) : code === undefined ? operand : undefined;
  const fromStdin = named !== undefined && STDIN_SCRIPT.test(named.value);
  const script = fromStdin ? undefined : named;
  const stdin =
    !spec.noStdin && (fromStdin || has(spec.stdinFlags) !== undefined || (code === undefined && script === undefined));
  return {
    interpreter,
    ...(code !== undefined && { code }),
    ...(script !== undefined && { script }),
    stdin,
  };
}

/** `eval a b c` runs the line `a b c`. */
function evalProgram(words: readonly ShellWord[]): Program {
  const rest = words.slice(1);
  if (rest.length === 0) return { interpreter: 'eval', stdin: false };
  const code: ShellWord = {
    value: rest.map((word) => word.value).join(' '),
    expands: rest.some((word) => word.expands),
    glob: false,
    tilde: false,
  };
  return { interpreter: 'eval', code, stdin: false };
}

/** The word holding `option`'s value: the tail of its own word when attached, else the next. */
function valueWord(words: readonly ShellWord[], option: Option): ShellWord | undefined {
  if (option.valueAt === undefined) return undefined;
  const word = words[option.valueAt];
  if (word === undefined || option.attached === undefined) return word;
  return { ...word, value: option.attached, tilde: false };
}
