/**
 * AttemptObserver follows one attempt's harness events as they arrive and keeps what the engine needs
 * while it runs: session id, model, last message, usage, rate limits, and the operations each
 * finished tool call performed (for the engine to record when the gates do not). At the attempt's
 * end, `summarize` writes its entry of context.json from the attempt's records — the plans and the
 * operations as the log holds them, whoever recorded them — and the workspace after it: what its
 * harness reported kept apart from what HarmFlow saw. One observer per attempt; not shared between
 * threads of control.
 */
import { isAbsolute, relative } from 'node:path';
import type { Outcome } from '../core/outcome.js';
import { operationsOf } from '../events/operations.js';
import type { EventData, HarnessEvent, OperationData } from '../events/schema.js';
import type { WorkspaceSnapshot } from '../workspace/inspect.js';
import type { RemoteBranch } from '../workspace/remote.js';
import { type AttemptEvidence, unconfirmedClaims } from './claims.js';
import { type AfterAttempt, type ConfirmedWork, confirmOperations, pushTargetKey } from './confirm.js';
import type { AttemptContext, Commit, WorkItem } from './context-schema.js';
import { type TrackedItem, trackWork, type WorkRecord } from './work-items.js';

export { OUTSIDE_PLAN } from './work-items.js';
/** What the engine knows of an attempt when it ends, besides what the observer saw. */
export interface AttemptEnding {
  readonly number: number;
  readonly harness: string;
  readonly model?: string;
  readonly simulated: boolean;
  readonly outcome: Outcome;
  readonly message?: string;
  readonly resetsAt?: string;
  /** The harness session it was started with, resuming it (a reopened execution's first attempt). */
  readonly resumedSession?: string;
  /** The turns delivered to it, in order. */
  readonly turns?: readonly string[];
  /** The attempt whose private home the harness ran with, when it resumed an earlier attempt's session. */
  readonly sessionHome?: number;
  readonly startedAt: string;
  readonly endedAt: string;
  /** The workspace when the attempt started and after it ended; absent when inspection failed. */
  readonly before?: WorkspaceSnapshot;
  readonly after?: WorkspaceSnapshot;
  /** The execution's branch (where a bare `git push` goes). */
  readonly branch: string;
  /**
   * What each remote branch the attempt pushed to holds after it (`pushTargetKey`), besides the
   * execution's own (`after.remote`); read by pushed-branches.ts.
   */
  readonly pushedBranches?: ReadonlyMap<string, RemoteBranch>;
}

/** A `rate_limit` record as the harness reported it: status, window, utilization (0–1) and reset. */
export type RateLimitSeen = EventData<'rate_limit'>;

export interface UsageTotals {
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
}

export class AttemptObserver {
  private readonly pendingCalls = new Map<string, EventData<'tool.call'>>();
  sessionId: string | undefined;
  model: string | undefined;
  lastMessage: string | undefined;
  /** The last rate-limit status the harness reported (Claude Code's `rate_limit_event`), for the quota registry. */
  rateLimit: RateLimitSeen | undefined;
  readonly usage: UsageTotals = {};

  /** `taskName` names the single work item when the harness reports no plan. */
  constructor(
    private readonly taskName: string,
    private readonly worktree: string,
  ) {}

  /** Feeds one event; returns the operations it completed, in order, for the engine to record. */
  observe(event: HarnessEvent): OperationData[] {
    switch (event.type) {
      case 'session.started':
        this.sessionId = event.data.sessionId;
        if (event.data.model) this.model = event.data.model;
        return [];
      case 'message':
        this.lastMessage = event.data.text;
        return [];
      case 'usage':
        this.addUsage(event.data);
        return [];
      case 'rate_limit':
        this.rateLimit = event.data;
        return [];
      case 'tool.call':
        this.pendingCalls.set(event.data.id, event.data);
        return [];
      case 'tool.result': {
        const call = this.pendingCalls.get(event.data.id);
        if (!call) return [];
        this.pendingCalls.delete(event.data.id);
        return operationsOf(call, event.data).map((operation) => this.relativize(operation));
      }
      default:
        return [];
    }
  }

