/**
 * The record tells the truth (issue 20), end to end through the engine with the simulator playing
 * the real harness formats: a harness's claims are kept apart from what HarmFlow saw and never passed
 * on as done; failed operations are recorded failed, with their exit codes, and the handoff says so;
 * an execution whose every commit failed says so.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/events/log.js';
import type { EventRecord } from '../../src/events/schema.js';
import { ExecutionContext } from '../../src/execution/context-schema.js';
import { type Bench, git, makeBench, simulated } from './fixture.js';

let bench: Bench;
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  await bench.cleanup();
});

const ITEMS = ['Write the parser', 'Run the tests', 'Commit and push', 'Open a pull request'];
const plan = (statuses: readonly string[]) => ({
  plan: ITEMS.map((text, index) => ({ text, status: statuses[index] })),
});
const PARSER = { write: { path: 'src/parser.js', content: 'export const parse = (s) => s.trim();\n' } };

function records(id: string): EventRecord[] {
  return readEvents(bench.home.eventsFile(id));
}

function prompts(id: string): string[] {
  return records(id).flatMap((record) => (record.type === 'attempt.started' ? [record.data.prompt] : []));
}

describe('a harness that claims work it did not do', () => {
  it('keeps its claims apart, marks them unconfirmed, and the next harness is told and does the work', async () => {
    const claude = bench.scenario('claude', {
      steps: [
        plan(['in_progress', 'pending', 'pending', 'pending']),
        PARSER,
        plan(['completed', 'completed', 'completed', 'completed']),
        { say: 'All done: I ran the tests, committed, pushed and opened a pull request.' },
        { end: 'quota' },
      ],
    });
    const codex = bench.scenario('codex', {
      steps: [
        plan(['in_progress', 'pending', 'pending', 'pending']),
        PARSER,
        plan(['completed', 'in_progress', 'pending', 'pending']),
        { run: 'npm test' },
        plan(['completed', 'completed', 'in_progress', 'pending']),
        { commit: 'Add the parser' },
        { push: {} },
        plan(['completed', 'completed', 'completed', 'in_progress']),
        { pr: { title: 'Add the parser' } },
        plan(['completed', 'completed', 'completed', 'completed']),
        { end: 'complete' },
      ],
    });
    const task = bench.task({ harness: simulated('claude-code', claude), fallbacks: [simulated('codex', codex)] });

    const result = await bench.run(task);

    expect(result.state).toBe('succeeded');
    const context = ExecutionContext.parse(JSON.parse(readFileSync(result.contextFile, 'utf8')));
    const first = context.attempts[0];
    expect(first?.lastMessage).toBe('All done: I ran the tests, committed, pushed and opened a pull request.');
    const reported = { status: 'completed', by: 'claude-code plan' };
    expect(first?.workItems).toStrictEqual([
      { text: 'Write the parser', reported, filesChanged: ['src/parser.js'] },
      { text: 'Run the tests', reported, unconfirmed: 'HarmFlow saw no test run in this attempt' },
      {
        text: 'Commit and push',
        reported,
        unconfirmed: 'HarmFlow saw no commit made by this attempt; nothing pushed by this attempt',
      },
      { text: 'Open a pull request', reported, unconfirmed: 'HarmFlow saw no pull request opened by this attempt' },
    ]);

    const handoff = prompts(result.id)[1] ?? '';
    expect(handoff).toContain(
      '"Open a pull request": claude-code reported it completed, but HarmFlow saw no pull request opened by this attempt',
    );
    expect(handoff).toContain(
      '"Commit and push": claude-code reported it completed, but HarmFlow saw no commit made by this attempt; nothing pushed by this attempt',
    );
    expect(handoff).toContain("Last message (claude-code's own words, not checked by HarmFlow): All done:");
    expect(handoff).not.toContain('[completed]');

    // Codex was not fooled: it committed, pushed and opened the pull request, each once.
    expect(git(result.worktree, 'log', '--format=%s', `${result.baseSha}..HEAD`)).toBe('Add the parser');
    expect(git(bench.origin, 'rev-parse', result.branch)).toBe(git(result.worktree, 'rev-parse', 'HEAD'));
    const pulls = JSON.parse(readFileSync(join(bench.forgeDir, 'pulls.json'), 'utf8')) as unknown[];
    expect(pulls).toHaveLength(1);
    const second = context.attempts[1];
    expect(second?.workItems.find((item) => item.text === 'Open a pull request')).toMatchObject({
      reported: { status: 'completed', by: 'codex plan' },
      pullRequest: { number: 1 },
    });
    expect(second?.workItems.some((item) => item.unconfirmed !== undefined)).toBe(false);
  });
});

describe('operations that failed', () => {
  it('are recorded failed with their exit codes, kept as tried, and the handoff says so (Codex: from its stream)', async () => {
    const codex = bench.scenario('codex', {
      steps: [
        PARSER,
        { commit: 'Add the parser' },
        { commit: 'Add the parser again' },
        { push: { remote: 'nowhere' } },
        {
          write: {
            path: 'test/two.test.js',
            content: "import { test } from 'node:test';\ntest('two', () => { throw new Error('no'); });\n",
          },
        },
        { run: 'npm test' },
        { end: 'quota' },
      ],
    });
    const claude = bench.scenario('claude', { steps: [{ end: 'complete' }] });
    const task = bench.task({ harness: simulated('codex', codex), fallbacks: [simulated('claude-code', claude)] });

    const result = await bench.run(task);

    const operations = records(result.id).flatMap((record) =>
      record.type === 'operation' && record.data.kind !== 'file_change' ? [record.data] : [],
    );
    expect(operations).toMatchObject([
      { kind: 'commit', ok: true, exitCode: 0, subject: 'Add the parser' },
      {
        kind: 'commit',
        ok: false,
        exitCode: 1,
        error: 'nothing to commit, working tree clean',
        subject: 'Add the parser again',
      },
      { kind: 'push', ok: false, exitCode: 128, remote: 'nowhere', error: expect.stringMatching(/^fatal: /) },
      { kind: 'test_run', command: 'npm test', passed: false, exitCode: 1, counts: { passed: 1, failed: 1 } },
    ]);
    const context = ExecutionContext.parse(JSON.parse(readFileSync(result.contextFile, 'utf8')));
    expect(context.attempts[0]?.workItems[0]?.tried).toMatchObject([
      { kind: 'commit', exitCode: 1, why: 'failed (exit 1)', error: 'nothing to commit, working tree clean' },
      { kind: 'push', exitCode: 128, why: 'failed (exit 128)' },
    ]);
    const handoff = prompts(result.id)[1] ?? '';
    expect(handoff).toContain(
      "tried to commit (`git commit -m 'Add the parser again'`); it failed (exit 1): nothing to commit, working tree clean",
    );
    expect(handoff).toMatch(/tried to push \(`git push -u nowhere HEAD`\); it failed \(exit 128\): fatal: /);
    expect(handoff).toContain('tests `npm test` failed (exit 1; 1 passed, 1 failed');
    expect(handoff).toContain('Last recorded operation: tests `npm test` failed (exit 1;');
  });
});

describe('an execution whose every commit failed', () => {
  it('ends saying so, with a workspace.warning record, instead of a plain success', async () => {
    // A repository whose pre-commit hook refuses every commit.
    const hook = join(bench.repo, '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, '#!/bin/sh\necho "error: commits are frozen until the release is out" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const codex = bench.scenario('codex', {
      steps: [PARSER, { commit: 'Add the parser' }, { end: 'complete' }],
    });
    const task = bench.task({ harness: simulated('codex', codex) });

    const result = await bench.run(task);

    expect(result.state).toBe('succeeded');
    const warning = records(result.id).find((record) => record.type === 'workspace.warning');
    expect(warning?.data).toStrictEqual({
      kind: 'commits_failed',
      message:
        "every commit failed: the 1 commit it tried left nothing on the branch; the last, `git commit -m 'Add the parser'`, failed (exit 1): error: commits are frozen until the release is out",
    });
    const ended = records(result.id).at(-1);
    expect(ended?.type === 'execution.ended' && ended.data.message).toBe(`completed, but ${warning?.data.message}`);
    expect((await bench.store.getExecution(result.id))?.message).toBe(`completed, but ${warning?.data.message}`);
  });
});
