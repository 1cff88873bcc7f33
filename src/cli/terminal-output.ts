/**
 * How a verb that prints lines for people (`events`, `run`'s and the demo's timelines) fits them to
 * where stdout goes: on a terminal, each line cut at its width and colour allowed; piped or
 * redirected, whole lines and no colour, so `grep`, `less` and files get everything. Colour follows
 * no-color.org and the `FORCE_COLOR` that Node and chalk read: `FORCE_COLOR` forces it on, even when
 * piped (`0` or `false` force it off); else `NO_COLOR` set to anything but the empty string turns it
 * off, as does `TERM=dumb`; else a terminal gets it. Tiny on purpose, with no package: `events` runs
 * from the record verbs' bundle (cli/bundled-verbs.ts), whose start is measured.
 */

/** What is known of stdout: whether it is a terminal, and its width when it is. */
export interface OutputStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** How lines are printed. */
export interface TerminalOutput {
  /** Cut a line longer than this many characters; undefined: print it whole. */
  readonly width: number | undefined;
  readonly colour: boolean;
}

/** The colours lines use: SGR foreground codes. */
const SGR = { red: 31, green: 32, yellow: 33 } as const;
export type Colour = keyof typeof SGR;

/** How to print to `stream` under `env` (see the file header). */
export function terminalOutput(stream: OutputStream, env: NodeJS.ProcessEnv): TerminalOutput {
  const terminal = stream.isTTY === true;
  const width = terminal && stream.columns !== undefined && stream.columns > 0 ? stream.columns : undefined;
  return { width, colour: colourWanted(terminal, env) };
}

/** Whether to colour output to a terminal (`terminal`) or not, under `env` (see the file header). */
export function colourWanted(terminal: boolean, env: NodeJS.ProcessEnv): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return terminal;
}

/**
 * `line` cut to `width` characters, its last one `…`, when it is longer; as it is otherwise or
 * without a width. Characters are code points (an emoji is never split); a wide one (CJK) counts
 * as one, so such a line may still wrap.
 */
export function fitLine(line: string, width: number | undefined): string {
  if (width === undefined || line.length <= width) return line;
  const points = [...line];
  return points.length <= width ? line : `${points.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** `text` in `colour`, then back to the terminal's default colour. */
export function paint(text: string, colour: Colour): string {
  return `\x1b[${SGR[colour]}m${text}\x1b[39m`;
}
