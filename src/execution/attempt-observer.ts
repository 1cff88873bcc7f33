/**
 * AttemptObserver follows one attempt's harness events as they arrive and keeps what the handoff
 * needs: session id, model, last message, usage, the reported plan, and the operations performed
 * under each work item. One observer per attempt; not shared between threads of control.
 */
import { isAbsolute, relative } from 'node:path';
import type { Outcome } from '../core/outcome.js';
import { operationsOf } from '../events/operations.js';
import type { EventData, HarnessEvent, OperationData, WorkItemStatus } from '../events/schema.js';
import type { WorkspaceSnapshot } from '../workspace/inspect.js';
import type { AttemptContext, Commit, WorkItem } from './context-schema.js';

/** The item that collects operations done while no reported work item was in progress. */
export const OUTSIDE_PLAN = '(work outside the reported plan)';

interface TrackedItem {
  text: string;
  status?: WorkItemStatus;
  operations: OperationData[];
}

/** What the engine knows of an attempt when it ends, besides what the observer saw. */
export interface AttemptEnding {
  readonly number: number;
  readonly harness: string;
  readonly model?: string;
  readonly simulated: boolean;
  readonly outcome: Outcome;
  readonly message?: string;
  readonly resetsAt?: string;
  readonly startedAt: string;
  readonly endedAt: string;
  /** The workspace when the attempt started and after it ended; absent when inspection failed. */
  readonly before?: WorkspaceSnapshot;
  readonly after?: WorkspaceSnapshot;
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
  private readonly items = new Map<string, TrackedItem>();
  private planReported = false;
  private readonly operations: OperationData[] = [];
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
      case 'plan':
        this.takePlan(event.data.items);
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
        const found = operationsOf(call, event.data).map((operation) => this.relativize(operation));
        for (const operation of found) this.record(operation);
        return found;
      }
      default:
        return [];
    }
  }

  /** The attempt's entry of context.json. */
  summarize(ending: AttemptEnding): AttemptContext {
    const newCommits = newCommitsOf(ending.before, ending.after);
    const items = this.planReported ? [...this.items.values()] : [{ text: this.taskName, operations: this.operations }];
    const lastPushIndex = this.operations.findLastIndex((operation) => operation.kind === 'push' && operation.ok);
    const lastPush = this.operations[lastPushIndex];
    const workItems = items
      .filter((item) => item.text !== OUTSIDE_PLAN || item.operations.length > 0)
      .map((item) => summarizeItem(item, ending.after, lastPush, this.planReported ? [] : newCommits));
    const lastOperation = this.operations.at(-1);
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
          ...(ending.after.remote && { remote: ending.after.remote }),
        },
      }),
    };
  }

  private takePlan(reported: readonly { text: string; status: WorkItemStatus }[]): void {
    // Operations done before the first plan was reported were done outside it.
    if (!this.planReported && this.operations.length > 0) this.outsidePlan().operations.push(...this.operations);
    this.planReported = true;
    for (const { text, status } of reported) {
      const item = this.items.get(text);
      if (item) item.status = status;
      else this.items.set(text, { text, status, operations: [] });
    }
  }

  private record(operation: OperationData): void {
    this.operations.push(operation);
    if (!this.planReported) return;
    const current = [...this.items.values()].find((item) => item.status === 'in_progress');
    const target = current ?? this.outsidePlan();
    target.operations.push(operation);
  }

  private outsidePlan(): TrackedItem {
    let item = this.items.get(OUTSIDE_PLAN);
    if (!item) {
      item = { text: OUTSIDE_PLAN, operations: [] };
      this.items.set(OUTSIDE_PLAN, item);
    }
    return item;
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

function summarizeItem(
  item: TrackedItem,
  after: WorkspaceSnapshot | undefined,
  lastPush: OperationData | undefined,
  observedCommits: readonly Commit[],
): WorkItem {
  const files = new Set<string>();
  const commits: Commit[] = [];
  const testRuns: NonNullable<WorkItem['testRuns']> = [];
  let push: WorkItem['push'];
  let pullRequest: WorkItem['pullRequest'];
  for (const operation of item.operations) {
    switch (operation.kind) {
      case 'file_change':
        for (const file of operation.files) files.add(file);
        break;
      case 'commit': {
        if (!operation.ok || operation.sha === undefined) break;
        const short = operation.sha;
        const full = after?.commits.find((commit) => commit.sha.startsWith(short));
        commits.push(full ?? { sha: short, subject: operation.subject ?? '' });
        break;
      }
      case 'push': {
        if (!operation.ok) break;
        const remote = operation.remote ?? after?.remote?.remote;
        const branch = operation.branch ?? after?.remote?.branch;
        if (remote === undefined || branch === undefined) break;
        const observed = operation === lastPush && after?.remote?.branch === branch ? after.remote.sha : undefined;
        push = { remote, branch, ...(observed !== undefined && { sha: observed }) };
        break;
      }
      case 'pull_request':
        if (operation.ok && operation.url !== undefined) {
          pullRequest = { url: operation.url, ...(operation.number !== undefined && { number: operation.number }) };
        }
        break;
      case 'test_run':
        testRuns.push({
          command: operation.command,
          passed: operation.passed,
          ...(operation.counts && { counts: operation.counts }),
        });
        break;
    }
  }
  for (const commit of observedCommits) {
    if (!commits.some((known) => known.sha === commit.sha)) commits.push(commit);
  }
  return {
    text: item.text,
    ...(item.status !== undefined && { status: item.status }),
    ...(files.size > 0 && { filesChanged: [...files] }),
    ...(commits.length > 0 && { commits }),
    ...(push && { push }),
    ...(pullRequest && { pullRequest }),
    ...(testRuns.length > 0 && { testRuns }),
  };
}
