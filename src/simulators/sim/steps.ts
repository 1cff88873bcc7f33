/**
 * Performing a scenario's steps for real, in the worktree, and printing each as the harness would:
 * files are written and edited, commands run through bash, commits, pushes and pull requests are shell
 * tool calls (`git …`, `gh pr create …`) whose exit codes and output are real. After a handoff, a step
 * the workspace shows as done is skipped with a short assistant message instead (`run` always runs).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { shellWord } from '../../core/shell-words.js';
import type { Workspace } from './handoff.js';
import type { HookRunner } from './hooks.js';
import type { Step } from './scenario.js';
import { runShell } from './shell.js';
import type { AgentStream, ToolCall, ToolResult } from './stream.js';

/** What a step needs; one per run. `print` writes objects as JSON lines, `printRaw` writes a raw line. */
export interface StepContext {
  readonly cwd: string;
  readonly stream: AgentStream;
  readonly print: (lines: readonly object[]) => void;
  readonly printRaw: (line: string) => void;
  /** Present after a handoff: the workspace checks that decide what is already done. */
  readonly workspace?: Workspace;
  /** The steps each plan item is in progress for (see `planSections`). */
  readonly sections: ReadonlyMap<string, readonly Step[]>;
  /** The played harness's hooks, when its command line installed any. */
  readonly hooks?: HookRunner;
}

/** Performs one step (never `end`); resolves to `skipped` when a handoff check found it done. */
export async function performStep(step: Exclude<Step, { kind: 'end' }>, ctx: StepContext): Promise<'done' | 'skipped'> {
  const note = ctx.workspace?.alreadyDone(step);
  if (note !== undefined) {
    ctx.print(ctx.stream.message(note));
    return 'skipped';
  }
  switch (step.kind) {
    case 'plan':
      ctx.print(ctx.stream.plan(ctx.workspace?.checkPlan(step.items, ctx.sections) ?? step.items));
      break;
    case 'say':
      ctx.print(ctx.stream.message(step.text));
      break;
    case 'garbage':
      for (let i = 1; i <= step.lines; i++) ctx.printRaw(`sim garbage ${i}/${step.lines}: this line is not JSON {"`);
      break;
    case 'write': {
      const file = join(ctx.cwd, step.path);
      await useTool(ctx, { kind: 'write', file, content: step.content, existed: existsSync(file) }, async () => {
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, step.content);
      });
      break;
    }
    case 'edit': {
      const file = join(ctx.cwd, step.path);
      await useTool(ctx, { kind: 'edit', file, find: step.find, replace: step.replace }, async () => {
        const content = await readFile(file, 'utf8').catch(() => {
          throw new Error('File does not exist.');
        });
        const matches = content.split(step.find).length - 1;
        if (matches === 0) throw new Error(`String to replace not found in file.\nString: ${step.find}`);
        if (matches > 1) {
          throw new Error(
            `Found ${matches} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: ${step.find}`,
          );
        }
        await writeFile(
          file,
          content.replace(step.find, () => step.replace),
        );
      });
      break;
    }
    case 'run':
      await shell(ctx, step.command, step.description ?? `Run ${step.command}`);
      break;
    case 'commit':
      await shell(ctx, `git add -A && git commit -m ${shellWord(step.message)}`, 'Commit the changes');
      break;
    case 'push':
      await shell(ctx, `git push -u ${shellWord(step.remote)} HEAD`, `Push the branch to ${step.remote}`);
      break;
    case 'pr': {
      const base = step.base !== undefined ? ` --base ${shellWord(step.base)}` : '';
      const command = `gh pr create --title ${shellWord(step.title)} --body ${shellWord(step.body)}${base}`;
      await shell(ctx, command, 'Open a pull request');
      break;
    }
  }
  return 'done';
}

/** Prints a file tool call, performs it, prints its result (an error's message becomes the result). */
async function useTool(ctx: StepContext, call: ToolCall, perform: () => Promise<void>): Promise<void> {
  await hooked(ctx, call, async () => {
    try {
      await perform();
      return { ok: true, output: '' };
    } catch (error) {
      return { ok: false, output: error instanceof Error ? error.message : String(error) };
    }
  });
}

/** Prints a shell tool call, runs the command for real, prints its real output and exit code. */
async function shell(ctx: StepContext, command: string, description: string): Promise<void> {
  await hooked(ctx, { kind: 'shell', command, description }, async () => {
    const run = await runShell(command, ctx.cwd);
    return { ok: run.exitCode === 0, ...run };
  });
}

/**
 * One tool call with the harness's hooks around it: a PreToolUse hook may refuse it (then it never
 * runs and the harness's refusal lines are printed), PostToolUse hooks see its result.
 */
async function hooked(ctx: StepContext, call: ToolCall, perform: () => Promise<ToolResult>): Promise<void> {
  const lines = ctx.stream.tool(call);
  const refused = ctx.hooks?.pre(lines.hook);
  if (refused !== undefined) {
    ctx.print(lines.denied(refused));
    return;
  }
  ctx.print(lines.started);
  const result = await perform();
  ctx.hooks?.post(lines.hook, result);
  ctx.print(lines.finish(result));
}
