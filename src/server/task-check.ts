/**
 * The service's check of a submitted task file's content (JSON, paths absolute): the schema the CLI
 * reads task files with (`TaskFile`, its problems as `describeIssues` words them), then what only a
 * service refuses — a relative path (there is no task-file folder to resolve it in) and, outside
 * cluster mode, a `repo` that is a URL. Every problem at once, each with its place in the file, so a
 * form shows each beside its field. Pure: reads nothing, writes nothing.
 */
import { isAbsolute } from 'node:path';
import { isRepositoryUrl } from '../core/repository-url.js';
import { resolveTask, type Task, TaskFile } from '../core/task.js';
import { issueProblems, type Problem } from '../core/task-file.js';

export type TaskCheck =
  | { readonly ok: true; readonly task: Task }
  | { readonly ok: false; readonly problems: Problem[] };

/**
 * Checks `raw`; `cluster`: the service runs in cluster mode, where `repo` may be a URL. The paths are
 * checked whatever the schema says of the rest, so a form learns of a relative path with the rest;
 * a task that passes the schema is checked with its defaults (`repo` `.` is relative).
 */
export function checkTask(raw: unknown, cluster: boolean): TaskCheck {
  // reportInput: an issue's input tells a missing field (undefined) from a value of the wrong type.
  const file = TaskFile.safeParse(raw, { reportInput: true });
  const problems = [
    ...(file.success ? [] : issueProblems(file.error)),
    ...pathProblems(file.success ? file.data : raw, cluster),
  ];
  if (!file.success || problems.length > 0) return { ok: false, problems };
  return { ok: true, task: resolveTask(file.data, (path) => path) };
}

/** What only a service refuses in `raw`'s paths, wherever they are strings: a relative one, a URL `repo` outside cluster mode. */
function pathProblems(raw: unknown, cluster: boolean): Problem[] {
  if (!isObject(raw)) return [];
  const problems: Problem[] = [];
  const { repo, harness, fallbacks } = raw;
  if (typeof repo === 'string' && repo !== '') {
    if (!isRepositoryUrl(repo)) {
      if (!isAbsolute(repo)) problems.push(relative('repo', repo));
    } else if (!cluster) {
      problems.push({
        path: 'repo',
        message: `${JSON.stringify(repo)} is a URL; this service runs executions from repositories on its machine (a URL needs cluster mode)`,
      });
    }
  }
  const links = [harness, ...(Array.isArray(fallbacks) ? fallbacks : [])];
  links.forEach((link, index) => {
    const simulate = isObject(link) ? link.simulate : undefined;
    if (typeof simulate !== 'string' || simulate === '' || isAbsolute(simulate)) return;
    problems.push(relative(`${index === 0 ? 'harness' : `fallbacks[${index - 1}]`}.simulate`, simulate));
  });
  return problems;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function relative(path: string, value: string): Problem {
  return {
    path,
    message: `${JSON.stringify(value)} must be an absolute path (the service has no task-file folder to resolve it in)`,
  };
}

/** A problem as one line: `timeout: not a duration (…)`. */
export function problemLine({ path, message }: Problem): string {
  return path === '' ? message : `${path}: ${message}`;
}
