/**
 * The handoff: with a `HarmFlow context file:` line in the prompt, `sim` says what the context holds
 * and skips, with a message each, what the workspace shows as done; without it, it redoes everything
 * (and the duplicate commit and pull request fail for real).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { argvFor, forgeEnv, git, jsonLines, makeSandbox, requireBuilt, runSim } from '../helpers.js';

beforeAll(requireBuilt);

const PLAN = (first: string, second: string) => ({
  plan: [
    { text: 'Add ISO week parsing', status: first },
    { text: 'Ship it', status: second },
  ],
});
const WORK = [
  PLAN('in_progress', 'pending'),
  { write: { path: 'src/week.js', content: 'export const week = 1;\n' } },
  { commit: 'Add ISO week parsing' },
  PLAN('completed', 'in_progress'),
  { push: {} },
  { pr: { title: 'Add ISO week parsing', body: 'Adds it.' } },
];
const FIRST = { steps: [...WORK.slice(0, 5), { end: 'quota' }] };
const FULL = { steps: [...WORK, { run: 'echo tests pass' }] };

const prompt = (contextFile?: string) =>
  `Add ISO week parsing${contextFile !== undefined ? `\n\nHarmFlow context file: ${contextFile}\n` : ''}`;

/** Codex agent_message texts. */
const messages = (lines: Record<string, unknown>[]) =>
  lines
    .filter((line) => line.type === 'item.completed' && (line.item as { type: string }).type === 'agent_message')
    .map((line) => (line.item as { text: string }).text);

