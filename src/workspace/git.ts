/**
 * `git` runs one git command through src/proc, addressed by cwd only. Callers own the meaning of
 * the exit code; `gitOrThrow` turns a failure into a RepositoryError naming git's reason.
 */
import { RepositoryError } from '../core/errors.js';
import { type CommandResult, inheritedEnv, runCommand } from '../proc/run.js';

/**
 * How long a local git command may run: 60 s. Local commands (status, log, worktree add) finish in
 * milliseconds to a few seconds even on large repositories; this only catches a hung git.
 */
const LOCAL_TIMEOUT_MS = 60_000;

/**
 * Variables that point git at another repository, index or object store than the cwd's (they are
 * set inside git hooks, for instance). HarmFlow addresses every repository by cwd, so they go.
 */
export const REDIRECTING_VARIABLES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
];

export interface GitOptions {
  readonly timeoutMs?: number;
  /** Variables added to the environment of this command. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Runs `git <args>` in `cwd` with HarmFlow's environment minus repository-redirecting variables,
 * and never a terminal prompt (a credential prompt would wait forever: stdin is ignored).
 */
export function git(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<CommandResult> {
  const env = inheritedEnv();
  for (const name of REDIRECTING_VARIABLES) delete env[name];
  return runCommand('git', args, {
    cwd,
    env: { ...env, GIT_TERMINAL_PROMPT: '0', ...options.env },
    timeoutMs: options.timeoutMs ?? LOCAL_TIMEOUT_MS,
  });
}

/** Runs git and returns its stdout; throws RepositoryError `<what>: <failureLine>` on failure. */
export async function gitOrThrow(cwd: string, args: readonly string[], what: string): Promise<string> {
  const result = await git(cwd, args);
  if (result.exitCode !== 0) throw new RepositoryError(`${what}: ${failureLine(result)}`);
  return result.stdout;
}

/** The line that best says why a git command failed: its first `fatal:`/`error:` line, else its first line. */
export function failureLine(result: CommandResult): string {
  if (result.error !== undefined) return result.error;
  if (result.timedOut) return 'git did not finish in time';
  const lines = result.stderr
    .split('\n')
    .map((text) => text.trim())
    .filter((text) => text.length > 0);
  const line = lines.find((text) => /^(?:fatal|error):/.test(text)) ?? lines[0];
  return line ?? `git exited with ${result.exitCode ?? result.signal}`;
}
