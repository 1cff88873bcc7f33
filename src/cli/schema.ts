/**
 * `harmflow schema [task|context]` — prints a published JSON schema, generated from its zod schema:
 * the task file's (schemas/task.schema.json) or context.json's (schemas/context.schema.json, whose
 * descriptions say where each value comes from: observed by HarmFlow or reported by the harness).
 */
import { Argument, type Command } from 'commander';
import { z } from 'zod';
import { TaskFile } from '../core/task.js';
import { ExecutionContext } from '../execution/context-schema.js';

/** The published JSON schema of task files (schemas/task.schema.json holds this text). */
export function taskJsonSchema(): string {
  const schema = z.toJSONSchema(TaskFile, { io: 'input' });
  return `${JSON.stringify({ ...schema, title: 'HarmFlow task file' }, null, 2)}\n`;
}

/** The published JSON schema of context.json (schemas/context.schema.json holds this text). */
export function contextJsonSchema(): string {
  const schema = z.toJSONSchema(ExecutionContext, { io: 'output' });
  return `${JSON.stringify({ ...schema, title: 'HarmFlow context.json' }, null, 2)}\n`;
}

const SCHEMAS = { task: taskJsonSchema, context: contextJsonSchema } as const;

export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description("print the task file's JSON schema, or context.json's")
    .addArgument(new Argument('[which]', 'task or context').choices(Object.keys(SCHEMAS)).default('task'))
    .action((which: keyof typeof SCHEMAS = 'task') => {
      process.stdout.write(SCHEMAS[which]());
    });
}