describe.concurrent('handoff', () => {
  test('a second attempt checks the workspace, says what it skips, and does only the rest', async ({
    onTestFinished,
  }) => {
    const sandbox = await makeSandbox();
    onTestFinished(() => sandbox.cleanup());
    const env = forgeEnv(sandbox.forgeDir);
    const first = await runSim({
      harness: 'claude-code',
      scenario: FIRST,
      dir: sandbox.dir,
      cwd: sandbox.work,
      argv: argvFor('claude-code', prompt()),
      env,
    });
    expect(first.code).toBe(1);
    const head = git(sandbox.work, 'rev-parse', 'HEAD');
    expect(git(sandbox.origin, 'rev-parse', 'refs/heads/feature')).toBe(head);

    const contextFile = join(sandbox.dir, 'context.json');
    await writeFile(
      contextFile,
      JSON.stringify({
        version: 1,
        branch: 'feature',
        attempts: [
          {
            number: 1,
            harness: 'claude-code',
            model: 'claude-sonnet-4-5',
            outcome: 'quota_exhausted',
            workItems: [
              {
                text: 'Add ISO week parsing',
                status: 'completed',
                commits: [{ sha: head, subject: 'Add ISO week parsing' }],
              },
              { text: 'Ship it', status: 'in_progress' },
            ],
            extra: 'fields the simulator does not know are ignored',
          },
        ],
      }),
    );
    const second = await runSim({
      harness: 'codex',
      scenario: FULL,
      dir: sandbox.dir,
      cwd: sandbox.work,
      argv: argvFor('codex', prompt(contextFile)),
      env,
    });
    expect(second.code).toBe(0);
    const lines = jsonLines(second);
    const said = messages(lines);
    expect(said[0]).toContain('Attempt 1 ran claude-code (claude-sonnet-4-5) and ended quota_exhausted');
    expect(said[0]).toContain(`commits: ${head.slice(0, 7)} "Add ISO week parsing"`);
    expect(said.slice(1, 4)).toEqual([
      'Already done: src/week.js already has the intended content — skipping.',
      `Already done: commit "Add ISO week parsing" (${head.slice(0, 7)}) — skipping.`,
      `Already done: feature is already pushed to origin at ${head.slice(0, 7)} — skipping.`,
    ]);
    const todo = lines.find((line) => line.type === 'item.started') as { item: { type: string; items: unknown[] } };
    expect(todo.item.type).toBe('todo_list');
    expect(todo.item.items).toEqual([
      { text: 'Add ISO week parsing', completed: true },
      { text: 'Ship it', completed: false },
    ]);
    const commands = lines
      .filter((line) => line.type === 'item.completed' && (line.item as { type: string }).type === 'command_execution')
      .map((line) => (line.item as { command: string }).command);
    expect(commands).toEqual([
      "/bin/bash -lc 'gh pr create --title '\\''Add ISO week parsing'\\'' --body '\\''Adds it.'\\'''",
      "/bin/bash -lc 'echo tests pass'",
    ]);
    expect(git(sandbox.work, 'log', '--format=%s')).toBe('Add ISO week parsing\nInitial commit');

    // A third attempt finds the pull request in the forge too, so every checkable step is skipped.
    const third = await runSim({
      harness: 'claude-code',
      scenario: FULL,
      dir: sandbox.dir,
      cwd: sandbox.work,
      argv: argvFor('claude-code', prompt(contextFile)),
      env,
    });
    const texts = jsonLines(third)
      .filter((line) => line.type === 'assistant')
      .flatMap((line) => (line.message as { content: { type: string; text?: string }[] }).content)
      .filter((block) => block.type === 'text')
      .map((block) => block.text);
    expect(texts).toContain('Already done: pull request #1 (https://forge.example/work/pull/1) — skipping.');
    const pulls = JSON.parse(await readFile(join(sandbox.forgeDir, 'pulls.json'), 'utf8'));
    expect(pulls).toHaveLength(1);
  });

  test('without the handoff line the simulator has no memory: duplicates fail for real', async ({ onTestFinished }) => {
    const sandbox = await makeSandbox();
    onTestFinished(() => sandbox.cleanup());
    const env = forgeEnv(sandbox.forgeDir);
    const play = () =>
      runSim({
        harness: 'codex',
        scenario: FULL,
        dir: sandbox.dir,
        cwd: sandbox.work,
        argv: argvFor('codex', prompt()),
        env,
      });
    expect((await play()).code).toBe(0);
    const again = jsonLines(await play());
    expect(messages(again).filter((text) => text.startsWith('Already done'))).toEqual([]);
    const results = again
      .filter((line) => line.type === 'item.completed' && (line.item as { type: string }).type === 'command_execution')
      .map((line) => line.item as { command: string; exit_code: number; aggregated_output: string });
    expect(results.map((item) => item.exit_code)).toEqual([1, 0, 1, 0]);
    expect(results[0]?.aggregated_output).toContain('nothing to commit');
    expect(results[2]?.aggregated_output).toBe(
      'a pull request for branch "feature" into branch "main" already exists:\nhttps://forge.example/work/pull/1\n',
    );
  });

  test('an unreadable context file is said; a pull request known only from the context is skipped', async ({
    onTestFinished,
  }) => {
    const sandbox = await makeSandbox();
    onTestFinished(() => sandbox.cleanup());
    const missing = join(sandbox.dir, 'missing.json');
    const contextFile = join(sandbox.dir, 'context.json');
    await writeFile(
      contextFile,
      JSON.stringify({
        attempts: [{ workItems: [{ text: 'Ship it', pullRequest: { number: 7, url: 'https://x/pull/7' } }] }],
      }),
    );
    const scenario = { steps: [{ pr: { title: 'T', body: 'B' } }] };
    const env = forgeEnv(sandbox.forgeDir);
    const play = (file: string) =>
      runSim({
        harness: 'codex',
        scenario,
        dir: sandbox.dir,
        cwd: sandbox.work,
        argv: argvFor('codex', prompt(file)),
        env,
      });
    // The context first: the other run opens a pull request in the forge.
    expect(messages(jsonLines(await play(contextFile)))[1]).toBe(
      'Already done: pull request #7 (https://x/pull/7) — skipping.',
    );
    expect(messages(jsonLines(await play(missing)))[0]).toBe(
      `The HarmFlow context file ${missing} gave nothing: cannot read it (ENOENT). I'll check the workspace before each step and skip what is already done.`,
    );
  });
});
