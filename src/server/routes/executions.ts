/**
 * Execution routes, mounted at `/api/executions`: submit a task, the list (with each execution's
 * attempts, what each waiting one waits for, and what each takes on disk, on request), one
 * execution with its attempts, its context.json, the files it changed, follow-up messages, cancel,
 * resume and switch. Ids reach these handlers already checked by `requireExecutionId`;
 * bodies and queries are parsed with zod here. Writes go through the Registry, reads straight to the
 * store (and, for the changes, to the worktree through src/workspace).
 */
import { open, readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { NotFoundError, TaskFileError, UsageError } from '../../core/errors.js';
import type { HomePaths } from '../../core/home.js';
import { type ExecutionState, FINAL_STATES, HarnessName, STATES } from '../../core/outcome.js';
import { resolveTask, type Task, TaskFile } from '../../core/task.js';
import { describeIssue } from '../../core/task-file.js';
import { type EventData, parseEventRecord } from '../../events/schema.js';
import { ExecutionContext } from '../../execution/context-schema.js';
import type { DiskSizes } from '../../service/disk-sizes.js';
import type { Registry } from '../../service/registry.js';
import type { AttemptRecord, ExecutionRecord, Store } from '../../store/store.js';
import { readChanges } from '../../workspace/changes.js';
import { diskOf } from './disk.js';

const ENDED: readonly ExecutionState[] = STATES.filter((state) => FINAL_STATES.has(state));
const LIVE: readonly ExecutionState[] = STATES.filter((state) => !FINAL_STATES.has(state));

/** What `include` may ask for, comma-separated: `attempts`, `waits`, `disk`. */
const Include = z.enum(['attempts', 'waits', 'disk']);

const ListQuery = z.object({
  state: z.enum(['live', 'ended']).optional(),
  /**
   * `attempts`: the answer also maps each listed execution's id to its attempts; `waits`: each
   * listed `waiting` execution's id to what it waits for; `disk`: each listed execution's id to what
   * its worktree and run directory take on disk (src/server/routes/disk.ts). Several: `attempts,waits`.
   */
  include: z
    .string()
    .transform((value) => value.split(','))
    .pipe(z.array(Include))
    .optional(),
});

/** What a waiting execution waits for: its latest `quota.waiting` record's data, and that record's time. */
export type WaitInfo = EventData<'quota.waiting'> & { readonly since: string };

/** `POST /`: a task file's content as JSON, its paths absolute (the CLI resolves them). */
const SubmitBody = z.strictObject({ task: z.unknown() });

/**
 * 60 000 characters: a follow-up message is text a person wrote or pasted; the body limit (64 KiB)
 * bounds it anyway, this says so in characters with a clear message.
 */
export const MAX_MESSAGE_CHARS = 60_000;
const MessageBody = z.strictObject({ text: z.string().trim().min(1).max(MAX_MESSAGE_CHARS) });

/** `POST /:id/switch`: the harness to carry on with, its model, why, and who asks (default `api`). */
export const SwitchBody = z.strictObject({
  to: HarnessName,
  model: z.string().trim().min(1).max(200).optional(),
  reason: z.string().trim().min(1).max(500).optional(),
  by: z.string().trim().min(1).max(100).default('api'),
});

export interface ExecutionRoutesOptions {
  readonly home: HomePaths;
  readonly store: Store;
  readonly registry: Registry;
  /** The sizes cache `include=disk` reads through. */
  readonly diskSizes: DiskSizes;
}

/**
 * Returns the sub-app serving `POST /`, `GET /`, `GET /:id`, `GET /:id/context`, `GET /:id/changes`,
 * `POST /:id/messages`, `POST /:id/cancel`, `POST /:id/resume`, `POST /:id/switch`.
 */
export function executionRoutes({ home, store, registry, diskSizes }: ExecutionRoutesOptions): Hono {
  const routes = new Hono();

  routes.post('/', async (c) => {
    const body = SubmitBody.safeParse(await jsonBody(c));
    if (!body.success) throw new UsageError(`bad body: ${describeIssue(body.error)}`);
    const execution = await registry.submit(taskOf(body.data.task));
    return c.json({ execution }, 201);
  });

  routes.post('/:id/messages', async (c) => {
    const body = MessageBody.safeParse(await jsonBody(c));
    if (!body.success) throw new UsageError(`bad body: ${describeIssue(body.error)}`);
    const execution = c.req.param('id');
    const { turn, queued } = await registry.send(execution, body.data.text);
    return c.json({ turn: { id: turn, execution, queued } }, 202);
  });

  routes.post('/:id/cancel', async (c) => {
    const execution = await registry.cancel(c.req.param('id'));
    return c.json({ execution }, 202);
  });

  routes.post('/:id/resume', async (c) => {
    const execution = await registry.resume(c.req.param('id'));
    return c.json({ execution }, 202);
  });

  routes.post('/:id/switch', async (c) => {
    const body = SwitchBody.safeParse(await jsonBody(c));
    if (!body.success) throw new UsageError(`bad body: ${describeIssue(body.error)}`);
    const { to, model, reason, by } = body.data;
    const request = { harness: to, by, ...(model !== undefined && { model }), ...(reason !== undefined && { reason }) };
    const execution = await registry.switch(c.req.param('id'), request);
    return c.json({ execution }, 202);
  });

  routes.get('/', async (c) => {
    const query = ListQuery.safeParse(c.req.query());
    if (!query.success) throw new UsageError(`bad query: ${z.prettifyError(query.error).replace(/\n/g, ' ')}`);
    const { state, include } = query.data;
    const executions = await store.listExecutions(
      state === undefined ? {} : { states: state === 'live' ? LIVE : ENDED },
    );
    if (include === undefined) return c.json({ executions });
    return c.json({
      executions,
      ...(include.includes('attempts') && { attempts: await attemptsOf(store, executions) }),
      ...(include.includes('waits') && { waits: await waitsOf(home, executions) }),
      ...(include.includes('disk') && { disk: await diskOf(home, executions, diskSizes) }),
    });
  });

  routes.get('/:id', async (c) => {
    const execution = await getExecution(store, c.req.param('id'));
    const attempts = await store.listAttempts(execution.id);
    return c.json({ execution, attempts });
  });

  routes.get('/:id/context', async (c) => {
    const execution = await getExecution(store, c.req.param('id'));
    const file = home.contextFile(execution.id);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new NotFoundError(`execution ${execution.id} has no context.json yet`);
      }
      throw error;
    }
    return c.json(ExecutionContext.parse(JSON.parse(text)));
  });

  routes.get('/:id/changes', async (c) => {
    const execution = await getExecution(store, c.req.param('id'));
    return c.json(await readChanges({ worktree: execution.worktree, baseSha: execution.baseSha }));
  });

  return routes;
}

