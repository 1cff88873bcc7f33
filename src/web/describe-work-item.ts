/**
 * One work item of `context.json` in a line, as the Workbench's Summary and the terminal UI's show
 * it: its status when the harness reported a plan, its text, the files it changed and what it left
 * outside the worktree — commits, a push, a pull request — which is what the next harness is told
 * not to do again. No Node, no DOM.
 */

/** The fields of a work item this line reads (src/execution/context-schema.ts). */
export interface DescribedWorkItem {
  readonly text?: string | undefined;
  readonly status?: string | undefined;
  readonly filesChanged?: readonly string[] | undefined;
  readonly commits?: readonly unknown[] | undefined;
  readonly push?: { readonly remote: string; readonly branch: string } | undefined;
  readonly pullRequest?: { readonly url: string } | undefined;
}

/** `completed: Add the route (src/health.ts; 1 commit(s); pushed to origin/x; pull request https://…)`. */
export function describeWorkItem(item: DescribedWorkItem): string {
  const done = [
    ...(item.filesChanged && item.filesChanged.length > 0 ? [item.filesChanged.join(', ')] : []),
    ...(item.commits && item.commits.length > 0 ? [`${item.commits.length} commit(s)`] : []),
    ...(item.push ? [`pushed to ${item.push.remote}/${item.push.branch}`] : []),
    ...(item.pullRequest ? [`pull request ${item.pullRequest.url}`] : []),
  ];
  return `${item.status ? `${item.status}: ` : ''}${item.text ?? ''}${done.length > 0 ? ` (${done.join('; ')})` : ''}`;
}
