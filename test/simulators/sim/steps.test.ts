/**
 * Steps happen for real and print the harness's tool lines: the file is written and edited, commands
 * run with their real exit codes and output, the commit exists, the push reached the bare origin and
 * the pull request is recorded by the fake forge.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { argvFor, forgeEnv, git, jsonLines, makeSandbox, requireBuilt, runSim, type Sandbox } from '../helpers.js';

beforeAll(requireBuilt);

const SCENARIO = {
  steps: [
    { plan: [{ text: 'Add ISO week parsing', status: 'in_progress' }] },
    { write: { path: 'src/week.js', content: 'export const week = 1;\n' } },
    { edit: { path: 'src/week.js', find: '= 1', replace: '= 53' } },
    { edit: { path: 'src/week.js', find: 'not there', replace: 'x' } },
    { run: "cat src/week.js; echo 'it'\\''s failing' >&2; exit 3" },
    { commit: "Add ISO week parsing (it's done)" },
    { push: {} },
    { pr: { title: 'Add ISO week parsing', body: "Adds it; it's tested." } },
  ],
};

/** Checks the effects in the worktree, the origin and the forge. */
async function expectEffects(sandbox: Sandbox): Promise<void> {
  expect(await readFile(join(sandbox.work, 'src/week.js'), 'utf8')).toBe('export const week = 53;\n');
  expect(git(sandbox.work, 'log', '-1', '--format=%s')).toBe("Add ISO week parsing (it's done)");
  expect(git(sandbox.origin, 'rev-parse', 'refs/heads/feature')).toBe(git(sandbox.work, 'rev-parse', 'HEAD'));
  const pulls = JSON.parse(await readFile(join(sandbox.forgeDir, 'pulls.json'), 'utf8'));
  expect(pulls).toMatchObject([
    {
      number: 1,
      url: 'https://forge.example/work/pull/1',
      title: 'Add ISO week parsing',
      body: "Adds it; it's tested.",
      head: 'feature',
      base: 'main',
    },
  ]);
}

