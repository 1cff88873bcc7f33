/**
 * How a task names a repository reached over the network (cluster mode: the worker that takes an
 * execution clones it) rather than by a path on this machine. One rule for the task file, the API and
 * the cluster's records, so a value is a URL everywhere or nowhere.
 */

/**
 * True for `scheme://…` (`https://`, `ssh://`, `git://`, `file://`) and git's scp-like
 * `[user@]host:path` (a colon with no slash before it). A path on this machine — relative or
 * absolute, `C:` aside — is not a URL.
 */
export function isRepositoryUrl(repo: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(repo) || /^[^/:]+:/.test(repo);
}
