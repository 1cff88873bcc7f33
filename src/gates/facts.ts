/**
 * What the gates know about the execution besides the call itself: where its worktree is, which
 * branch it works on, and what earlier attempts already did outside the worktree (pushes, pull
 * requests). The engine writes them to each attempt's gates file from the records context.json is
 * written from; the gate runner adds what this attempt's gates saw and, before a pull request, what
 * the forge lists, and passes them in. Plain data: the gates ask no one for more.
 */
import { basename, dirname } from 'node:path';
import type { OperationData } from '../events/schema.js';

/** A push HarmFlow knows of: reported by an attempt or observed with git. */
export interface KnownPush {
  readonly remote: string;
  readonly branch: string;
  readonly sha?: string;
  /** The attempt that pushed, and its harness, when known (they are named in deny messages). */
  readonly attempt?: number;
  readonly harness?: string;
}

/** A pull (merge) request HarmFlow knows of, whose head is the execution's branch. */
export interface KnownPullRequest {
  readonly url: string;
  readonly number?: number;
  /** As the forge reported it; absent when only an attempt's report is known (treated as open). */
  readonly state?: 'open' | 'closed' | 'merged';
  readonly attempt?: number;
  readonly harness?: string;
}

export interface GateFacts {
  /** The execution's worktree, absolute. */
  readonly worktree: string;
  /** The OS temp directory (`os.tmpdir()`), absolute: writes there are allowed. */
  readonly tmpdir: string;
  /** The user's home, absolute, to read `~` and `$HOME`; without it such words go unchecked. */
  readonly home?: string;
  /**
   * HarmFlow's state directory (HARMFLOW_HOME), absolute. Nothing in it is writable through an
   * exemption (the temp directory, `allowPaths`): only the worktree inside it is. Absent from gates
   * files that do not carry it: `stateDirOf` then reads it from where the worktree is.
   */
  readonly stateDir?: string;
  /** The execution's branch: where a bare `git push` or `gh pr create` goes. */
  readonly branch: string;
  /** The branch the base ref names (e.g. `main`); absent when the base is not a branch. */
  readonly baseBranch?: string;
  /** Every push known for the execution, any attempt, oldest first. */
  readonly pushes: readonly KnownPush[];
  /** Every pull request known for the execution's branch. */
  readonly pullRequests: readonly KnownPullRequest[];
}

/**
 * The state directory the gates protect: `facts.stateDir`, else the one the worktree's place names
 * (the layout is a contract: `<state>/worktrees/<execution>`); undefined when neither tells.
 */
export function stateDirOf(facts: Pick<GateFacts, 'worktree' | 'stateDir'>): string | undefined {
  if (facts.stateDir !== undefined) return facts.stateDir;
  const parent = dirname(facts.worktree);
  return basename(parent) === 'worktrees' ? dirname(parent) : undefined;
}

/**
 * The part of context.json `earlierWork` reads. Structural, so `ExecutionContext` fits without this
 * layer importing the engine's schema.
 */
export interface EarlierAttempts {
  readonly attempts: readonly {
    readonly number: number;
    readonly harness: string;
    readonly workItems: readonly {
      readonly push?: RemoteBranch | undefined;
      readonly pullRequest?: { readonly url: string; readonly number?: number | undefined } | undefined;
    }[];
    readonly workspace?: { readonly remote?: RemoteBranch | undefined } | undefined;
  }[];
}

interface RemoteBranch {
  readonly remote: string;
  readonly branch: string;
  readonly sha?: string | undefined;
}

/**
 * The pushes and pull requests earlier attempts made, from context.json: what each reported, and
 * the remote branch git showed after it. One entry per remote branch (the latest) and per URL. A
 * remote branch git still shows unchanged after a later attempt stays credited to the attempt that
 * pushed it.
 */
export function earlierWork(context: EarlierAttempts): Pick<GateFacts, 'pushes' | 'pullRequests'> {
  const pushes = new Map<string, KnownPush>();
  const pullRequests = new Map<string, KnownPullRequest>();
  const record = (push: RemoteBranch, by: { attempt: number; harness: string }) => {
    const key = `${push.remote}\u0000${push.branch}`;
    const sha = push.sha ?? pushes.get(key)?.sha;
    pushes.delete(key);
    pushes.set(key, { remote: push.remote, branch: push.branch, ...(sha !== undefined && { sha }), ...by });
  };
  for (const attempt of context.attempts) {
    const by = { attempt: attempt.number, harness: attempt.harness };
    for (const item of attempt.workItems) {
      if (item.push) record(item.push, by);
      if (item.pullRequest) {
        const { url, number } = item.pullRequest;
        pullRequests.set(url, { url, ...(number !== undefined && { number }), ...by });
      }
    }
    const observed = attempt.workspace?.remote;
    if (observed) {
      const known = pushes.get(`${observed.remote}\u0000${observed.branch}`);
      const unchanged = known !== undefined && (observed.sha === undefined || observed.sha === known.sha);
      if (!unchanged) record(observed, by);
    }
  }
  return { pushes: [...pushes.values()], pullRequests: [...pullRequests.values()] };
}

/** A push or pull request a call was seen to make. */
export type SeenWork = { readonly push: KnownPush } | { readonly pullRequest: KnownPullRequest };

/**
 * The pushes and pull requests among a finished call's operations, credited to `by`. A push that
 * names no branch went to the execution's `branch` (a bare `git push`).
 */
export function workSeen(
  operations: readonly OperationData[],
  branch: string,
  by: { readonly attempt: number; readonly harness: string },
): SeenWork[] {
  const seen: SeenWork[] = [];
  for (const operation of operations) {
    if (operation.kind === 'push' && operation.ok && operation.remote !== undefined) {
      seen.push({ push: { remote: operation.remote, branch: operation.branch ?? branch, ...by } });
    }
    if (operation.kind === 'pull_request' && operation.ok && operation.url !== undefined) {
      const number = operation.number;
      seen.push({ pullRequest: { url: operation.url, ...(number !== undefined && { number }), ...by } });
    }
  }
  return seen;
}

/**
 * `facts` with `seen` added in order: a remote branch seen pushed replaces the older push of it, a
 * pull request is added once per URL.
 */
export function withSeen(facts: GateFacts, seen: readonly SeenWork[]): GateFacts {
  if (seen.length === 0) return facts;
  const pushes = [...facts.pushes];
  const pullRequests = [...facts.pullRequests];
  for (const work of seen) {
    if ('push' in work) {
      const at = pushes.findIndex((known) => known.remote === work.push.remote && known.branch === work.push.branch);
      if (at >= 0) pushes.splice(at, 1);
      pushes.push(work.push);
    } else if (!pullRequests.some((known) => known.url === work.pullRequest.url)) {
      pullRequests.push(work.pullRequest);
    }
  }
  return { ...facts, pushes, pullRequests };
}
