/**
 * What a plan entry's words claim, and whether HarmFlow saw it. An entry the harness reported
 * `completed` whose words name evidence — a commit, a push, a pull request, a test run — is checked
 * against what the attempt was seen to do; what is missing is said in words (`unconfirmed`), so the
 * claim is kept but never passed on as fact. Entries that name no such evidence ("Read the code",
 * "Add tests") are not judged: HarmFlow has nothing to see them by. English words only. Pure.
 */
import type { Commit, PullRequest, Push, TestRun, TriedOperation } from './context-schema.js';

/** The evidence an entry's words can name. */
export type Evidence = 'commit' | 'push' | 'pull_request' | 'test_run';

/**
 * Each kind's words. Pushing is a git push only when its object says so ("push the branch", "commit
 * and push", not "push notifications"); a test run is running or passing tests ("run the tests",
 * "tests pass"), not writing them ("add tests").
 */
const CLAIM_WORDS: readonly [Evidence, RegExp][] = [
  ['pull_request', /\b(?:pull[- ]requests?|merge[- ]requests?|PRs?|MRs?)\b/i],
  [
    'push',
    /\bpush(?:es|ed|ing)?\b(?:\s*$|\s+(?:(?:the|it|them|this|all|my|our|its|your)\b|to\b|up\b|branch|changes?|commits?|work|origin|upstream|remote|and\b))/i,
  ],
  ['commit', /\bcommit(?:s|ted|ting)?\b(?!\s+(?:message|hooks?|hash|parser|history)\b)/i],
  [
    'test_run',
    /\b(?:run|runs|ran|running|execute[sd]?|rerun)\b.*\b(?:tests?|test suite|specs?)\b|\b(?:tests?|test suite|specs?)\b.*\b(?:pass|passes|passed|passing|green|succeed|succeeds)\b|\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test\b|\b(?:pytest|go test|cargo test)\b/i,
  ],
];

/** The evidence `text` names, in the order its words name it. */
export function claimedEvidence(text: string): Evidence[] {
  return CLAIM_WORDS.flatMap(([kind, words]) => {
    const at = words.exec(text)?.index;
    return at === undefined ? [] : [{ kind, at }];
  })
    .sort((a, b) => a.at - b.at)
    .map(({ kind }) => kind);
}

/** What the attempt was seen to do, as far as claims are judged by it. */
export interface AttemptEvidence {
  /** Commits the attempt added to the branch (git). */
  readonly commits: readonly Commit[];
  /** Pushes confirmed on the remote, and the remote branch's change when git saw one. */
  readonly pushes: readonly Push[];
  readonly pushedSomething: boolean;
  readonly pullRequests: readonly PullRequest[];
  readonly testRuns: readonly TestRun[];
  /** Every operation tried and not counted, any entry's. */
  readonly tried: readonly TriedOperation[];
}

/**
 * The sentence that says what of `text`'s claims HarmFlow did not see, or undefined when it saw all
 * of them (or the words name none).
 */
export function unconfirmedClaims(text: string, seen: AttemptEvidence): string | undefined {
  const missing = claimedEvidence(text)
    .map((kind) => missingEvidence(kind, seen))
    .filter((clause): clause is string => clause !== undefined);
  if (missing.length === 0) return undefined;
  // "HarmFlow saw no commit …; nothing pushed …": the subject is said once.
  return missing.map((clause, index) => (index === 0 ? clause : clause.replace(/^HarmFlow saw /, ''))).join('; ');
}

function missingEvidence(kind: Evidence, seen: AttemptEvidence): string | undefined {
  const failedTry = (want: TriedOperation['kind']) => seen.tried.findLast((operation) => operation.kind === want);
  switch (kind) {
    case 'commit': {
      if (seen.commits.length > 0) return undefined;
      const last = failedTry('commit');
      return last
        ? `HarmFlow saw no commit made by this attempt: \`${last.command}\` ${describeTry(last)}`
        : 'HarmFlow saw no commit made by this attempt';
    }
    case 'push': {
      if (seen.pushes.length > 0 || seen.pushedSomething) return undefined;
      const last = failedTry('push');
      return last
        ? `HarmFlow saw nothing pushed by this attempt: \`${last.command}\` ${describeTry(last)}`
        : 'HarmFlow saw nothing pushed by this attempt';
    }
    case 'pull_request': {
      if (seen.pullRequests.length > 0) return undefined;
      const last = failedTry('pull_request');
      return last
        ? `HarmFlow saw no pull request opened by this attempt: \`${last.command}\` ${describeTry(last)}`
        : 'HarmFlow saw no pull request opened by this attempt';
    }
    case 'test_run': {
      if (seen.testRuns.some((run) => run.passed)) return undefined;
      const last = seen.testRuns.at(-1);
      if (last === undefined) return 'HarmFlow saw no test run in this attempt';
      return `HarmFlow saw no passing test run in this attempt: \`${last.command}\` failed${last.exitCode !== undefined ? ` (exit ${last.exitCode})` : ''}`;
    }
  }
}

/** `failed (exit 128): fatal: …` — a tried operation's why, with the line of its output that says it. */
export function describeTry(operation: TriedOperation): string {
  return operation.error !== undefined ? `${operation.why}: ${operation.error}` : operation.why;
}
