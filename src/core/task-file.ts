/**
 * Reads a task file: YAML (or JSON) → `TaskFile` (zod) → normalized `Task`, with paths resolved
 * against the file's folder. Every failure is a TaskFileError whose message names the file and
 * the first problem, e.g. `task.yaml: harness: unknown harness "foo" (known: claude-code, codex)`.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { TaskFileError } from './errors.js';
import { resolveTask, type Task, TaskFile } from './task.js';

/** Loads and validates the task file at `path`. Reads only; writes nothing. */
export function loadTaskFile(path: string): Task {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new TaskFileError(`cannot read task file ${path}: ${(cause as NodeJS.ErrnoException).code ?? cause}`, {
      cause,
    });
  }
  const document = parseDocument(text);
  const yamlError = document.errors[0];
  if (yamlError) {
    const line = yamlError.linePos?.[0].line;
    const message = (yamlError.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    throw new TaskFileError(`${path}${line ? `:${line}` : ''}: not valid YAML: ${message}`);
  }
  // reportInput: an issue's input tells a missing field (undefined) from a value of the wrong type.
  const parsed = TaskFile.safeParse(document.toJS() ?? {}, { reportInput: true });
  if (!parsed.success) throw new TaskFileError(`${path}: ${describeIssue(parsed.error)}`);
  const folder = dirname(resolve(path));
  return resolveTask(parsed.data, (relative) => resolve(folder, relative));
}

/** The first issue of a zod error, as `field.path: message`. */
export function describeIssue(error: { issues: readonly z.core.$ZodIssue[] }): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  if (issue.code === 'invalid_union') {
    // A value that fits no option: describe the option the input was meant for — the one that got
    // furthest into it (deepest path), and of equals the one not rejecting the input's type outright.
    const score = (issues: readonly z.core.$ZodIssue[]) =>
      (issues[0]?.path.length ?? 0) * 2 + (issues[0]?.code === 'invalid_type' ? 0 : 1);
    const meant = [...issue.errors].sort((a, b) => score(b) - score(a))[0];
    if (meant?.[0]) return describeIssue({ issues: [{ ...meant[0], path: [...issue.path, ...meant[0].path] }] });
  }
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  if (issue.code === 'unrecognized_keys') return `${where}unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input === undefined) {
    return `${where}required`;
  }
  return `${where}${issue.message}`;
}
