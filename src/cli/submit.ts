/**
 * `harmflow submit TASK` — hands a task file to the running service and returns at once with the
 * execution's id. The file is loaded and validated here exactly as `run` loads it (same messages,
 * exit 3, nothing sent); the service has no folder to resolve relative paths against, so the task
 * goes over the wire with `repo` and every `simulate` made absolute, and with the user's git identity
 * in each link's `env` where the link gives none (`withUserGitIdentity`). The service checks the rest
 * (repository, installed harnesses) on its own machine. The request carries one `Idempotency-Key`
 * for the invocation and is sent again with it while the service restarts (client.ts, retry.ts):
 * one invocation, one execution.
 */
import { readFileSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { TaskFileError } from '../core/errors.js';
import { isRepositoryUrl } from '../core/repository-url.js';
import { type GitIdentity, TaskFile } from '../core/task.js';
import { loadTaskFile } from '../core/task-file.js';
import { GIT_IDENTITY_VARIABLES, gitIdentityEnv, resolveGitIdentity, userGitEnv } from '../workspace/git-identity.js';
import { connect, HOME_HELP, URL_HELP } from './client.js';

/**
 * The task file at `path` as the service takes it: validated by `loadTaskFile` (the messages and
 * exit code of `run`), then the file as written, with its defaults filled in and `repo` and each
 * `simulate` replaced by the absolute paths `loadTaskFile` resolved. Every other field goes as
 * written, so a field added to the task file travels without a change here.
 */
export function taskForService(path: string): TaskFile {
  const task = loadTaskFile(path);
  // loadTaskFile returns the resolved Task; the wire carries the file, read again for its fields.
  let file: TaskFile;
  try {
    file = TaskFile.parse(parse(readFileSync(path, 'utf8')) ?? {});
  } catch (cause) {
    throw new TaskFileError(`${path}: changed while it was read`, { cause });
  }
  const [primary, ...fallbacks] = [file.harness, ...file.fallbacks].map((spec, index) => {
    const simulate = task.chain[index]?.simulate;
    return typeof spec === 'string' || simulate === undefined ? spec : { ...spec, simulate };
  });
  return { ...file, repo: task.repo, harness: primary ?? file.harness, fallbacks };
}

export function registerSubmit(program: Command): void {
  program
    .command('submit')
    .description('hand a task file to the running service (harmflow serve); prints the execution id')
    .argument('<task>', 'the task file (YAML)')
    .option('--json', 'print the execution record as JSON')
    .option('--home <dir>', HOME_HELP)
    .option('--url <url>', URL_HELP)
    .action(async (taskPath: string, options: { json?: boolean; home?: string; url?: string }) => {
      const file = taskForService(taskPath); // before the token: a bad file is exit 3 with or without one
      const identity = await userGitIdentity(file.repo, process.env);
      const task = identity === undefined ? file : withUserGitIdentity(file, identity);
      const execution = await connect(options).submit(task);
      process.stdout.write(
        options.json ? `${JSON.stringify(execution, null, 2)}\n` : `${execution.id} ${execution.state}\n`,
      );
    });
}

/**
 * The identity `git commit` has for the user here: `git var` with their environment, in the task's
 * repository when it is a folder on this machine (its own config counts), else in the current
 * folder. Undefined when git knows none: the task goes as written, and the service says what is
 * missing.
 */
export async function userGitIdentity(repo: string, hostEnv: NodeJS.ProcessEnv): Promise<GitIdentity | undefined> {
  const local = !isRepositoryUrl(repo) && statSync(repo, { throwIfNoEntry: false })?.isDirectory() === true;
  const resolution = await resolveGitIdentity(local ? repo : process.cwd(), userGitEnv(hostEnv));
  return resolution.ok ? resolution.identity : undefined;
}

/**
 * `file` with `identity` in each link's `env`, for each of the four GIT_* variables the link gives
 * neither in `env` nor by `passEnv` (its own choice wins; an `EMAIL` it gives keeps both emails its
 * own). A cluster's workers run each harness with nothing of the user's git config in sight, so the
 * identity travels with the task (docs/cluster.md); a single-machine service takes it the same way.
 */
export function withUserGitIdentity(file: TaskFile, identity: GitIdentity): TaskFile {
  const values = gitIdentityEnv(identity);
  const fill = (spec: TaskFile['harness']): TaskFile['harness'] => {
    const link = typeof spec === 'string' ? { harness: spec } : spec;
    const given = new Set([...Object.keys(link.env ?? {}), ...(link.passEnv ?? [])]);
    const added: Record<string, string> = {};
    for (const name of GIT_IDENTITY_VARIABLES) {
      if (given.has(name) || (given.has('EMAIL') && name.endsWith('_EMAIL'))) continue;
      added[name] = values[name] ?? '';
    }
    if (Object.keys(added).length === 0) return spec;
    return { ...link, env: { ...added, ...link.env } };
  };
  return { ...file, harness: fill(file.harness), fallbacks: file.fallbacks.map(fill) };
}
