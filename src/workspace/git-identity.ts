/**
 * The git identity an agent's commits carry. A harness runs with a private HOME
 * (`runs/<id>/attempts/<n>/home`), so the user's `~/.gitconfig` is out of its sight, and without an
 * identity given to it every `git commit` it makes fails (`Author identity unknown`). HarmFlow asks
 * git itself, with `git var GIT_AUTHOR_IDENT` and `git var GIT_COMMITTER_IDENT`, which apply git's
 * own rules (the GIT_* variables, the repository's, the global and the system config, `EMAIL`, the
 * account's name and the machine's mail domain) and fail exactly when `git commit` would.
 *
 * It only reads: `git var` writes nothing, and runs no hook.
 */
import type { GitIdentity, HarnessSpec } from '../core/task.js';
import { type CommandResult, runCommand } from '../proc/run.js';
import { failureLine, REDIRECTING_VARIABLES } from './git.js';

/** The variables a harness gets its identity in, in the order of GitIdentity's fields. */
export const GIT_IDENTITY_VARIABLES = [
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
] as const;

/**
 * 10 s: how long one `git var` may take. It reads a few config files and answers in milliseconds;
 * this only catches a hung git (a config `include` on a dead network mount).
 */
const GIT_VAR_TIMEOUT_MS = 10_000;

/** The four GIT_* variables that give a harness `identity`. */
export function gitIdentityEnv(identity: GitIdentity): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: identity.authorName,
    GIT_AUTHOR_EMAIL: identity.authorEmail,
    GIT_COMMITTER_NAME: identity.committerName,
    GIT_COMMITTER_EMAIL: identity.committerEmail,
  };
}

/** What `resolveGitIdentity` found: the identity, or git's reason for having none (one line). */
export type IdentityResolution =
  | { readonly ok: true; readonly identity: GitIdentity }
  | { readonly ok: false; readonly reason: string };

/**
 * The identity `git commit` would use in `dir` with the complete environment `env` (build it with
 * `userGitEnv` or `harnessGitEnv`). Never throws: a git that fails or cannot run gives its reason.
 */
export async function resolveGitIdentity(
  dir: string,
  env: Readonly<Record<string, string>>,
): Promise<IdentityResolution> {
  const run = (name: string) => runCommand('git', ['var', name], { cwd: dir, env, timeoutMs: GIT_VAR_TIMEOUT_MS });
  const [author, committer] = await Promise.all([run('GIT_AUTHOR_IDENT'), run('GIT_COMMITTER_IDENT')]);
  const authorIdent = identOf(author);
  if (!authorIdent.ok) return authorIdent;
  const committerIdent = identOf(committer);
  if (!committerIdent.ok) return committerIdent;
  return {
    ok: true,
    identity: {
      authorName: authorIdent.name,
      authorEmail: authorIdent.email,
      committerName: committerIdent.name,
      committerEmail: committerIdent.email,
    },
  };
}

/**
 * The environment to ask git the identity `git commit` has in the user's own terminal: `hostEnv`
 * as it is (its GIT_* variables, EMAIL, HOME and so the global config), without the variables that
 * would point git at another repository; git found on HarmFlow's own PATH, its messages in English.
 */
export function userGitEnv(hostEnv: NodeJS.ProcessEnv): Record<string, string> {
  const env = defined(hostEnv);
  for (const name of REDIRECTING_VARIABLES) delete env[name];
  return { ...env, ...gitRuntime() };
}

/**
 * The environment to ask git the identity a harness of `link` commits with: what the harness gets
 * (src/execution/run-attempt.ts `harnessCommand`) — `identity` as the four GIT_* variables, under the
 * host variables the link passes through and its own `env` — and no global config, since the
 * harness's HOME is a private one with none. The repository's and the system's config it sees, as
 * the harness does.
 */
export function harnessGitEnv(
  identity: GitIdentity | undefined,
  link: Pick<HarnessSpec, 'env' | 'passEnv'>,
  hostEnv: NodeJS.ProcessEnv,
): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const name of link.passEnv) {
    const value = hostEnv[name];
    if (value !== undefined) passed[name] = value;
  }
  const env: Record<string, string> = {
    GIT_CONFIG_GLOBAL: '/dev/null',
    ...(identity !== undefined && gitIdentityEnv(identity)),
    ...passed,
    ...link.env,
  };
  for (const name of ['HOME', 'XDG_CONFIG_HOME', ...REDIRECTING_VARIABLES]) delete env[name];
  return { ...env, ...gitRuntime() };
}

/** Where git is found (HarmFlow's own PATH: the git every other command runs), in English, never prompting. */
function gitRuntime(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
  };
}

/** `Name <email> 1796218039 +0000` → name and email; a failure → git's `fatal:` line, without the prefix. */
function identOf(result: CommandResult): { ok: true; name: string; email: string } | { ok: false; reason: string } {
  if (result.exitCode !== 0 || result.timedOut || result.error !== undefined) {
    return { ok: false, reason: failureLine(result).replace(/^(?:fatal|error):\s*/, '') };
  }
  const match = /^([^<>\n]*?) ?<([^<>\n]*)> -?\d+ [+-]\d{4}\s*$/.exec(result.stdout);
  if (!match) return { ok: false, reason: `git var printed an identity it cannot read: ${result.stdout.trim()}` };
  return { ok: true, name: match[1] ?? '', email: match[2] ?? '' };
}

/** `env` without its unset entries. */
function defined(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}