describe.concurrent('steps are performed for real', () => {
  test('as claude-code: tool_use / tool_result lines with real results', async ({ onTestFinished }) => {
    const sandbox = await makeSandbox();
    onTestFinished(() => sandbox.cleanup());
    const run = await runSim({
      harness: 'claude-code',
      scenario: SCENARIO,
      dir: sandbox.dir,
      cwd: sandbox.work,
      argv: argvFor('claude-code', 'Add ISO week parsing'),
      env: forgeEnv(sandbox.forgeDir),
    });
    expect(run.code).toBe(0);
    await expectEffects(sandbox);

    const lines = jsonLines(run) as { type: string; message?: { id?: string; content: Record<string, unknown>[] } }[];
    const uses = lines
      .filter((line) => line.type === 'assistant' && line.message?.content[0]?.type === 'tool_use')
      .map((line) => line.message?.content[0] as { id: string; name: string; input: Record<string, unknown> });
    expect(uses.map((use) => use.name)).toEqual(['TodoWrite', 'Write', 'Edit', 'Edit', 'Bash', 'Bash', 'Bash', 'Bash']);
    expect(uses.every((use) => /^toolu_\w+$/.test(use.id))).toBe(true);
    expect(uses[0]?.input).toEqual({
      todos: [{ content: 'Add ISO week parsing', status: 'in_progress', activeForm: 'Add ISO week parsing' }],
    });
    expect(uses[1]?.input).toEqual({
      file_path: join(sandbox.work, 'src/week.js'),
      content: 'export const week = 1;\n',
    });
    expect(uses[2]?.input).toEqual({
      file_path: join(sandbox.work, 'src/week.js'),
      old_string: '= 1',
      new_string: '= 53',
    });
    expect(uses[6]?.input.command).toBe('git push -u origin HEAD');
    expect(uses[7]?.input.command).toBe(
      "gh pr create --title 'Add ISO week parsing' --body 'Adds it; it'\\''s tested.'",
    );

    const results = lines
      .filter((line) => line.type === 'user')
      .map((line) => ({
        ...(line.message?.content[0] as { tool_use_id: string; content: string; is_error: boolean }),
        detail: (line as { tool_use_result?: unknown }).tool_use_result,
      }));
    expect(results.map((result) => result.tool_use_id)).toEqual(uses.map((use) => use.id));
    expect(results.map((result) => result.is_error)).toEqual([false, false, false, true, true, false, false, false]);
    expect(results[3]?.content).toMatch(/^<tool_use_error>String to replace not found in file\./);
    expect(results[4]?.content).toBe("Exit code 3\nexport const week = 53;\nit's failing");
    expect(results[4]?.detail).toEqual({
      stdout: 'export const week = 53;\n',
      stderr: "it's failing\n",
      interrupted: false,
      isImage: false,
    });
    expect(results[7]?.content).toBe('https://forge.example/work/pull/1');
  });

  test('as codex: item.started / item.completed with real output and exit codes', async ({ onTestFinished }) => {
    const sandbox = await makeSandbox();
    onTestFinished(() => sandbox.cleanup());
    const run = await runSim({
      harness: 'codex',
      scenario: SCENARIO,
      dir: sandbox.dir,
      cwd: sandbox.work,
      argv: argvFor('codex', 'Add ISO week parsing'),
      env: forgeEnv(sandbox.forgeDir),
    });
    expect(run.code).toBe(0);
    await expectEffects(sandbox);

    const lines = jsonLines(run) as { type: string; item?: Record<string, unknown> }[];
    const completed = lines.filter((line) => line.type === 'item.completed').map((line) => line.item ?? {});
    const ids = completed.map((item) => Number(String(item.id).replace('item_', '')));
    expect(ids.slice(0, -1)).toEqual([...ids.slice(0, -1)].sort((a, b) => a - b));
    const started = lines.filter((line) => line.type === 'item.started').map((line) => line.item ?? {});
    expect(started.map((item) => item.id)).toEqual([
      'item_0',
      'item_1',
      'item_2',
      'item_3',
      'item_4',
      'item_5',
      'item_6',
      'item_7',
    ]);
    expect(started[0]).toEqual({
      id: 'item_0',
      type: 'todo_list',
      items: [{ text: 'Add ISO week parsing', completed: false }],
    });

    const byId = new Map(completed.map((item) => [item.id, item]));
    expect(byId.get('item_1')).toEqual({
      id: 'item_1',
      type: 'file_change',
      changes: [{ path: join(sandbox.work, 'src/week.js'), kind: 'add' }],
      status: 'completed',
    });
    expect(byId.get('item_2')).toMatchObject({ changes: [{ kind: 'update' }], status: 'completed' });
    expect(byId.get('item_3')).toMatchObject({ type: 'file_change', status: 'failed' });
    expect(byId.get('item_4')).toEqual({
      id: 'item_4',
      type: 'command_execution',
      command: `/bin/bash -lc 'cat src/week.js; echo '\\''it'\\''\\'\\'''\\''s failing'\\'' >&2; exit 3'`,
      aggregated_output: "export const week = 53;\nit's failing\n",
      exit_code: 3,
      status: 'failed',
    });
    expect(started[4]).toMatchObject({ aggregated_output: '', exit_code: null, status: 'in_progress' });
    expect(byId.get('item_5')).toMatchObject({ exit_code: 0, status: 'completed' });
    expect(byId.get('item_7')).toMatchObject({
      command: `/bin/bash -lc 'gh pr create --title '\\''Add ISO week parsing'\\'' --body '\\''Adds it; it'\\''\\'\\'''\\''s tested.'\\'''`,
      aggregated_output: 'https://forge.example/work/pull/1\n',
      exit_code: 0,
    });
    expect(lines.at(-2)).toMatchObject({ type: 'item.completed', item: { id: 'item_0', type: 'todo_list' } });
    expect(lines.at(-1)?.type).toBe('turn.completed');
  });
});
