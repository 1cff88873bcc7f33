/**
 * `harmflow schema [task|context]` — prints a published JSON schema, generated from its zod schema:
 * the task file's (schemas/task.schema.json) or context.json's (schemas/context.schema.json, whose
 * descriptions say where each value comes from: observed by HarmFlow or reported by the harness).
 */
import { Argument, type Command } from 'commander';
import { z } from 'zod';
import { TaskFile } from '../core/task.js';
import { ExecutionContext } from '../execution/context-schema.js';

/**
 * The task schema's `$id`: a name, not an address. HarmFlow has no web home to serve the file from,
 * and an `https:` id no one answers would send tools to fetch it; the file itself ships in the
 * package (schemas/task.schema.json), which an editor is pointed at by path (docs/task-file.md).
 */
export const TASK_SCHEMA_ID = 'urn:harmflow:schema:task-file';

/**
 * The published JSON schema of task files (schemas/task.schema.json holds this text), in draft 7:
 * the newest draft the YAML language server (VS Code's YAML support and most editors') validates.
 */
export function taskJsonSchema(): string {
  const { $schema, ...schema } = z.toJSONSchema(TaskFile, { io: 'input', target: 'draft-7' });
  return `${JSON.stringify({ $schema, $id: TASK_SCHEMA_ID, title: 'HarmFlow task file', ...schema }, null, 2)}\n`;
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
