/**
 * Builds the prompt of a later attempt: the task's prompt, then a summary of each earlier attempt,
 * the path of context.json, and the instruction to check what was already done before committing,
 * pushing or opening a pull request. The line `HarmFlow context file: <path>` is a contract: agents
 * (and the simulator) recognize a continued execution by it.
 */

// The one describer of operations, DOM-free, which every surface shows too (the web build reaches only src/web).
import { describeOperation, describeTestRun } from '../web/describe-operation.js';
import { describeTry } from './claims.js';
import type { AttemptContext, ExecutionContext, TriedOperation, WorkItem } from './context-schema.js';
import { OUTSIDE_PLAN } from './work-items.js';

/** The prefix of the line that names context.json in a handoff prompt. */
export const CONTEXT_LINE_PREFIX = 'HarmFlow context file: ';

const MESSAGE_LIMIT = 600;

/** A follow-up message the user sent and an earlier turn completed. */
export interface HandledMessage {
  readonly turn: string;
  readonly text: string;
}

/**
 * The prompt for the next attempt of `context`'s execution. `handled` lists the follow-up messages
 * earlier turns completed (the next harness never saw them); `now` is the message to act on in this
 * turn when it is not the task itself (a follow-up an earlier attempt had not finished, or the next
 * one queued).
 */
export function buildHandoffPrompt(
  taskPrompt: string,
  context: ExecutionContext,
  contextPath: string,
  messages: { readonly handled?: readonly HandledMessage[]; readonly now?: string } = {},
): string {
  const lines = [
    taskPrompt.trimEnd(),
    '',
    '---',
    `HarmFlow handoff: this task was already worked on by ${context.attempts.length === 1 ? 'an earlier attempt' : `${context.attempts.length} earlier attempts`} of the same execution, in this same worktree and on this same branch (${context.branch}). Their work is in the workspace. Do not redo it: continue from where it stopped.`,
    '',
  ];
  for (const attempt of context.attempts) lines.push(...summarizeAttempt(attempt), '');
  if (messages.handled?.length) {
    lines.push('Follow-up messages the user sent, already handled by those attempts:');
    for (const message of messages.handled) lines.push(`  - ${message.turn}: ${clip(message.text)}`);
    lines.push('');
  }
  lines.push(
    `${CONTEXT_LINE_PREFIX}${contextPath}`,
    '(JSON: for each earlier attempt, its work items: what its harness reported, kept apart from what HarmFlow saw — files changed, commits on the branch, pushes the remote holds, pull requests, test runs, what was tried and failed, and claims HarmFlow could not confirm.)',
    '',
    'Before you commit, push or open a pull request, check what was already done:',
    `- \`git status\` and \`git log --oneline ${context.baseSha.slice(0, 12)}..HEAD\` (commits already on the branch),`,
    `- the remote branch: \`git ls-remote origin ${context.branch}\` (what was already pushed),`,
    `- an existing pull request for the branch: \`gh pr list --head ${context.branch}\`.`,
    'Never commit, push or open a pull request a second time for work that is already there.',
  );
  if (messages.now !== undefined) lines.push('', '---', "The user's message to act on now:", messages.now);
  return lines.join('\n');
}

function summarizeAttempt(attempt: AttemptContext): string[] {
  const model = attempt.model ? ` (model ${attempt.model})` : '';
  const why = attempt.message ? `: ${clip(attempt.message)}` : '';
  const lines = [`Attempt ${attempt.number} — ${attempt.harness}${model} — ended ${attempt.outcome}${why}`];
  if (attempt.lastOperation) lines.push(`  Last recorded operation: ${describeOperation(attempt.lastOperation)}`);
  if (attempt.lastMessage) {
    lines.push(
      `  Last message (${attempt.harness}'s own words, not checked by HarmFlow): ${clip(attempt.lastMessage)}`,
    );
  }
  if (attempt.workItems.length > 0) {
    const plan = attempt.workItems.some((item) => item.reported !== undefined)
      ? `the status is what ${attempt.harness} reported in its plan`
      : `${attempt.harness} reported no plan`;
    lines.push(`  Work items — ${plan}; "HarmFlow saw" is what exit codes, the branch and the remote showed:`);
  }
  for (const item of attempt.workItems) lines.push(`  - ${describeItem(item, attempt.harness)}`);
  if (attempt.workspace) {
    const { commits, uncommittedFiles, remote } = attempt.workspace;
    lines.push(
      `  Workspace after it: ${commits.length} commit(s) on the branch, ${uncommittedFiles.length} uncommitted file(s)${remote ? `, ${remote.remote}/${remote.branch} at ${remote.sha?.slice(0, 12) ?? 'unknown'}` : ', branch not on the remote'}`,
    );
  }
  return lines;
}

/** What was tried, by kind: `tried to push`. */
const TRIED_VERB: Readonly<Record<TriedOperation['kind'], string>> = {
  commit: 'commit',
  push: 'push',
  pull_request: 'open a pull request',
};

function describeItem(item: WorkItem, harness: string): string {
  const seen: string[] = [];
  if (item.filesChanged?.length) seen.push(`files ${item.filesChanged.join(', ')}`);
  if (item.commits?.length)
    seen.push(`commits ${item.commits.map((c) => `${c.sha.slice(0, 7)} "${c.subject}"`).join(', ')}`);
  if (item.push)
    seen.push(
      `pushed to ${item.push.remote}/${item.push.branch}${item.push.sha ? ` at ${item.push.sha.slice(0, 7)}` : ''}`,
    );
  if (item.pullRequest) seen.push(`pull request ${item.pullRequest.url}`);
  for (const run of item.testRuns ?? []) seen.push(describeTestRun(run));
  for (const tried of item.tried ?? []) {
    seen.push(`tried to ${TRIED_VERB[tried.kind]} (\`${tried.command}\`); it ${describeTry(tried)}`);
  }
  const reported = item.reported ? `${harness} reported it ${item.reported.status.replace('_', ' ')}` : undefined;
  const parts = [
    ...(reported && item.unconfirmed
      ? [`${reported}, but ${item.unconfirmed} — check before you rely on it`]
      : reported
        ? [reported]
        : []),
    ...(seen.length > 0 ? [`HarmFlow saw: ${seen.join('; ')}`] : []),
  ];
  const label = item.reported ? `"${item.text}"` : `"${item.text}" (no plan reported)`;
  return `${item.text === OUTSIDE_PLAN ? item.text : label}${parts.length > 0 ? `: ${parts.join('. ')}` : ''}`;
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MESSAGE_LIMIT ? `${flat.slice(0, MESSAGE_LIMIT)}…` : flat;
}
