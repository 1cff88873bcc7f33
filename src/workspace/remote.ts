/**
 * `remoteBranchState` tells what a remote holds for a branch: the answer to "was this pushed, and
 * what exactly?". It asks the remote itself, briefly, and falls back to the local remote-tracking
 * ref; it never throws (an unknown state is absent, never guessed).
 */
import { git } from './git.js';
import { GitSha } from './git-sha.js';

/**
 * How long the remote is asked: 3 s. A reachable remote answers `ls-remote` for one ref in well
 * under a second, even over ssh; past that it is unreachable or waiting for credentials, and the
 * local remote-tracking ref is the better answer on a harness switch.
 */
const LS_REMOTE_TIMEOUT_MS = 3000;

export interface RemoteBranch {
  readonly remote: string;
  /** The branch's name on the remote. */
  readonly branch: string;
  readonly sha: string;
  /** Where the sha was read: the remote itself, or the local `refs/remotes/<remote>/<branch>`. */
  readonly source: 'ls-remote' | 'tracking-ref';
}

/**
 * Returns what `remote` (default: the branch's upstream remote, else `origin` when it exists) holds
 * for `branch` (on the upstream remote: the upstream branch's name), or undefined when there is no
 * such remote or it has no such branch.
 */
export async function remoteBranchState(
  worktree: string,
  branch: string,
  remote?: string,
): Promise<RemoteBranch | undefined> {
  const target = await pickTarget(worktree, branch, remote);
  if (target === undefined) return undefined;
  const ref = `refs/heads/${target.branch}`;
  const listed = await git(worktree, ['ls-remote', target.remote, ref], {
    timeoutMs: LS_REMOTE_TIMEOUT_MS,
    // No ssh passphrase dialog on a desktop either: an unattended check must not ask anyone.
    env: { SSH_ASKPASS_REQUIRE: 'never' },
  });
  if (listed.exitCode === 0) {
    const sha = findRef(listed.stdout, ref);
    return sha === undefined ? undefined : { ...target, sha, source: 'ls-remote' };
  }
  const tracking = await git(worktree, [
    'rev-parse',
    '--verify',
    '--quiet',
    `refs/remotes/${target.remote}/${target.branch}^{commit}`,
  ]);
  const sha = GitSha.safeParse(tracking.stdout.trim());
  return tracking.exitCode === 0 && sha.success ? { ...target, sha: sha.data, source: 'tracking-ref' } : undefined;
}

/** Chooses the remote and the branch's name there, from the repository's config. */
async function pickTarget(
  worktree: string,
  branch: string,
  remote: string | undefined,
): Promise<{ remote: string; branch: string } | undefined> {
  const config = await readRemoteConfig(worktree);
  const upstream = config.get(`branch.${branch}.remote`);
  const merge = config.get(`branch.${branch}.merge`);
  const upstreamBranch = merge?.startsWith('refs/heads/') ? merge.slice('refs/heads/'.length) : branch;
  // "." as the upstream remote means a local branch: nothing was pushed anywhere.
  const chosen = remote ?? (upstream !== undefined && upstream !== '.' ? upstream : undefined);
  if (chosen !== undefined) return { remote: chosen, branch: chosen === upstream ? upstreamBranch : branch };
  return config.has('remote.origin.url') ? { remote: 'origin', branch } : undefined;
}

/** Reads the `branch.*.remote`, `branch.*.merge` and `remote.*.url` entries; empty when none or on failure. */
async function readRemoteConfig(worktree: string): Promise<Map<string, string>> {
  const result = await git(worktree, [
    'config',
    '-z',
    '--get-regexp',
    String.raw`^(branch\..*\.(remote|merge)|remote\..*\.url)$`,
  ]);
  const config = new Map<string, string>();
  if (result.exitCode !== 0) return config;
  // With -z each entry is "key\nvalue\0".
  for (const entry of result.stdout.split('\0')) {
    const newline = entry.indexOf('\n');
    if (newline > 0) config.set(entry.slice(0, newline), entry.slice(newline + 1));
  }
  return config;
}

/** Finds the sha of exactly `ref` in ls-remote output ("<sha>\t<ref>" lines; patterns match tails). */
function findRef(output: string, ref: string): string | undefined {
  for (const line of output.split('\n')) {
    const [sha, name] = line.split('\t');
    if (name === ref && GitSha.safeParse(sha).success) return sha;
  }
  return undefined;
}
