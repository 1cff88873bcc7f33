/**
 * `runCommand` runs a short-lived command (git, mostly) to completion and returns its output. Like
 * every child, it leads its own process group, and the group is gone when the promise resolves;
 * a command that outlives `timeoutMs` is killed with all it started (e.g. the ssh under
 * `git ls-remote`).
 */
import { type ProcessExit, type StreamName, startChild } from './child.js';

export interface CommandOptions {
  readonly cwd: string;
  /** The complete environment; when absent, the environment HarmFlow itself runs with. */
  readonly env?: Readonly<Record<string, string>>;
  /** After this long the command's group is killed and the result marked `timedOut`. */
  readonly timeoutMs: number;
  /** Written to the command's stdin (then closed); without it stdin is /dev/null. */
  readonly input?: string;
}

export interface CommandResult extends ProcessExit {
  /** stdout decoded as UTF-8. */
  readonly stdout: string;
  /** stderr decoded as UTF-8. */
  readonly stderr: string;
  /** True when the command had not finished (exited, output closed) within `timeoutMs`. */
  readonly timedOut: boolean;
}

/** Runs `command` with `args` (argv, no shell). Never rejects; see `ProcessExit`. */
export async function runCommand(
  command: string,
  args: readonly string[],
  options: CommandOptions,
): Promise<CommandResult> {
  const chunks: Record<StreamName, Buffer[]> = { stdout: [], stderr: [] };
  const child = startChild(
    {
      command,
      args,
      cwd: options.cwd,
      env: options.env ?? inheritedEnv(),
      ...(options.input !== undefined && { stdin: options.input }),
    },
    { onData: (stream, chunk) => chunks[stream].push(chunk), onEnd: () => {} },
  );
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.signal('SIGKILL');
  }, options.timeoutMs);
  const exit = await child.exited;
  clearTimeout(timer);
  return {
    ...exit,
    stdout: Buffer.concat(chunks.stdout).toString('utf8'),
    stderr: Buffer.concat(chunks.stderr).toString('utf8'),
    timedOut,
  };
}

/** Returns process.env without its unset entries. */
export function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
}
