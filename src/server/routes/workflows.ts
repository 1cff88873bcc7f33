/**
 * Workflow routes, mounted at `/api/workflows` (docs/api.md): the runs of the resume store with what
 * each spent, one run with its items and spend per step, what its review steps wait on — each item as `harmflow workflow review`
 * shows it — the decisions on them, and a resume. Reads and decisions go to the ResumeStore (the
 * state directory's, or a cluster's); a review needs the run's workflow file, loaded from the path
 * the run recorded (a file changed on disk is loaded anew). Runs are named by their ids, checked
 * here; bodies are parsed with zod.
 *
 * A decision names the items with the fingerprint the reviewer was shown: an item whose inputs
 * changed since (a resume recomputed what it reads) is refused with 409, so an approval is always of
 * what a person saw. Decisions on a run that a live process drives are refused (409) too: review
 * between its stops.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { z } from 'zod';
import { ConflictError, describeError, NotFoundError, UsageError } from '../../core/errors.js';
import { isExecutionId } from '../../core/execution-id-shape.js';
import { describeIssue } from '../../core/task-file.js';
import type { WorkflowResumer } from '../../service/workflow-resumer.js';
import type { ResumeStore, RunItem, RunRecord } from '../../store/resume-store.js';
import type { WorkflowDefinition } from '../../workflows/define.js';
import { loadWorkflowModule } from '../../workflows/module.js';
import { type Approval, approve, BY_RULE, type PendingReview, pendingReviews, reject } from '../../workflows/review.js';
import { shownReview } from '../../workflows/review-shown.js';
import { runStatus } from '../../workflows/run-owner.js';
import { summarizeRuns, summarizeSpend } from '../../workflows/spend.js';
import { jsonBody } from './executions.js';

export interface WorkflowRoutesOptions {
  readonly store: ResumeStore;
  /** Starts resumes (a single service); absent in cluster mode, where a coordinator resumes (409). */
  readonly resumer?: WorkflowResumer;
}

const Key = z.string().min(1).max(200);
const Fingerprint = z.string().regex(/^[0-9a-f]{64}$/, 'a fingerprint is 64 hex characters');
const Chosen = z.array(z.strictObject({ key: Key, fingerprint: Fingerprint })).max(100_000);

/**
 * `POST /runs/:id/reviews`: who decides, the items approved and rejected (each with the fingerprint
 * shown), and the note a rejection needs. Rejections are recorded first.
 */
const DecisionBody = z
  .strictObject({
    by: z.string().trim().min(1).max(100),
    approve: Chosen.default([]),
    reject: Chosen.default([]),
    note: z.string().trim().min(1).max(2000).optional(),
  })
  .refine((body) => body.approve.length + body.reject.length > 0, 'decide at least one item')
  .refine((body) => body.reject.length === 0 || body.note !== undefined, 'a rejection needs a note saying why');

const ListQuery = z.object({ workflow: z.string().min(1).max(200).optional() });

export function workflowRoutes(options: WorkflowRoutesOptions): Hono {
  const { store } = options;
  const app = new Hono();

  app.get('/runs', async (c) => {
    const query = ListQuery.safeParse(c.req.query());
    if (!query.success) throw new UsageError(`bad query: ${describeIssue(query.error)}`);
    const runs = await store.listRuns(query.data.workflow === undefined ? {} : { workflow: query.data.workflow });
    const ids = runs.map((run) => run.id);
    const spends = summarizeRuns(ids, await store.listSpend(ids));
    return c.json({ runs: runs.map((run) => ({ ...shown(run), spend: spends.get(run.id)?.total })) });
  });

  app.get('/runs/:id', async (c) => {
    const run = await runOf(store, c.req.param('id'));
    const order = await definitionOf(run).then(
      (definition) => definition.steps.map((step) => step.name),
      () => [], // a file gone or broken: the steps the run has items of, in the order it reached them
    );
    const spend = summarizeSpend(await store.listSpend([run.id]));
    const spentBy = new Map(spend.steps.map(({ step, ...summary }) => [step, summary]));
    const steps = stepCounts(await store.listRunItems(run.id), order).map((counts) => {
      const spent = spentBy.get(counts.step);
      return spent === undefined ? counts : { ...counts, spend: spent };
    });
    return c.json({ run: shown(run), steps, spend: { drives: spend.drives, total: spend.total } });
  });

  app.get('/runs/:id/reviews', async (c) => {
    const run = await runOf(store, c.req.param('id'));
    const definition = await definitionOf(run);
    const waiting = await pendingReviews(definition, run.id, store);
    return c.json({
      run: shown(run),
      waiting: waiting.map((item) => ({ ...shownReview(item), fingerprint: item.fingerprint })),
      ...(await decisions(store, definition, run.id)),
    });
  });

  app.post('/runs/:id/reviews', async (c) => {
    const run = await runOf(store, c.req.param('id'));
    const body = DecisionBody.safeParse(await jsonBody(c));
    if (!body.success) throw new UsageError(`invalid decision: ${describeIssue(body.error)}`);
    const { by, note } = body.data;
    if (runStatus(run).state === 'running') {
      throw new ConflictError(`run ${run.id} is being driven: decide once it stops (it waits for review then)`);
    }
    const definition = await definitionOf(run);
    const waiting = new Map((await pendingReviews(definition, run.id, store)).map((item) => [item.key, item]));
    checkShown([...body.data.reject, ...body.data.approve], waiting);
    const rejected = body.data.reject.map((item) => item.key);
    const approved = body.data.approve.map((item) => item.key);
    if (rejected.length > 0) await reject(definition, run.id, store, { keys: rejected, by, reason: note ?? '' });
    if (approved.length > 0) await approve(definition, run.id, store, { keys: approved, by });
    return c.json({ run: run.id, by, approved, rejected });
  });

  app.post('/runs/:id/resume', async (c) => {
    const run = await runOf(store, c.req.param('id'));
    if (options.resumer === undefined) {
      throw new ConflictError(
        `this API node does not resume runs: resume it where it is coordinated (harmflow workflow resume ${run.id} --store … --queue …)`,
      );
    }
    const state = runStatus(run).state;
    if (state === 'running') throw new ConflictError(`run ${run.id} is being driven already`);
    if (state === 'succeeded') throw new ConflictError(`run ${run.id} has succeeded: nothing to resume`);
    return c.json(await options.resumer.resume(run.id), 202);
  });

  return app;
}