/** Returns the execution, or throws NotFoundError. */
async function getExecution(store: Store, id: string): Promise<ExecutionRecord> {
  const execution = await store.getExecution(id);
  if (execution === undefined) throw new NotFoundError(`no execution ${id}`);
  return execution;
}

/**
 * Each execution's attempts, ordered by number, by execution id. One `listAttempts` per execution
 * (the Store port has no query for many executions' attempts): 1 + N store queries for N executions.
 */
async function attemptsOf(
  store: Store,
  executions: readonly ExecutionRecord[],
): Promise<Record<string, AttemptRecord[]>> {
  const lists = await Promise.all(executions.map((execution) => store.listAttempts(execution.id)));
  return Object.fromEntries(executions.map((execution, at) => [execution.id, lists[at] ?? []]));
}

/**
 * Each listed `waiting` execution's id mapped to what it waits for, read from the end of its
 * `events.jsonl` (the engine writes `quota.waiting` just before it sets the state); an execution
 * whose log has no such record is left out.
 */
async function waitsOf(home: HomePaths, executions: readonly ExecutionRecord[]): Promise<Record<string, WaitInfo>> {
  const waiting = executions.filter((execution) => execution.state === 'waiting');
  const waits = await Promise.all(waiting.map((execution) => latestWait(home.eventsFile(execution.id))));
  return Object.fromEntries(
    waiting.flatMap((execution, at) => (waits[at] === undefined ? [] : [[execution.id, waits[at]]])),
  );
}

/**
 * 64 KiB: while an execution waits, its `quota.waiting` record is among the last few it wrote, so the
 * log's tail holds it; a longer read happens only when the tail does not.
 */
const WAIT_TAIL_BYTES = 64 * 1024;

/** The latest `quota.waiting` record of the log at `path`, or undefined (none, or no file). */
async function latestWait(path: string): Promise<WaitInfo | undefined> {
  let file: Awaited<ReturnType<typeof open>>;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const { size } = await file.stat();
    for (const length of new Set([Math.min(size, WAIT_TAIL_BYTES), size])) {
      const { buffer } = await file.read(Buffer.alloc(length), 0, length, size - length);
      const lines = buffer.toString('utf8').split('\n');
      for (let at = lines.length - 1; at >= 0; at -= 1) {
        const line = lines[at] ?? '';
        if (!line.includes('"quota.waiting"')) continue;
        const record = parseEventRecord(line);
        if (record?.type === 'quota.waiting') return { ...record.data, since: record.ts };
      }
    }
    return undefined;
  } finally {
    await file.close();
  }
}

/** The request's JSON body; a body that is not JSON is a UsageError. */
export async function jsonBody(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new UsageError('the body is not JSON (send Content-Type: application/json and a JSON object)');
  }
}

/** Validates a submitted task file; relative paths are refused, there is no folder to resolve them in. */
function taskOf(raw: unknown): Task {
  const file = TaskFile.safeParse(raw);
  if (!file.success) throw new TaskFileError(`invalid task: ${describeIssue(file.error)}`);
  return resolveTask(file.data, (path) => {
    if (!isAbsolute(path)) {
      throw new TaskFileError(
        `invalid task: ${JSON.stringify(path)} must be an absolute path (the service has no task-file folder to resolve it in)`,
      );
    }
    return path;
  });
}
