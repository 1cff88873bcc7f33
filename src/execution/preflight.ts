/**
 * Checks a task before anything is created: the repository and base ref exist, every harness of the
 * chain is installed (or simulated from a readable scenario), and every harness will have a git
 * identity to commit with. Each failure is a named error with one line that names the problem; on
 * failure nothing has been written.
 */
import { accessSync, constants } from 'node:fs';
import { HarnessNotInstalledError, TaskFileError } from '../core/errors.js';
import { type GitIdentity, type HarnessSpec, linkLabel, type Task } from '../core/task.js';
import { getAdapter } from '../harnesses/registry.js';
import { findExecutable } from '../proc/which.js';
import {
  GIT_IDENTITY_VARIABLES,
  harnessGitEnv,
  type IdentityResolution,
  resolveGitIdentity,
  userGitEnv,
} from '../workspace/git-identity.js';
import { resolveRepository } from '../workspace/repository.js';

export interface Preflight {
  readonly repoRoot: string;
  readonly baseSha: string;
  /**
   * The git identity the task's harnesses commit with, for Task.gitIdentity (`withGitIdentity`):
   * the one `git commit` has in the user's own terminal, or, when git knows none there and every
   * link gives its own, the primary link's (then a link added by a switch by hand commits as it).
   */
  readonly gitIdentity: GitIdentity;
}

/**
 * Validates `task` against this machine; `path` is the PATH harnesses will be started with,
 * `hostEnv` the environment `passEnv` reads and the user's git identity is resolved in.
 */
export async function preflight(
  task: Task,
  path: string,
  hostEnv: NodeJS.ProcessEnv = process.env,
): Promise<Preflight> {
  for (const link of task.chain) checkLink(link, path);
  const { root, baseSha } = await resolveRepository(task.repo, task.baseRef);
  const gitIdentity = await checkGitIdentity(task.chain, root, hostEnv);
  return { repoRoot: root, baseSha, gitIdentity };
}

/** How to give git an identity, named in every refusal. */
const IDENTITY_FIX =
  'set one (git config --global user.name "Your Name" && git config --global user.email "you@example.com")';

/**
 * Resolves the identity `git commit` has in the user's terminal (`git var` in the repository, with
 * the host's environment), then checks that each link's harness can commit with what it will get:
 * that identity under the link's own `env` and `passEnv` (a link may set some of the four GIT_*
 * variables or `EMAIL`), with no global config in sight. Throws TaskFileError naming the fix and
 * the links that could not commit. The repository's commit hooks are not run (docs/worktrees.md).
 */
async function checkGitIdentity(
  chain: readonly HarnessSpec[],
  repoRoot: string,
  hostEnv: NodeJS.ProcessEnv,
): Promise<GitIdentity> {
  const user = await resolveGitIdentity(repoRoot, userGitEnv(hostEnv));
  const userIdentity = user.ok ? user.identity : undefined;
  const byEnv = new Map<string, Promise<IdentityResolution>>();
  const resolutions = await Promise.all(
    chain.map((link) => {
      const env = harnessGitEnv(userIdentity, link, hostEnv);
      const key = JSON.stringify(env);
      const resolution = byEnv.get(key) ?? resolveGitIdentity(repoRoot, env);
      byEnv.set(key, resolution);
      return resolution;
    }),
  );
  const refused = resolutions.flatMap((resolution, index) =>
    resolution.ok ? [] : [{ label: linkLabel(chain, index), reason: resolution.reason }],
  );
  const primary = resolutions[0];
  if (refused.length === 0 && primary?.ok) return userIdentity ?? primary.identity;
  const labels = refused.map((link) => link.label).join(' and ');
  const reason = refused[0]?.reason ?? 'no harness in the chain';
  const variables = `${GIT_IDENTITY_VARIABLES.slice(0, -1).join(', ')} and ${GIT_IDENTITY_VARIABLES.at(-1)}`;
  if (userIdentity === undefined) {
    throw new TaskFileError(
      `no git identity for the agent's commits in ${repoRoot} (git: ${reason}): ${IDENTITY_FIX} or give ${variables} in the env of ${labels}`,
    );
  }
  throw new TaskFileError(
    `the agent's commits in ${repoRoot} would fail for ${labels} (git: ${reason}): fix the ${GIT_IDENTITY_VARIABLES.join(', ')} or EMAIL ${refused.length === 1 ? 'its env sets' : 'their env set'}`,
  );
}

/**
 * Checks that one link can start here: its CLI is on `path`, or its scenario file is readable when
 * it is simulated. Throws HarnessNotInstalledError or TaskFileError, one line.
 */
export function checkLink(link: HarnessSpec, path: string): void {
  if (link.simulate !== undefined) {
    try {
      accessSync(link.simulate, constants.R_OK);
    } catch (cause) {
      throw new TaskFileError(`scenario file for simulated ${link.harness} not found: ${link.simulate}`, { cause });
    }
    return;
  }
  const adapter = getAdapter(link.harness);
  if (!findExecutable(adapter.binary, path)) {
    throw new HarnessNotInstalledError(
      `harness ${link.harness} is not installed: "${adapter.binary}" is not on PATH (install ${adapter.npmPackage})`,
    );
  }
}
