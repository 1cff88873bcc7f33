/**
 * The shape of `context.json`: what each earlier attempt of an execution did, for the next attempt
 * (and for people). Written by the engine before each new attempt; read by `harmflow context`, the
 * simulator and anyone else with this schema. A value never reported or observed is absent.
 */
import { z } from 'zod';
import { Outcome } from '../core/outcome.js';
import { OperationData } from '../events/schema.js';

export const Commit = z.object({ sha: z.string(), subject: z.string() });
export type Commit = z.infer<typeof Commit>;

export const RemoteRef = z.object({ remote: z.string(), branch: z.string(), sha: z.string().optional() });
export type RemoteRef = z.infer<typeof RemoteRef>;

export const TestRun = z.object({
  command: z.string(),
  passed: z.boolean(),
  counts: z.object({ passed: z.int().optional(), failed: z.int().optional(), skipped: z.int().optional() }).optional(),
});
export type TestRun = z.infer<typeof TestRun>;

export const WorkItem = z.object({
  text: z.string(),
  /** As the harness last reported it; absent for the item named after the task when no plan came. */
  status: z.enum(['pending', 'in_progress', 'completed']).optional(),
  filesChanged: z.array(z.string()).optional(),
  commits: z.array(Commit).optional(),
  push: RemoteRef.optional(),
  pullRequest: z.object({ url: z.string(), number: z.int().optional() }).optional(),
  testRuns: z.array(TestRun).optional(),
});
export type WorkItem = z.infer<typeof WorkItem>;

export const WorkspaceState = z.object({
  head: z.string(),
  uncommittedFiles: z.array(z.string()),
  /** Commits on the branch since the base, oldest first. */
  commits: z.array(Commit),
  remote: RemoteRef.optional(),
});
export type WorkspaceState = z.infer<typeof WorkspaceState>;

export const AttemptContext = z.object({
  number: z.int().min(1),
  harness: z.string(),
  model: z.string().optional(),
  simulated: z.boolean().optional(),
  outcome: Outcome,
  message: z.string().optional(),
  startedAt: z.string(),
  endedAt: z.string(),
  sessionId: z.string().optional(),
  resetsAt: z.string().optional(),
  lastOperation: OperationData.optional(),
  lastMessage: z.string().optional(),
  workItems: z.array(WorkItem),
  /** Commits this attempt added to the branch (observed with git), oldest first. */
  newCommits: z.array(Commit).optional(),
  workspace: WorkspaceState.optional(),
});
export type AttemptContext = z.infer<typeof AttemptContext>;

export const ExecutionContext = z.object({
  version: z.literal(1),
  execution: z.string(),
  task: z.string(),
  branch: z.string(),
  baseRef: z.string(),
  baseSha: z.string(),
  worktree: z.string(),
  writtenAt: z.string(),
  attempts: z.array(AttemptContext),
});
export type ExecutionContext = z.infer<typeof ExecutionContext>;