  /**
   * The attempt's entry of context.json, from its records (`records`: the attempt's, in log order;
   * the plans and operations are read from them) and what the engine knows of its end.
   */
  summarize(ending: AttemptEnding, records: Iterable<WorkRecord>): AttemptContext {
    const work = trackWork(records);
    const newCommits = newCommitsOf(ending.before, ending.after);
    const after = afterAttempt(ending);
    const items: TrackedItem[] = work.planReported
      ? [...work.items]
      : [{ text: this.taskName, operations: [...work.operations] }];
    const confirmed = items.map((item) => ({ item, work: confirmOperations(item.operations, after) }));
    const evidence = attemptEvidence(
      confirmed.map(({ work }) => work),
      newCommits,
      ending,
    );
    const by = `${ending.harness} plan`;
    const workItems = confirmed.map(({ item, work: done }) =>
      workItemOf(item, done, {
        by,
        evidence,
        // Without a plan the one item is the whole attempt: every commit it added is its own.
        observedCommits: work.planReported ? [] : newCommits,
      }),
    );
    const lastOperation = work.operations.at(-1);
    const model = this.model ?? ending.model;
    return {
      number: ending.number,
      harness: ending.harness,
      ...(model !== undefined && { model }),
      simulated: ending.simulated,
      outcome: ending.outcome,
      ...(ending.message !== undefined && { message: ending.message }),
      startedAt: ending.startedAt,
      endedAt: ending.endedAt,
      ...(this.sessionId !== undefined && { sessionId: this.sessionId }),
      ...(ending.resumedSession !== undefined && { resumedSession: ending.resumedSession }),
      ...(ending.turns !== undefined && { turns: [...ending.turns] }),
      ...(ending.sessionHome !== undefined && { sessionHome: ending.sessionHome }),
      ...(ending.resetsAt !== undefined && { resetsAt: ending.resetsAt }),
      ...(lastOperation !== undefined && { lastOperation }),
      ...(this.lastMessage !== undefined && { lastMessage: this.lastMessage }),
      workItems,
      ...(ending.after && { newCommits }),
      ...(ending.after && {
        workspace: {
          head: ending.after.head,
          uncommittedFiles: ending.after.changedFiles,
          commits: ending.after.commits,
          ...(ending.after.remote && { remote: remoteRefOf(ending.after.remote) }),
        },
      }),
    };
  }

  private addUsage(usage: EventData<'usage'>): void {
    const add = (key: keyof UsageTotals, value: number | undefined) => {
      if (value !== undefined) this.usage[key] = (this.usage[key] ?? 0) + value;
    };
    add('inputTokens', usage.inputTokens);
    add('outputTokens', usage.outputTokens);
    add('costUsd', usage.costUsd);
  }

  private relativize(operation: OperationData): OperationData {
    if (operation.kind !== 'file_change') return operation;
    const files = operation.files.map((file) => (isAbsolute(file) ? relative(this.worktree, file) : file));
    return { ...operation, files };
  }
}

function newCommitsOf(before: WorkspaceSnapshot | undefined, after: WorkspaceSnapshot | undefined): Commit[] {
  if (!after) return [];
  const known = new Set(before?.commits.map((commit) => commit.sha) ?? []);
  return after.commits.filter((commit) => !known.has(commit.sha));
}

/** The workspace after the attempt as confirming reads it. */
function afterAttempt(ending: AttemptEnding): AfterAttempt {
  const remotes = new Map(ending.pushedBranches ?? []);
  const own = ending.after?.remote;
  if (own) remotes.set(pushTargetKey(own), own);
  return {
    ...(ending.after && { commits: ending.after.commits, head: ending.after.head }),
    remotes,
    branch: ending.branch,
    ...(own && { defaultRemote: own.remote }),
  };
}

/** What the whole attempt was seen to do, which a plan entry's claims are judged by. */
function attemptEvidence(
  confirmed: readonly ConfirmedWork[],
  newCommits: readonly Commit[],
  ending: AttemptEnding,
): AttemptEvidence {
  const before = ending.before?.remote?.sha;
  const after = ending.after?.remote?.sha;
  return {
    commits: newCommits,
    pushes: confirmed.flatMap((work) => (work.push ? [work.push] : [])),
    pushedSomething: after !== undefined && after !== before,
    pullRequests: confirmed.flatMap((work) => (work.pullRequest ? [work.pullRequest] : [])),
    testRuns: confirmed.flatMap((work) => work.testRuns),
    tried: confirmed.flatMap((work) => work.tried),
  };
}

function workItemOf(
  item: TrackedItem,
  work: ConfirmedWork,
  context: { readonly by: string; readonly evidence: AttemptEvidence; readonly observedCommits: readonly Commit[] },
): WorkItem {
  const commits = [...work.commits];
  for (const commit of context.observedCommits) {
    if (!commits.some((known) => known.sha === commit.sha)) commits.push(commit);
  }
  const unconfirmed = item.status === 'completed' ? unconfirmedClaims(item.text, context.evidence) : undefined;
  return {
    text: item.text,
    ...(item.status !== undefined && { reported: { status: item.status, by: context.by } }),
    ...(work.filesChanged.length > 0 && { filesChanged: work.filesChanged }),
    ...(commits.length > 0 && { commits }),
    ...(work.push && { push: work.push }),
    ...(work.pullRequest && { pullRequest: work.pullRequest }),
    ...(work.testRuns.length > 0 && { testRuns: work.testRuns }),
    ...(work.tried.length > 0 && { tried: work.tried }),
    ...(unconfirmed !== undefined && { unconfirmed }),
  };
}

/** A remote branch as context.json keeps it (where it was read is said on pushes only). */
function remoteRefOf(branch: RemoteBranch): { remote: string; branch: string; sha: string } {
  return { remote: branch.remote, branch: branch.branch, sha: branch.sha };
}
