/**
 * Execution routes, mounted at `/api/executions`: submit a task, the list (with each execution's
 * attempts, what each waiting one waits for, and what each takes on disk, on request), one
 * execution with its attempts and its session routing, its context.json, the files it changed,
 * follow-up messages, cancel, resume and switch. Ids reach these handlers already checked by `requireExecutionId`;
 * bodies and queries are parsed with zod here, and the submit's and the messages' `Idempotency-Key`
 * by ../idempotency.ts. Writes go through the ExecutionService (the Registry,
 * or ClusterExecutions in cluster mode), reads straight to the store (and, for the changes, to the
 * worktree through src/workspace). In cluster mode (`cluster` given) what one machine reads from its
 * state directory comes from PostgreSQL instead, and what lives only in a worker's worktree (the
 * changes, the disk figures) is not served: see ClusterReads.
 */
import { open, readFile } from 'node:fs/promises';
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { ConflictError, NotFoundError, TaskFileError, UsageError } from '../../core/errors.js';
import type { HomePaths } from '../../core/home.js';
import { type ExecutionState, FINAL_STATES, HarnessName, LIVE_STATES, STATES } from '../../core/outcome.js';
import type { Task } from '../../core/task.js';
import { describeIssue } from '../../core/task-file.js';
import { type EventData, parseEventRecord } from '../../events/schema.js';
import { StoredContext } from '../../execution/context-schema.js';
import type { OwnerProcess } from '../../execution/owner-file.js';
import { ownersOf } from '../../execution/owners.js';
import { sessionRouting } from '../../execution/session-routing.js';
import type { DiskSizes } from '../../service/disk-sizes.js';
import type { ExecutionService } from '../../service/execution-service.js';
import type { AttemptRecord, ExecutionRecord, Store } from '../../store/store.js';
import { readChanges } from '../../workspace/changes.js';
import { checkpointRef } from '../../workspace/checkpoint.js';
import { idempotencyOf } from '../idempotency.js';
import { checkTask, problemLine } from '../task-check.js';
import { diskOf } from './disk.js';

const ENDED: readonly ExecutionState[] = STATES.filter((state) => FINAL_STATES.has(state));

/** What `include` may ask for, comma-separated: `attempts`, `waits`, `disk`, `owners`. */
const Include = z.enum(['attempts', 'waits', 'disk', 'owners']);

