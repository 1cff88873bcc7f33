/**
 * The shape of `context.json`: what each earlier attempt of an execution did, for the next attempt
 * (and for people). Written by the engine after each attempt and at the end; read by `harmflow
 * context`, the API, both UIs, the gates, the simulator and anyone else with this schema (published as
 * schemas/context.schema.json, generated from this file: `harmflow schema context`).
 *
 * Two kinds of knowledge never mix. What HarmFlow **observed**: exit codes and results in the
 * harness's stream or its hooks, the workspace after the attempt (git), the remote (`git ls-remote`).
 * What the harness **reported**: its plan's statuses and its own words. Every field's description
 * says which it is; a reported value names who reported it; a value never reported or observed is
 * absent, never guessed. docs/harnesses.md says, for each harness, where each observed value comes from.
 */
import { z } from 'zod';
import { Outcome } from '../core/outcome.js';
import { OperationData } from '../events/schema.js';

/** The version this module writes. Version 1 (before reported and observed were kept apart) is read too. */
export const CONTEXT_VERSION = 2;

export const Commit = z
  .object({
    sha: z.string().describe('the full sha, as git shows it on the branch'),
    subject: z.string().describe("the commit message's first line"),
  })
  .describe('a commit on the execution branch (observed: git)');
export type Commit = z.infer<typeof Commit>;

export const RemoteRef = z.object({
  remote: z.string().describe("the remote's name, as git knows it"),
  branch: z.string().describe("the branch's name on the remote"),
  sha: z.string().optional().describe('what the remote branch holds (observed: git ls-remote, or the tracking ref)'),
});
export type RemoteRef = z.infer<typeof RemoteRef>;

export const Push = RemoteRef.extend({
  observed: z
    .enum(['ls-remote', 'tracking-ref'])
    .optional()
    .describe(
      'how the remote branch was read after the attempt: asking the remote (`git ls-remote`), or the local tracking ref when the remote did not answer',
    ),
}).describe(
  "a push the attempt made: its command exited 0 (observed: the harness's stream or hook) and the remote branch holds the branch's commits after the attempt (observed: git)",
);
export type Push = z.infer<typeof Push>;

export const PullRequest = z
  .object({
    url: z.string().describe('as gh printed it'),
    number: z.int().optional().describe('the number in the URL'),
  })
  .describe(
    "a pull request the attempt opened: `gh pr create` exited 0 and printed its URL (observed: the harness's stream or hook)",
  );
export type PullRequest = z.infer<typeof PullRequest>;

export const TestRun = z
  .object({
    command: z.string().describe('the command line as the harness ran it'),
    passed: z.boolean().describe('exit 0 and no failures counted (observed)'),
    exitCode: z.int().optional().describe('the exit code, when the harness reported it (observed: its stream or hook)'),
    counts: z
      .object({
        passed: z.int().optional().describe('tests the runner counted passed'),
        failed: z.int().optional().describe('tests the runner counted failed'),
        skipped: z.int().optional().describe('tests the runner counted skipped'),
      })
      .optional()
      .describe("the runner's own summary line, when it printed one (observed: the command's output)"),
  })
  .describe('a test command the attempt ran (never its output)');
export type TestRun = z.infer<typeof TestRun>;

export const TriedOperation = z
  .object({
    kind: z.enum(['commit', 'push', 'pull_request']).describe('what it tried'),
    command: z.string().describe('the command line as the harness ran it'),
    exitCode: z.int().optional().describe('its exit code, when the harness reported it (observed)'),
    error: z.string().optional().describe('the line of its output that says why it failed (observed)'),
    why: z.string().describe('why HarmFlow does not count it as done, in words'),
  })
  .describe(
    "an operation the attempt tried that HarmFlow does not count as done: it failed (exit status in the harness's stream or hook), or the workspace does not show it (a commit not on the branch, a push the remote does not hold)",
  );
export type TriedOperation = z.infer<typeof TriedOperation>;

export const Reported = z
  .object({
    status: z.enum(['pending', 'in_progress', 'completed']).describe('the status the harness gave the entry'),
    by: z.string().describe('who said so, e.g. "claude-code plan"'),
  })
  .describe(
    "the item's status as the harness last reported it in its plan (reported: the harness's word, not checked)",
  );
export type Reported = z.infer<typeof Reported>;

export const WorkItem = z
  .object({
    text: z
      .string()
      .describe(
        'the plan entry as the harness reported it; the task\'s name when no plan was reported; "(work outside the reported plan)" for what was done while no entry was in progress',
      ),
    reported: Reported.optional(),
    filesChanged: z
      .array(z.string())
      .optional()
      .describe("files its tool calls changed, relative to the worktree (observed: the calls' results)"),
    commits: z
      .array(Commit)
      .optional()
      .describe('commits its tool calls made that are on the branch after the attempt'),
    push: Push.optional(),
    pullRequest: PullRequest.optional(),
    testRuns: z.array(TestRun).optional().describe('test commands its tool calls ran, with how each ended (observed)'),
    tried: z
      .array(TriedOperation)
      .optional()
      .describe('commits, pushes and pull requests it tried that HarmFlow does not count as done, and why'),
    unconfirmed: z
      .string()
      .optional()
      .describe(
        'set when the harness reported the item completed but its words name evidence HarmFlow did not see (a commit, a push, a pull request, a test run): what was not seen, in words',
      ),
  })
  .describe(
    "one entry of the attempt's plan, with what HarmFlow saw done under it (operations are credited to the entry in progress when they ran)",
  );
