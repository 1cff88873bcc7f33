/**
 * A real terminal for the terminal UI's end-to-end test: a program run in a detached tmux session of
 * an exact size (80×24 by default, no status line) on a private tmux server — its own socket in a
 * temporary folder, never the user's server, nothing bound — driven with `send-keys` and read with
 * `capture-pane`. The program gets its arguments as they are (positional parameters of a fixed `sh`
 * script that writes its exit status to a file: tmux 3.3a does not always reap a pane's process, so
 * `#{pane_dead_status}` can stay empty) and its variables with `new-session -e`, over a base
 * environment of PATH and HOME only, so nothing of the caller's (`NO_COLOR`, `TMUX`) leaks in. The
 * pane stays after the program exits (`remain-on-exit`). Every tmux call is bounded; `kill()` ends
 * the server and removes the temporary folder.
 *
 * tmux is `HARMFLOW_TMUX` or `tmux` on PATH. Without it the tests are skipped with one line saying
 * how to enable them; with HARMFLOW_REQUIRE_TMUX=1 (CI) a missing tmux is a failure, never a skip.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const TMUX = process.env.HARMFLOW_TMUX ?? 'tmux';
const REQUIRED = process.env.HARMFLOW_REQUIRE_TMUX === '1';
/** How long one tmux command may take. */
const COMMAND_MS = 5_000;
const SESSION = 'harmflow';

const run = promisify(execFile);

/** True when tmux answers `tmux -V`; otherwise one line (or a throw when it is required). */
export function tmuxAvailable(): boolean {
  const version = spawnSync(TMUX, ['-V'], { encoding: 'utf8', timeout: COMMAND_MS });
  if (version.status === 0) return true;
  const how = 'install tmux (`apt-get install -y tmux`) or set HARMFLOW_TMUX';
  if (REQUIRED) throw new Error(`HARMFLOW_REQUIRE_TMUX=1 but ${TMUX} does not run: ${how}`);
  process.stdout.write(`terminal tests skipped (no ${TMUX}): ${how}\n`);
  return false;
}

export interface TerminalOptions {
  /** The program and its arguments, never parsed by a shell. */
  readonly command: readonly string[];
  /** Its variables besides PATH and HOME; `TERM` is also the terminal tmux says it is. */
  readonly env: Readonly<Record<string, string>>;
  readonly width?: number;
  readonly height?: number;
}

export interface Terminal {
  /** Presses keys by tmux's names (`Enter`, `Escape`, `Tab`, `Down`, `q`). */
  press(...keys: string[]): Promise<void>;
  /** Types `text` as it is (`send-keys -l`). */
  type(text: string): Promise<void>;
  /** The screen as plain text, one string per line; with `escapes`, with its colors and attributes. */
  capture(options?: { readonly escapes?: boolean }): Promise<string[]>;
  /** Bounded wait for a screen (plain text) that satisfies `accept`; fails showing the last one. */
  screenWhere(accept: (screen: string) => boolean, timeoutMs?: number): Promise<string>;
  /**
   * From now on, appends what the program writes to the terminal — its bytes as they are, escape
   * sequences included — to `file` (`pipe-pane -O`), for a test of how a program draws.
   */
  record(file: string): Promise<void>;
  /** The program's exit status once it has exited and its pane is dead, else undefined. */
  exitStatus(): Promise<number | undefined>;
  /** Ends the tmux server, the program with it, and removes the socket's folder. */
  kill(): Promise<void>;
}

/** Starts `command` in a new terminal of `width`×`height`. */
export async function startTerminal(options: TerminalOptions): Promise<Terminal> {
  const folder = mkdtempSync(join(tmpdir(), 'harmflow-tmux-'));
  const socket = join(folder, 'socket');
  const statusFile = join(folder, 'status');
  const term = options.env.TERM ?? 'xterm-256color';
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? folder, TERM: term };
  // -u: the screen is UTF-8 (`›`, `●`) whatever the locale; -f /dev/null: no user configuration.
  const tmux = async (...args: string[]) =>
    (await run(TMUX, ['-u', '-f', '/dev/null', '-S', socket, ...args], { env: base, timeout: COMMAND_MS })).stdout;
  const target = `${SESSION}:0.0`;
  const variables = Object.entries({ ...options.env, TERM: term }).flatMap(([name, value]) => [
    '-e',
    `${name}=${value}`,
  ]);
  const end = async () => {
    await tmux('kill-server').catch(() => undefined);
    rmSync(folder, { recursive: true, force: true });
  };
  await tmux(
    ...['set-option', '-g', 'status', 'off', ';'],
    ...['set-option', '-g', 'remain-on-exit', 'on', ';'],
    ...['set-option', '-g', 'default-terminal', term, ';'],
    ...['new-session', '-d', '-s', SESSION, '-x', String(options.width ?? 80), '-y', String(options.height ?? 24)],
    ...variables,
    ...['sh', '-c', '"$@"; echo "$?" > "$0"', statusFile, ...options.command],
  ).catch(async (error: unknown) => {
    await end();
    throw error;
  });
  const capture = async (escapes = false) => {
    const text = await tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', target);
    return text.replace(/\n$/, '').split('\n');
  };
  return {
    async press(...keys) {
      await tmux('send-keys', '-t', target, ...keys);
    },
    async type(text) {
      await tmux('send-keys', '-t', target, '-l', text);
    },
    capture: (captureOptions) => capture(captureOptions?.escapes === true),
    async screenWhere(accept, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const screen = (await capture()).join('\n');
        if (accept(screen)) return screen;
        if (Date.now() > deadline) throw new Error(`no such screen within ${timeoutMs} ms; the last was:\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async record(file) {
      await tmux('pipe-pane', '-O', '-t', target, `cat >> '${file.replaceAll("'", "'\\''")}'`);
    },
    async exitStatus() {
      const dead = (await tmux('display-message', '-p', '-t', target, '#{pane_dead}')).trim() === '1';
      return dead && existsSync(statusFile) ? Number(readFileSync(statusFile, 'utf8')) : undefined;
    },
    kill: end,
  };
}
