import { describe, expect, it } from 'vitest';
import { nothingTwiceGate } from '../../src/gates/builtin/nothing-twice.js';
import type { GateFacts, KnownPullRequest } from '../../src/gates/facts.js';
import { BRANCH, bash, facts } from './fixture.js';

const PR: KnownPullRequest = { url: 'https://github.com/acme/dates/pull/42', number: 42, attempt: 1, harness: 'codex' };
const PUSHED: GateFacts['pushes'] = [
  { remote: 'origin', branch: BRANCH, sha: '9f8e7d6c5b4a39281706', attempt: 1, harness: 'codex' },
];

const decide = (command: string, overrides: Partial<GateFacts> = {}) =>
  nothingTwiceGate(bash(command), facts(overrides));
const denial = (command: string, overrides: Partial<GateFacts> = {}) => {
  const verdict = decide(command, overrides);
  return verdict.decision === 'deny' ? verdict.message : undefined;
};

describe('nothing-twice gate: a second pull request', () => {
  it('denies gh pr create when the branch has one, naming its URL, number and who opened it', () => {
    const message = denial('gh pr create --title "Fix dates" --body "…"', { pullRequests: [PR] });
    expect(message).toContain('https://github.com/acme/dates/pull/42 (#42), by attempt 1 (codex)');
    expect(message).toContain(`push new commits to ${BRANCH}`);
    expect(message).toContain('`gh pr edit 42`');
  });

  it.each([
    ['hub pull-request -m "Fix dates"', 'the forge'],
    ['glab mr create --fill', '`glab mr update 42`'],
    ['git push -u origin HEAD && gh pr create --fill', '`gh pr edit 42`'],
    [`gh pr create --head acme:${BRANCH} --fill`, '`gh pr edit 42`'],
  ])('denies %s too (edit hint: %s)', (command, hint) => {
    expect(denial(command, { pullRequests: [PR] })).toContain(hint);
  });

  it('allows the first pull request, one for another head branch, and one after the known was closed', () => {
    expect(decide('gh pr create --fill').decision).toBe('allow');
    expect(decide('gh pr create -H other-branch --fill', { pullRequests: [PR] }).decision).toBe('allow');
    expect(decide('gh pr create --fill', { pullRequests: [{ ...PR, state: 'merged' }] }).decision).toBe('allow');
    expect(decide('gh pr view 42 && gh pr edit 42 --body x', { pullRequests: [PR] }).decision).toBe('allow');
  });

  it('names the URL when the number is unknown', () => {
    const message = denial('gh pr create --fill', { pullRequests: [{ url: 'https://forge.test/mr/7' }] });
    expect(message).toContain('already has a pull request, https://forge.test/mr/7.');
    expect(message).toContain('`gh pr edit https://forge.test/mr/7`');
  });
});

describe('nothing-twice gate: rewriting pushed history', () => {
  it.each([
    ['git push --force', '--force'],
    ['git push -f origin HEAD', '-f'],
    [`git push --force-with-lease origin ${BRANCH}`, '--force-with-lease'],
    [`git push origin +${BRANCH}`, 'a `+` refspec'],
    [`git push origin +HEAD:${BRANCH}`, 'a `+` refspec'],
  ])('denies %s on a branch an earlier attempt pushed (%s)', (command, how) => {
    const message = denial(command, { pushes: PUSHED });
    expect(message).toContain(`${BRANCH} was already pushed to origin at 9f8e7d6c5b4a, by attempt 1 (codex)`);
    expect(message).toContain(`${how} would rewrite that history`);
    expect(message).toContain(`git pull --no-rebase origin ${BRANCH}`);
  });

  it('denies deleting a pushed branch', () => {
    expect(denial(`git push origin --delete ${BRANCH}`, { pushes: PUSHED })).toContain('deleting it would drop');
  });

  it.each([
    ['git push', 'a fast-forward'],
    [`git push origin ${BRANCH}`, 'a fast-forward'],
    ['git push --force-with-lease origin feature', 'a branch never pushed'],
    ['git push --force upstream HEAD', 'another remote'],
    ['git push -n --force', 'a dry run'],
  ])('allows %s (%s)', (command) => {
    expect(decide(command, { pushes: PUSHED }).decision).toBe('allow');
  });

  it('allows a forced push when no push is known', () => {
    expect(decide('git push --force-with-lease origin HEAD').decision).toBe('allow');
  });
});
