import { describe, expect, it } from 'vitest';
import { type AttemptEvidence, claimedEvidence, unconfirmedClaims } from '../../src/execution/claims.js';

describe('claimedEvidence', () => {
  it.each([
    ['Open a pull request', ['pull_request']],
    ['Create PR for the fix', ['pull_request']],
    ['Commit and push', ['commit', 'push']],
    ['Push the branch', ['push']],
    ['git push to origin', ['push']],
    ['Push changes, then open a PR', ['push', 'pull_request']],
    ['Run the tests', ['test_run']],
    ['Make sure the test suite passes', ['test_run']],
    ['npm test', ['test_run']],
    ['Commit the changes', ['commit']],
    // Words that name no evidence HarmFlow could see:
    ['Add tests for the parser', []],
    ['Implement push notifications', []],
    ['Fix the commit message parser', []],
    ['Read the code', []],
  ])('%s → %j', (text, kinds) => {
    expect(claimedEvidence(text)).toStrictEqual(kinds);
  });
});

describe('unconfirmedClaims', () => {
  const nothing: AttemptEvidence = {
    commits: [],
    pushes: [],
    pushedSomething: false,
    pullRequests: [],
    testRuns: [],
    tried: [],
  };

  it('is undefined when everything the words name was seen, or they name nothing', () => {
    const seen: AttemptEvidence = {
      ...nothing,
      commits: [{ sha: 'a'.repeat(40), subject: 'x' }],
      pushedSomething: true,
      pullRequests: [{ url: 'https://x/pull/1', number: 1 }],
      testRuns: [{ command: 'npm test', passed: true }],
    };
    expect(unconfirmedClaims('Run the tests, commit, push and open a pull request', seen)).toBeUndefined();
    expect(unconfirmedClaims('Refactor the parser', nothing)).toBeUndefined();
  });

  it('says each missing piece once, with the failed try that contradicts it', () => {
    const evidence: AttemptEvidence = {
      ...nothing,
      tried: [
        {
          kind: 'pull_request',
          command: 'gh pr create --fill',
          exitCode: 1,
          error: 'gh: not logged in',
          why: 'failed (exit 1)',
        },
      ],
    };
    expect(unconfirmedClaims('Commit, then open a PR', evidence)).toBe(
      'HarmFlow saw no commit made by this attempt; no pull request opened by this attempt: `gh pr create --fill` failed (exit 1): gh: not logged in',
    );
  });
});
