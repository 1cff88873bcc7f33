/** `harmflow schema` — prints the task file's JSON schema (generated from the zod schema). */
import type { Command } from 'commander';
import { z } from 'zod';
import { TaskFile } from '../core/task.js';

/** The published JSON schema of task files (schemas/task.schema.json holds this text). */
export function taskJsonSchema(): string {
  const schema = z.toJSONSchema(TaskFile, { io: 'input' });
  return `${JSON.stringify({ ...schema, title: 'HarmFlow task file' }, null, 2)}\n`;
}

export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description("print the task file's JSON schema")
    .action(() => {
      process.stdout.write(taskJsonSchema());
    });
}
