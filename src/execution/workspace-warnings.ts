/**
 * The `workspace.warning` records an execution's end and each attempt's end call for: what the
 * workspace shows that a reader of the record must not pass over. Pure: built from context.json's
 * attempts; the engine records them.
 *
 * - `unconfirmed`: a commit or push whose harness reported success but that the workspace does not
 *   show (the commit is not on the branch, the remote does not hold the push).
 * - `commits_failed`: the execution tried to commit and the branch holds no commit of it — an
 *   execution that "succeeded" without leaving its work anywhere (no git identity, a hook that
 *   refuses) must say so.
 * - `pull_request_failed`: the execution tried to open a pull request and none was opened (every
 *   `gh pr create` failed or printed no URL), so a "succeeded" execution never hides it.
 */
import type { EventData } from '../events/schema.js';
import { describeTry } from './claims.js';
import { reportedDone } from './confirm.js';
import type { AttemptContext } from './context-schema.js';

type Warning = EventData<'workspace.warning'>;

/** One warning per operation of `attempt` that its harness reported done and the workspace does not show. */
export function unconfirmedWarnings(attempt: AttemptContext): Warning[] {
  return attempt.workItems
    .flatMap((item) => item.tried ?? [])
    .filter(reportedDone)
    .map((operation) => ({ kind: 'unconfirmed', message: `\`${operation.command}\` ${describeTry(operation)}` }));
}

/**
 * The warning for an execution whose every commit failed: it tried to commit (any attempt) and its
 * branch holds no commit after its last attempt. Undefined otherwise, or when the last attempt's
 * workspace could not be inspected.
 */
export function commitsFailedWarning(attempts: readonly AttemptContext[]): Warning | undefined {
  const workspace = attempts.at(-1)?.workspace;
  if (workspace === undefined || workspace.commits.length > 0) return undefined;
  const tried = attempts.flatMap((attempt) =>
    attempt.workItems.flatMap((item) => (item.tried ?? []).filter((operation) => operation.kind === 'commit')),
  );
  const last = tried.at(-1);
  if (last === undefined) return undefined;
  const count = tried.length === 1 ? 'the 1 commit it tried' : `all ${tried.length} commits it tried`;
  return {
    kind: 'commits_failed',
    message: `every commit failed: ${count} left nothing on the branch; the last, \`${last.command}\`, ${describeTry(last)}`,
  };
}

/**
 * The warning for an execution that tried to open a pull request and opened none: no attempt's work
 * holds a pull request, and at least one `gh pr create` was tried. Undefined otherwise.
 */
export function pullRequestFailedWarning(attempts: readonly AttemptContext[]): Warning | undefined {
  const items = attempts.flatMap((attempt) => attempt.workItems);
  if (items.some((item) => item.pullRequest !== undefined)) return undefined;
  const tried = items.flatMap((item) => (item.tried ?? []).filter((operation) => operation.kind === 'pull_request'));
  const last = tried.at(-1);
  if (last === undefined) return undefined;
  const tries = tried.length === 1 ? '' : `none of the ${tried.length} tried succeeded; the last: `;
  return {
    kind: 'pull_request_failed',
    message: `no pull request was opened: ${tries}\`${last.command}\` ${describeTry(last)}`,
  };
}
