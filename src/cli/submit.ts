/**
 * `harmflow submit TASK` — hands a task file to the running service and returns at once with the
 * execution's id. The file is loaded and validated here exactly as `run` loads it (same messages,
 * exit 3, nothing sent); the service has no folder to resolve relative paths against, so the task
 * goes over the wire with `repo` and every `simulate` made absolute. The service checks the rest
 * (repository, installed harnesses) on its own machine.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { TaskFileError } from '../core/errors.js';
import { TaskFile } from '../core/task.js';
import { loadTaskFile } from '../core/task-file.js';
import { connect, HOME_HELP } from './client.js';

/**
 * The task file at `path` as the service takes it: validated by `loadTaskFile` (the messages and
 * exit code of `run`), then the file as written, with its defaults filled in and `repo` and each
 * `simulate` replaced by the absolute paths `loadTaskFile` resolved. Every other field goes as
 * written, so a field added to the task file travels without a change here.
 */
export function taskForService(path: string): TaskFile {
  const task = loadTaskFile(path);
  // loadTaskFile returns the resolved Task; the wire carries the file, read again for its fields.
  let file: TaskFile;
  try {
    file = TaskFile.parse(parse(readFileSync(path, 'utf8')) ?? {});
  } catch (cause) {
    throw new TaskFileError(`${path}: changed while it was read`, { cause });
  }
  const [primary, ...fallbacks] = [file.harness, ...file.fallbacks].map((spec, index) => {
    const simulate = task.chain[index]?.simulate;
    return typeof spec === 'string' || simulate === undefined ? spec : { ...spec, simulate };
  });
  return { ...file, repo: task.repo, harness: primary ?? file.harness, fallbacks };
}

export function registerSubmit(program: Command): void {
  program
    .command('submit')
    .description('hand a task file to the running service (harmflow serve); prints the execution id')
    .argument('<task>', 'the task file (YAML)')
    .option('--json', 'print the execution record as JSON')
    .option('--home <dir>', HOME_HELP)
    .action(async (taskPath: string, options: { json?: boolean; home?: string }) => {
      const task = taskForService(taskPath); // before the token: a bad file is exit 3 with or without one
      const execution = await connect(options).submit(task);
      process.stdout.write(
        options.json ? `${JSON.stringify(execution, null, 2)}\n` : `${execution.id} ${execution.state}\n`,
      );
    });
}
