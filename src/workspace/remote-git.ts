/**
 * `remoteGit` runs a git command that talks to a remote (fetch, push, ls-remote) through `git`, with
 * a timeout sized for the network and no ssh passphrase dialog: an unattended worker must not ask
 * anyone. `remoteArgument` guards a remote name or URL that goes on git's command line.
 */
import { RepositoryError } from '../core/errors.js';
import type { CommandResult } from '../proc/run.js';
import { git } from './git.js';

/**
 * 30 min for the first fetch of a repository's whole history. Derived, not measured here: the
 * Linux kernel's history is ≈5 GB, ≈7 min at 100 Mbit/s plus minutes of indexing; anything larger
 * is rare, and a connection that hangs is still ended.
 */
export const FIRST_FETCH_TIMEOUT_MS = 30 * 60_000;

/**
 * 5 min for the other remote commands (a fetch of what is new, a checkpoint push, ls-remote): they
 * move one execution's new objects or none, which takes seconds; past minutes the remote or the
 * network is stuck.
 */
export const REMOTE_TIMEOUT_MS = 5 * 60_000;

/** Runs `git <args>` in `cwd` for a remote command. */
export function remoteGit(cwd: string, args: readonly string[], timeoutMs = REMOTE_TIMEOUT_MS): Promise<CommandResult> {
  return git(cwd, args, { timeoutMs, env: { SSH_ASKPASS_REQUIRE: 'never' } });
}

/** Returns `remote` (a remote's name or URL); throws RepositoryError when git would read it as an option. */
export function remoteArgument(remote: string): string {
  if (remote === '' || remote.startsWith('-')) throw new RepositoryError(`not a remote: ${JSON.stringify(remote)}`);
  return remote;
}
