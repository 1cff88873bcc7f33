/**
 * One work item of `context.json` in words, as the Workbench's Summary and the terminal UI's show
 * it, with what its harness **reported** kept apart from what HarmFlow **observed**:
 * - `reported`: the status the harness gave it in its plan, as its word (`claude-code plan:
 *   completed`), never as a fact;
 * - `observed`: what HarmFlow saw done under it — files changed, commits on the branch, a push the
 *   remote holds, a pull request, test runs;
 * - `tried`: operations it tried that HarmFlow does not count as done, each with its exit code, the
 *   line that says why, and its command (`push failed (exit 128): fatal: … — \`git push\``);
 * - `unconfirmed`: when the harness reported it completed but its words name evidence HarmFlow did
 *   not see, the sentence that says what was not seen. An unconfirmed item carries a mark in words
 *   (`UNCONFIRMED_MARK`), so no surface tells it by colour alone.
 * The surfaces lay the parts out (`workItemParts`); `describeWorkItem` is the same in one line.
 * No Node, no DOM.
 */
import { type DescribedTestRun, describeTestRun } from './describe-operation.js';

/** The mark of an unconfirmed item, in words: a surface may colour it too, never only colour it. */
export const UNCONFIRMED_MARK = '⚠ unconfirmed';

/** What each part is called where the surfaces label them. */
export const PART_LABELS = {
  reported: 'reported',
  unconfirmed: UNCONFIRMED_MARK,
  observed: 'observed',
  tried: 'tried',
} as const;

/** The columns a part's label takes where a surface lines them up: the widest, `⚠ unconfirmed`, and two spaces. */
export const PART_LABEL_WIDTH = 15;

/** The fields of a work item these words read (src/execution/context-schema.ts, version 2). */
export interface DescribedWorkItem {
  readonly text?: string | undefined;
  readonly reported?: { readonly status: string; readonly by: string } | undefined;
  readonly filesChanged?: readonly string[] | undefined;
  readonly commits?: readonly { readonly sha: string; readonly subject: string }[] | undefined;
  readonly push?:
    | {
        readonly remote: string;
        readonly branch: string;
        readonly sha?: string | undefined;
        readonly observed?: string | undefined;
      }
    | undefined;
  readonly pullRequest?: { readonly url: string; readonly number?: number | undefined } | undefined;
  readonly testRuns?: readonly DescribedTestRun[] | undefined;
  readonly tried?: readonly DescribedTry[] | undefined;
  readonly unconfirmed?: string | undefined;
}

export interface DescribedTry {
  readonly kind: string;
  readonly command: string;
  readonly exitCode?: number | undefined;
  readonly error?: string | undefined;
  readonly why: string;
}

/** One work item's words, part by part (see the module's comment). */
export interface WorkItemParts {
  readonly text: string;
  /** `claude-code plan: completed`; absent when no plan was reported. */
  readonly reported?: string;
  /** The sentence saying what of the reported "completed" HarmFlow did not see. */
  readonly unconfirmed?: string;
  /** One fact each: `changed src/health.ts`, `commit e2ad641 "Add /health"`, `pushed to origin/x at e2ad641 (git ls-remote)`. */
  readonly observed: readonly string[];
  /** One operation each: `commit failed (exit 128): fatal: unable to auto-detect email address — \`git commit -m x\``. */
  readonly tried: readonly string[];
}

/** The noun of a tried operation's kind. */
const TRIED_NOUN: Readonly<Record<string, string>> = {
  commit: 'commit',
  push: 'push',
  pull_request: 'pull request',
};

/** How a push was read on the remote (context.json's `push.observed`), in words. */
const PUSH_OBSERVED: Readonly<Record<string, string>> = {
  'ls-remote': 'git ls-remote',
  'tracking-ref': 'the tracking ref; the remote did not answer',
};

/** True when the harness reported the item completed and HarmFlow did not see all the evidence its words name. */
export function isUnconfirmed(item: DescribedWorkItem): boolean {
  return item.unconfirmed !== undefined && item.unconfirmed !== '';
}

export function workItemParts(item: DescribedWorkItem): WorkItemParts {
  const observed = [
    ...(item.filesChanged && item.filesChanged.length > 0 ? [`changed ${item.filesChanged.join(', ')}`] : []),
    ...(item.commits ?? []).map((commit) => `commit ${commit.sha.slice(0, 7)} "${commit.subject}"`),
    ...(item.push ? [pushed(item.push)] : []),
    ...(item.pullRequest
      ? [
          `pull request${item.pullRequest.number !== undefined ? ` #${item.pullRequest.number}` : ''} ${item.pullRequest.url}`,
        ]
      : []),
    ...(item.testRuns ?? []).map(describeTestRun),
  ];
  const tried = (item.tried ?? []).map(
    (operation) =>
      `${TRIED_NOUN[operation.kind] ?? operation.kind} ${operation.why}${operation.error ? `: ${operation.error}` : ''} — \`${operation.command}\``,
  );
  return {
    text: item.text ?? '',
    ...(item.reported && { reported: `${item.reported.by}: ${item.reported.status.replace(/_/g, ' ')}` }),
    ...(isUnconfirmed(item) && { unconfirmed: item.unconfirmed as string }),
    observed,
    tried,
  };
}

/**
 * The item in one line: `Open a pull request · reported claude-code plan: completed · ⚠ unconfirmed:
 * HarmFlow saw no pull request opened by this attempt · observed: changed NOTES.md`.
 */
export function describeWorkItem(item: DescribedWorkItem): string {
  const parts = workItemParts(item);
  return [
    parts.text,
    ...(parts.reported !== undefined ? [`${PART_LABELS.reported} ${parts.reported}`] : []),
    ...(parts.unconfirmed !== undefined ? [`${PART_LABELS.unconfirmed}: ${parts.unconfirmed}`] : []),
    ...(parts.observed.length > 0 ? [`${PART_LABELS.observed}: ${parts.observed.join('; ')}`] : []),
    ...(parts.tried.length > 0 ? [`${PART_LABELS.tried}: ${parts.tried.join('; ')}`] : []),
  ].join(' · ');
}

/** The words of an attempt's last message: the harness's own, which HarmFlow does not check. */
export function lastMessageLabel(harness: string): string {
  return `${harness}'s last message (its own words, not checked)`;
}

/** `pushed to origin/harmflow/x at e2ad641 (git ls-remote)`. */
function pushed(push: NonNullable<DescribedWorkItem['push']>): string {
  const how = push.observed !== undefined ? ` (${PUSH_OBSERVED[push.observed] ?? push.observed})` : '';
  return `pushed to ${push.remote}/${push.branch}${push.sha ? ` at ${push.sha.slice(0, 7)}` : ''}${how}`;
}