/** A run as readers are shown it: the stored record with its state told by its owner's liveness. */
function shown(run: RunRecord) {
  return { ...run, ...runStatus(run) };
}

async function runOf(store: ResumeStore, id: string): Promise<RunRecord> {
  if (!isExecutionId(id)) throw new NotFoundError(`no workflow run ${JSON.stringify(id.slice(0, 64))}`);
  const run = await store.getRun(id);
  if (run === undefined) throw new NotFoundError(`no workflow run ${id}`);
  return run;
}

/**
 * The run's workflow definition, from the file it recorded; imported under the file's digest, so a
 * file fixed on disk is imported anew.
 */
async function definitionOf(run: RunRecord): Promise<WorkflowDefinition> {
  if (run.module === undefined) {
    throw new ConflictError(
      `run ${run.id} does not say which workflow file it came from: review it with the CLI's --file`,
    );
  }
  try {
    const version = createHash('sha256').update(readFileSync(run.module)).digest('hex');
    return (await loadWorkflowModule(run.module, version)).workflow;
  } catch (error) {
    throw new ConflictError(`run ${run.id}'s workflow file ${run.module} cannot be loaded: ${describeError(error)}`);
  }
}

/** Refuses (409) a decision on an item not waiting, or waiting with inputs other than those shown. */
function checkShown(
  chosen: readonly { readonly key: string; readonly fingerprint: string }[],
  waiting: ReadonlyMap<string, PendingReview>,
): void {
  const seen = new Set<string>();
  for (const { key, fingerprint } of chosen) {
    if (seen.has(key)) throw new UsageError(`item ${key} is decided twice`);
    seen.add(key);
    const item = waiting.get(key);
    if (item === undefined) throw new ConflictError(`item ${key} is not waiting for review (decided already?)`);
    if (item.fingerprint !== fingerprint) {
      throw new ConflictError(`item ${key} changed since it was shown: reload and review it again`);
    }
  }
}

/**
 * Per step — the workflow's steps in `order` (one not reached yet with nothing done), then any other
 * the run has items of, in the order it reached them — items done (of which reused) and failed.
 */
function stepCounts(items: readonly RunItem[], order: readonly string[]) {
  const counts = new Map<string, { step: string; done: number; reused: number; failed: number }>();
  const reached = new Map<string, string>();
  for (const item of items) {
    const ofStep = counts.get(item.step) ?? { step: item.step, done: 0, reused: 0, failed: 0 };
    counts.set(item.step, ofStep);
    const first = reached.get(item.step);
    if (first === undefined || item.updatedAt < first) reached.set(item.step, item.updatedAt);
    if (item.status === 'failed') ofStep.failed += 1;
    else {
      ofStep.done += 1;
      if (item.cached) ofStep.reused += 1;
    }
  }
  const others = [...reached]
    .filter(([step]) => !order.includes(step))
    .sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([step]) => step);
  return [...order, ...others].map((step) => counts.get(step) ?? { step, done: 0, reused: 0, failed: 0 });
}

/**
 * What people decided on the run's review steps in this run: approvals by a person (not the rule),
 * with who and when, and rejections with who, the note and when — each waits until its inputs change.
 */
async function decisions(store: ResumeStore, definition: WorkflowDefinition, runId: string) {
  const approved: { step: string; key: string; by: string; at: string }[] = [];
  const rejected: { step: string; key: string; error: string; at: string }[] = [];
  for (const step of definition.steps) {
    if (step.kind !== 'review') continue;
    const items = await store.listRunItems(runId, step.name);
    const outputs = await store.getOutputs(
      items.flatMap((item) => (item.status === 'done' && !item.cached ? [item.fingerprint] : [])),
    );
    for (const item of items) {
      if (item.status === 'failed') {
        rejected.push({ step: step.name, key: item.item, error: item.error, at: item.updatedAt });
        continue;
      }
      const approval = outputs.get(item.fingerprint)?.output as Approval | undefined;
      if (approval !== undefined && approval.by !== BY_RULE) {
        approved.push({ step: step.name, key: item.item, by: approval.by, at: approval.at });
      }
    }
  }
  return { approved, rejected };
}
