/**
 * Builds the prompt of a later attempt: the task's prompt, then a summary of each earlier attempt,
 * the path of context.json, and the instruction to check what was already done before committing,
 * pushing or opening a pull request. The line `HarmFlow context file: <path>` is a contract: agents
 * (and the simulator) recognize a continued execution by it.
 */
import type { AttemptContext, ExecutionContext, WorkItem } from './context-schema.js';

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
    '(JSON: for each earlier attempt, its work items with files changed, commits, push, pull request and test results.)',
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
  if (attempt.lastMessage) lines.push(`  Last message: ${clip(attempt.lastMessage)}`);
  for (const item of attempt.workItems) lines.push(`  - ${describeItem(item)}`);
  if (attempt.workspace) {
    const { commits, uncommittedFiles, remote } = attempt.workspace;
    lines.push(
      `  Workspace after it: ${commits.length} commit(s) on the branch, ${uncommittedFiles.length} uncommitted file(s)${remote ? `, ${remote.remote}/${remote.branch} at ${remote.sha?.slice(0, 12) ?? 'unknown'}` : ', branch not on the remote'}`,
    );
  }
  return lines;
}

function describeItem(item: WorkItem): string {
  const facts: string[] = [];
  if (item.commits?.length)
    facts.push(`commits ${item.commits.map((c) => `${c.sha.slice(0, 7)} "${c.subject}"`).join(', ')}`);
  if (item.push) facts.push(`pushed to ${item.push.remote}/${item.push.branch}`);
  if (item.pullRequest) facts.push(`pull request ${item.pullRequest.url}`);
  for (const run of item.testRuns ?? []) facts.push(`tests \`${run.command}\` ${run.passed ? 'passed' : 'failed'}`);
  if (item.filesChanged?.length) facts.push(`files ${item.filesChanged.join(', ')}`);
  const status = item.status ? `[${item.status}] ` : '';
  return `${status}${item.text}${facts.length ? ` — ${facts.join('; ')}` : ''}`;
}

/** One line describing an operation, for the handoff and the timeline. */
export function describeOperation(operation: NonNullable<AttemptContext['lastOperation']>): string {
  switch (operation.kind) {
    case 'file_change':
      return `changed ${operation.files.join(', ')}`;
    case 'commit':
      return `commit${operation.sha ? ` ${operation.sha.slice(0, 7)}` : ''}${operation.subject ? ` "${operation.subject}"` : ''}${operation.ok ? '' : ' (failed)'}`;
    case 'push':
      return `push${operation.remote ? ` to ${operation.remote}` : ''}${operation.branch ? `/${operation.branch}` : ''}${operation.ok ? '' : ' (failed)'}`;
    case 'pull_request':
      return `pull request${operation.url ? ` ${operation.url}` : ''}${operation.ok ? '' : ' (failed)'}`;
    case 'test_run':
      return `tests \`${operation.command}\` ${operation.passed ? 'passed' : 'failed'}${formatCounts(operation.counts)}`;
  }
}

function formatCounts(counts: Readonly<Record<string, number | undefined>> | undefined): string {
  if (!counts) return '';
  const parts = Object.entries(counts)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${value} ${key}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MESSAGE_LIMIT ? `${flat.slice(0, MESSAGE_LIMIT)}…` : flat;
}
