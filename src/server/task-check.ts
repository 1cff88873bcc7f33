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

/** Checks `raw`; `cluster`: the service runs in cluster mode, where `repo` may be a URL. */
export function checkTask(raw: unknown, cluster: boolean): TaskCheck {
  // reportInput: an issue's input tells a missing field (undefined) from a value of the wrong type.
  const file = TaskFile.safeParse(raw, { reportInput: true });
  if (!file.success) return { ok: false, problems: issueProblems(file.error) };
  const problems: Problem[] = [];
  const { repo, harness, fallbacks } = file.data;
  if (isRepositoryUrl(repo)) {
    if (!cluster) {
      problems.push({
        path: 'repo',
        message: `${JSON.stringify(repo)} is a URL; this service runs executions from repositories on its machine (a URL needs cluster mode)`,
      });
    }
  } else if (!isAbsolute(repo)) problems.push(relative('repo', repo));
  [harness, ...fallbacks].forEach((link, index) => {
    if (typeof link === 'string' || link.simulate === undefined || isAbsolute(link.simulate)) return;
    problems.push(relative(`${index === 0 ? 'harness' : `fallbacks[${index - 1}]`}.simulate`, link.simulate));
  });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, task: resolveTask(file.data, (path) => path) };
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
