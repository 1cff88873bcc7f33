/**
 * Reads a task file: YAML (or JSON) → `TaskFile` (zod) → normalized `Task`, with paths resolved
 * against the file's folder. Every failure is one TaskFileError listing every problem the file has,
 * one line each naming the file and the place in it, e.g.
 * `task.yaml: fallbacks[1]: unknown harness "cluade" (known: claude-code, codex, gemini, opencode)`:
 * a file is fixed in one round, not one error per run.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { fileProblem, TaskFileError } from './errors.js';
import { resolveTask, type Task, TaskFile } from './task.js';

/** Loads and validates the task file at `path`. Reads only; writes nothing. */
export function loadTaskFile(path: string): Task {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new TaskFileError(`cannot read task file ${path}: ${fileProblem(cause)}`, { cause });
  }
  const read = readTaskYaml(text);
  if (!read.ok) {
    throw new TaskFileError(
      read.problems.map(({ line, message }) => `${path}${line ? `:${line}` : ''}: not valid YAML: ${message}`),
    );
  }
  // reportInput: an issue's input tells a missing field (undefined) from a value of the wrong type.
  const parsed = TaskFile.safeParse(read.value, { reportInput: true });
  if (!parsed.success) throw new TaskFileError(describeIssues(parsed.error).map((problem) => `${path}: ${problem}`));
  const folder = dirname(resolve(path));
  return resolveTask(parsed.data, (relative) => resolve(folder, relative));
}

/** A task file's text as YAML reads it, or what YAML could not read: one problem a line, with its number. */
export type TaskYaml =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problems: readonly { readonly line?: number; readonly message: string }[] };

/**
 * Reads `text` as YAML (JSON is YAML). An empty document is `{}`. The schema is not checked on a
 * document YAML could not read (its values are guesses), so a failure is the YAML's problems alone.
 */
export function readTaskYaml(text: string): TaskYaml {
  const document = parseDocument(text);
  if (document.errors.length === 0) return { ok: true, value: document.toJS() ?? {} };
  // One problem a line: a second error on the same line follows from the first.
  const lines = new Set<number>();
  const problems = document.errors.flatMap((error) => {
    const line = error.linePos?.[0].line;
    if (line !== undefined && lines.has(line)) return [];
    if (line !== undefined) lines.add(line);
    const message = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    return [{ ...(line !== undefined && { line }), message }];
  });
  return { ok: false, problems };
}

/** The first issue of a zod error, as `field.path[1]: message` (describeIssues' first line). */
export function describeIssue(error: { issues: readonly z.core.$ZodIssue[] }): string {
  return describeIssues(error)[0] ?? 'invalid';
}

/** Every issue of a zod error, one line each: `field.path[1]: message`, in the schema's order. */
export function describeIssues(error: { issues: readonly z.core.$ZodIssue[] }): string[] {
  return issueProblems(error).map(({ path, message }) => (path === '' ? message : `${path}: ${message}`));
}

/** One problem of a value: where (`fallbacks[1].harness`, `''` for the whole value) and what. */
export interface Problem {
  readonly path: string;
  readonly message: string;
}

/** Every issue of a zod error as a Problem, in the schema's order (describeIssues' lines, apart). */
export function issueProblems(error: { issues: readonly z.core.$ZodIssue[] }): Problem[] {
  return error.issues.flatMap((issue) => describeOne(issue));
}

function describeOne(issue: z.core.$ZodIssue): Problem[] {
  if (issue.code === 'invalid_union') {
    // A value that fits no option: describe the option the input was meant for — the one that got
    // furthest into it (deepest path), and of equals the one not rejecting the input's type outright.
    const score = (issues: readonly z.core.$ZodIssue[]) =>
      (issues[0]?.path.length ?? 0) * 2 + (issues[0]?.code === 'invalid_type' ? 0 : 1);
    const meant = [...issue.errors].sort((a, b) => score(b) - score(a))[0];
    if (meant?.[0]) return meant.flatMap((inner) => describeOne({ ...inner, path: [...issue.path, ...inner.path] }));
  }
  const path = fieldPath(issue.path);
  if (issue.code === 'unrecognized_keys')
    return [{ path, message: `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}` }];
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input === undefined) {
    return [{ path, message: 'required' }];
  }
  return [{ path, message: issue.message }];
}

/** A place in the file as people write it: `fallbacks[1].harness`, `gates.custom[0].name`. */
function fieldPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}