export type WorkItem = z.infer<typeof WorkItem>;

export const WorkspaceState = z
  .object({
    head: z.string().describe('the sha HEAD points at'),
    uncommittedFiles: z.array(z.string()).describe('files that differ from HEAD: staged, unstaged or untracked'),
    commits: z.array(Commit).describe('commits on the branch since the base, oldest first'),
    remote: RemoteRef.optional().describe('what the remote holds for the branch; absent when it holds nothing'),
  })
  .describe('the worktree after the attempt (observed: git)');
export type WorkspaceState = z.infer<typeof WorkspaceState>;

export const AttemptContext = z.object({
  number: z.int().min(1).describe("the attempt's number in the execution, from 1"),
  harness: z.string().describe('the harness HarmFlow ran'),
  model: z.string().optional().describe('as the harness reported it, else as the task named it'),
  simulated: z.boolean().optional().describe('played by the simulator `sim`'),
  outcome: Outcome.describe("how the attempt ended (observed: exit code, the stream's last result, stderr)"),
  message: z.string().optional().describe("the harness's own words for how it ended"),
  startedAt: z.string().describe('when HarmFlow started it (ISO 8601)'),
  endedAt: z.string().describe('when it ended, as HarmFlow saw it (ISO 8601)'),
  sessionId: z.string().optional().describe('the harness session, as the harness reported it'),
  resumedSession: z
    .string()
    .optional()
    .describe(
      'the harness session this attempt was started with, resuming it (a follow-up reopened the execution); absent: it started a new session',
    ),
  turns: z
    .array(z.string())
    .optional()
    .describe(
      'the turns delivered to it, in order (t1 the prompt, t2… follow-ups); a turn a switch cut off is delivered again to the next attempt',
    ),
  sessionHome: z
    .int()
    .min(1)
    .optional()
    .describe(
      "the attempt whose private home (attempts/<n>/home) holds the harness session, when this attempt resumed an earlier attempt's session; absent: its own",
    ),
  resetsAt: z.string().optional().describe('when its quota resets, as the harness reported it'),
  lastOperation: OperationData.optional().describe("the attempt's last operation, as its tool call's result showed it"),
  lastMessage: z.string().optional().describe("the harness's last message (reported: its own words, not checked)"),
  workItems: z
    .array(WorkItem)
    .describe("the attempt's plan, entry by entry; without a plan, one entry named after the task"),
  newCommits: z
    .array(Commit)
    .optional()
    .describe('commits this attempt added to the branch, oldest first (observed: git)'),
  workspace: WorkspaceState.optional(),
});
export type AttemptContext = z.infer<typeof AttemptContext>;

export const ExecutionContext = z
  .object({
    version: z.literal(CONTEXT_VERSION).describe("this file's format"),
    execution: z.string().describe("the execution's id"),
    task: z.string().describe("the task's name"),
    branch: z.string().describe('the branch every attempt works on'),
    baseRef: z.string().describe('the ref the branch was made from, as the task named it'),
    baseSha: z.string().describe('the commit the branch was made from'),
    worktree: z.string().describe('the git worktree every attempt works in'),
    writtenAt: z.string().describe('when HarmFlow wrote this file (ISO 8601)'),
    attempts: z.array(AttemptContext).describe('each ended attempt, in order'),
  })
  .describe('HarmFlow context.json: what each earlier attempt of an execution did');
export type ExecutionContext = z.infer<typeof ExecutionContext>;

/** A work item as version 1 wrote it: the plan's status as a bare fact. */
const WorkItemV1 = WorkItem.omit({ reported: true, tried: true, unconfirmed: true }).extend({
  status: z.enum(['pending', 'in_progress', 'completed']).optional(),
  push: RemoteRef.optional(),
});

const ContextV1 = ExecutionContext.extend({
  version: z.literal(1),
  attempts: z.array(AttemptContext.extend({ workItems: z.array(WorkItemV1) })),
});

/**
 * context.json as read from disk or a store: this version, or version 1 (written before reported and
 * observed were kept apart) read as this one — its plan statuses become what the attempt's harness
 * reported in its plan; nothing is marked unconfirmed, since version 1 did not check.
 */
export const StoredContext = z.union([
  ExecutionContext,
  ContextV1.transform(
    (v1): ExecutionContext => ({
      ...v1,
      version: CONTEXT_VERSION,
      attempts: v1.attempts.map((attempt) => ({
        ...attempt,
        workItems: attempt.workItems.map(({ status, ...item }) => ({
          ...item,
          ...(status !== undefined && { reported: { status, by: `${attempt.harness} plan` } }),
        })),
      })),
    }),
  ),
]);