const ListQuery = z.object({
  state: z.enum(['live', 'ended']).optional(),
  /**
   * `attempts`: the answer also maps each listed execution's id to its attempts; `waits`: each
   * listed `waiting` execution's id to what it waits for; `disk`: each listed execution's id to what
   * its worktree and run directory take on disk (src/server/routes/disk.ts); `owners`: each listed
   * execution that has an owner file to the process it names, checked now (src/execution/owners.ts;
   * in cluster mode, each leased one to the worker holding its lease). Several: `attempts,waits`.
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

/**
 * Cluster mode's reads (issue 9): an API node has no state directory of its executions, whose
 * worktrees, `events.jsonl` and `context.json` are on the workers that drive them. Given these:
 * `GET /:id/context` and `include=waits` read through them; `GET /:id/changes` answers 409 naming
 * the branch and the checkpoint ref that hold the changes; `include=disk` maps no execution (none is
 * measurable here).
 */
export interface ClusterReads {
  /** The execution's context.json as stored in PostgreSQL, unparsed; undefined when there is none yet. */
  readContext(execution: string): Promise<unknown | undefined>;
  /** What a waiting execution waits for: its latest mirrored `quota.waiting` record; undefined when none. */
  latestWait(execution: string): Promise<WaitInfo | undefined>;
  /** Who drives each of `executions`: the worker holding its lease (cluster/lease-owners.ts); unleased ones left out. */
  owners(executions: readonly string[]): Promise<Record<string, OwnerProcess>>;
}

export interface ExecutionRoutesOptions {
  readonly home: HomePaths;
  readonly store: Store;
  /** Where submits, messages, cancels, resumes and switches go. */
  readonly registry: ExecutionService;
  /** The sizes cache `include=disk` reads through. */
  readonly diskSizes: DiskSizes;
  /** Cluster mode: read through these instead of the state directory (see ClusterReads). */
  readonly cluster?: ClusterReads;
}

/**
 * Returns the sub-app serving `POST /`, `GET /`, `GET /:id`, `GET /:id/context`, `GET /:id/changes`,
 * `POST /:id/messages`, `POST /:id/cancel`, `POST /:id/resume`, `POST /:id/switch`.
 */
export function executionRoutes({ home, store, registry, diskSizes, cluster }: ExecutionRoutesOptions): Hono {
  const routes = new Hono();

  routes.post('/', async (c) => {
    const raw = await jsonBody(c);
    const idempotency = idempotencyOf(c, raw);
    const body = SubmitBody.safeParse(raw);
    if (!body.success) throw new UsageError(`bad body: ${describeIssue(body.error)}`);
    const task = taskOf(body.data.task, cluster !== undefined);
    const execution = await registry.submit(task, idempotency === undefined ? {} : { idempotency });
    return c.json({ execution }, 201);
  });

  routes.post('/:id/messages', async (c) => {
    const raw = await jsonBody(c);
    const idempotency = idempotencyOf(c, raw);
    const body = MessageBody.safeParse(raw);
    if (!body.success) throw new UsageError(`bad body: ${describeIssue(body.error)}`);
    const execution = c.req.param('id');
    const { turn, queued } = await registry.send(
      execution,
      body.data.text,
      idempotency === undefined ? {} : { idempotency },
    );
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
      state === undefined ? {} : { states: state === 'live' ? LIVE_STATES : ENDED },
    );
    if (include === undefined) return c.json({ executions });
    return c.json({
      executions,
      ...(include.includes('attempts') && { attempts: await attemptsOf(store, executions) }),
      ...(include.includes('waits') && {
        waits: await waitsOf(executions, cluster?.latestWait ?? ((id) => latestWait(home.eventsFile(id)))),
      }),
      ...(include.includes('disk') && { disk: cluster ? {} : await diskOf(home, executions, diskSizes) }),
      ...(include.includes('owners') && {
        owners: cluster
          ? await cluster.owners(executions.map((execution) => execution.id))
          : ownersOf(
              home,
              executions.map((execution) => execution.id),
            ),
      }),
    });
  });

  routes.get('/:id', async (c) => {
    const execution = await getExecution(store, c.req.param('id'));
    const [attempts, stored] = await Promise.all([
      store.listAttempts(execution.id),
      cluster === undefined ? readContextFile(home.contextFile(execution.id)) : cluster.readContext(execution.id),
    ]);
    // A context.json that cannot be read leaves the ended attempts to their store rows.
    const context = StoredContext.safeParse(stored).data?.attempts ?? [];
    return c.json({ execution, attempts, routing: sessionRouting({ execution, attempts, context }) });
  });

  routes.get('/:id/context', async (c) => {
    const execution = await getExecution(store, c.req.param('id'));
    if (cluster !== undefined) {
      const stored = await cluster.readContext(execution.id);
      if (stored === undefined) throw new NotFoundError(`execution ${execution.id} has no context.json yet`);
      return c.json(StoredContext.parse(stored));
    }
    const stored = await readContextFile(home.contextFile(execution.id));
    if (stored === undefined) throw new NotFoundError(`execution ${execution.id} has no context.json yet`);
    return c.json(StoredContext.parse(stored));
  });

  routes.get('/:id/changes', async (c) => {
    const execution = await getExecution(store, c.req.param('id'));
    if (cluster !== undefined) {
      throw new ConflictError(
        `execution ${execution.id}'s worktree is on the worker that drives it: its changes are on branch ${execution.branch}, checkpointed to ${checkpointRef(execution.id)} of its repository at each attempt's end`,
      );
    }
    return c.json(await readChanges({ worktree: execution.worktree, baseSha: execution.baseSha }));
  });

  return routes;
}

/** The context.json at `file`, parsed as JSON but not checked; undefined when there is none yet. */
async function readContextFile(file: string): Promise<unknown | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text);
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
 * Each listed `waiting` execution's id mapped to what it waits for, its latest `quota.waiting`
 * record as `latest` reads it (the engine writes it just before it sets the state); an execution
 * without one is left out.
 */
async function waitsOf(
  executions: readonly ExecutionRecord[],
  latest: (execution: string) => Promise<WaitInfo | undefined>,
): Promise<Record<string, WaitInfo>> {
  const waiting = executions.filter((execution) => execution.state === 'waiting');
  const waits = await Promise.all(waiting.map((execution) => latest(execution.id)));
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

/**
 * Validates a submitted task file (../task-check.ts): a TaskFileError naming every problem it has,
 * after `invalid task: `, one `place: problem` each, separated by `; `.
 */
function taskOf(raw: unknown, cluster: boolean): Task {
  const checked = checkTask(raw, cluster);
  if (!checked.ok) throw new TaskFileError(`invalid task: ${checked.problems.map(problemLine).join('; ')}`);
  return checked.task;
}
