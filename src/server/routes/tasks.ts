/**
 * Task routes, mounted at `/api/tasks`: `POST /check`, the Workbench's task form's validator and
 * YAML translator. It creates nothing. The body is `{"task": {…}}` (the form's task, as
 * `POST /api/executions` takes it) or `{"yaml": "…"}` (the task file's text, as a person edits it);
 * the answer, 200 whatever the task's problems, is
 * `{"task": {…}, "yaml": "…", "problems": [{"path": "timeout", "message": "…"}]}`: the task as data
 * and as YAML (`task` absent when the YAML is not a mapping or cannot be read), and every problem the
 * submit would refuse it for, in the words and places `harmflow run` uses (../task-check.ts). YAML
 * that cannot be read gives its problems alone, each with `line`, and no task.
 */
import { Hono } from 'hono';
import { stringify } from 'yaml';
import { z } from 'zod';
import { UsageError } from '../../core/errors.js';
import { describeIssue, readTaskYaml } from '../../core/task-file.js';
import { checkTask } from '../task-check.js';
import { jsonBody } from './executions.js';

/**
 * 64 000 characters: a task file a person writes in a form; the body limit (64 KiB) bounds it
 * anyway, this says so with a clear message.
 */
const MAX_YAML_CHARS = 64_000;

const CheckBody = z.union([
  z.strictObject({ task: z.record(z.string(), z.unknown()) }),
  z.strictObject({ yaml: z.string().max(MAX_YAML_CHARS) }),
]);

/** Returns the sub-app serving `POST /check`; `cluster`: the service runs in cluster mode (a URL `repo` passes). */
export function taskRoutes({ cluster }: { readonly cluster: boolean }): Hono {
  const routes = new Hono();
  routes.post('/check', async (c) => {
    const body = CheckBody.safeParse(await jsonBody(c));
    if (!body.success)
      throw new UsageError(`bad body: give {"task": {…}} or {"yaml": "…"}: ${describeIssue(body.error)}`);
    let task: unknown;
    if ('yaml' in body.data) {
      const read = readTaskYaml(body.data.yaml);
      if (!read.ok) {
        const problems = read.problems.map(({ line, message }) => ({
          path: '',
          ...(line !== undefined && { line }),
          message: `not valid YAML: ${message}`,
        }));
        return c.json({ problems });
      }
      task = read.value;
    } else task = body.data.task;
    const checked = checkTask(task, cluster);
    const mapping = typeof task === 'object' && task !== null && !Array.isArray(task);
    return c.json({
      ...(mapping && { task, yaml: stringify(task, { lineWidth: 0 }) }),
      problems: checked.ok ? [] : checked.problems,
    });
  });
  return routes;
}
