/**
 * The shapes of the service's answers that the CLI client reads (docs/api.md), as zod schemas: the
 * client parses every body with them before a verb sees it. Objects accept extra keys, so a newer
 * service that adds a field still talks to this CLI; a missing or mistyped field is an error.
 */
import { z } from 'zod';
import { ExecutionState, Outcome } from '../core/outcome.js';
import type { ExecutionDisk } from '../execution/execution-disk.js';
import type { SessionRouting } from '../execution/session-routing.js';
import type { AttemptRecord, ExecutionRecord } from '../store/store.js';
import type { EventRecord } from '../web/records.js';
import type { WorkspaceChanges } from '../workspace/changes.js';

/** An ExecutionRecord as JSON: a field never set is absent. */
export const Execution = z.object({
  id: z.string(),
  taskId: z.string(),
  taskName: z.string(),
  repo: z.string(),
  baseRef: z.string(),
  baseSha: z.string(),
  branch: z.string(),
  worktree: z.string(),
  runDir: z.string(),
  state: ExecutionState,
  createdAt: z.string(),
  startedAt: z.string().exactOptional(),
  endedAt: z.string().exactOptional(),
  deadline: z.string(),
  attemptCount: z.int(),
  currentHarness: z.string().exactOptional(),
  message: z.string().exactOptional(),
  pullRequestUrl: z.string().exactOptional(),
  turnCount: z.int().nonnegative().exactOptional(),
}) satisfies z.ZodType<ExecutionRecord>;

/** An AttemptRecord as JSON. */
export const Attempt = z.object({
  execution: z.string(),
  number: z.int(),
  harness: z.string(),
  model: z.string().exactOptional(),
  simulated: z.boolean(),
  sessionId: z.string().exactOptional(),
  startedAt: z.string(),
  endedAt: z.string().exactOptional(),
  outcome: Outcome.exactOptional(),
  exitCode: z.int().nullable().exactOptional(),
  signal: z.string().nullable().exactOptional(),
  message: z.string().exactOptional(),
  resetsAt: z.string().exactOptional(),
  inputTokens: z.int().exactOptional(),
  outputTokens: z.int().exactOptional(),
  costUsd: z.number().exactOptional(),
}) satisfies z.ZodType<AttemptRecord>;

/** `POST /api/executions` (201) and `POST /api/executions/:id/cancel` (202). */
export const ExecutionBody = z.object({ execution: Execution });

/** An execution's session routing (src/execution/session-routing.ts; docs/service.md, "Session routing"). */
export const Routing = z.object({
  execution: z.string(),
  sessions: z.array(
    z.object({
      harness: z.string(),
      sessionId: z.string().exactOptional(),
      attempts: z.array(z.int().min(1)),
      turns: z.array(z.string()).exactOptional(),
      resumedFrom: z.string().exactOptional(),
    }),
  ),
  running: z.object({ attempt: z.int().min(1), harness: z.string() }).exactOptional(),
  nextFollowUp: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('resume'), harness: z.string(), sessionId: z.string(), attempt: z.int().min(1) }),
    z.object({ kind: z.enum(['fresh', 'waits', 'refused']), reason: z.string() }),
  ]),
}) satisfies z.ZodType<SessionRouting>;

/** `GET /api/executions/:id`; `routing` is absent from a service older than it. */
export const ExecutionWithAttempts = z.object({
  execution: Execution,
  attempts: z.array(Attempt),
  routing: Routing.exactOptional(),
});
export type ExecutionWithAttempts = z.infer<typeof ExecutionWithAttempts>;

/**
 * The process an execution's owner file names (`include=owners`): pid, host (absent in files
 * written before it was kept), and whether it still runs (`null`: on another host, not checked). In
 * cluster mode, the worker holding its lease: `worker`, with pid and host when named by default.
 */
export const OwnerProcess = z.object({
  pid: z.int().positive().exactOptional(),
  host: z.string().exactOptional(),
  worker: z.string().exactOptional(),
  alive: z.boolean().nullable(),
});

/**
 * `GET /api/executions?state=…&include=attempts,owners`: the executions, newest first, each one's id
 * mapped to its attempts, ordered by number (`[]` before its first), and, for those that have an
 * owner file, to the process it names (`owners`: only when asked for).
 */
export const ExecutionList = z.object({
  executions: z.array(Execution),
  attempts: z.record(z.string(), z.array(Attempt)),
  owners: z.record(z.string(), OwnerProcess).exactOptional(),
});
export type ExecutionList = z.infer<typeof ExecutionList>;

/** `GET /api/executions` read for its ids alone (cli/service-id.ts resolves a prefix against them). */
export const ExecutionIds = z.object({ executions: z.array(z.object({ id: z.string() })) });

/** A queued follow-up message. `queued` counts the messages waiting, this one included. */
export const Turn = z.object({ id: z.string().min(1), execution: z.string(), queued: z.int().min(1) });
export type Turn = z.infer<typeof Turn>;

/** What a single service's admission control says: the concurrency cap and why new executions are held, if they are. */
export const ServiceAdmissionStatus = z.object({
  cap: z.int().min(0),
  /** What set the cap (e.g. the core count or a setting), as the service words it. */
  capFrom: z.string(),
  cores: z.int().min(0),
  load1m: z.number(),
  running: z.int().min(0),
  queued: z.int().min(0),
  held: z.boolean(),
  reasons: z.array(z.string()),
  /** Absent when the service could not measure it (then admission is held, and a reason says why). */
  diskFreeBytes: z.number().min(0).exactOptional(),
  diskFloorBytes: z.number().min(0),
  /** Bytes under the service's `worktrees/` and `runs/`; absent from a service that did not measure them. */
  worktreesBytes: z.number().min(0).exactOptional(),
  runsBytes: z.number().min(0).exactOptional(),
  /** Bytes of the service's shared caches (`caches/`), in all and tool by tool; absent likewise. */
  cachesBytes: z.number().min(0).exactOptional(),
  caches: z.record(z.string(), z.number().min(0)).exactOptional(),
});

/**
 * What an API node of a cluster says (cluster/cluster-admission.ts): the cluster's hold, and the
 * dispatch queue's jobs by state (the rest of admission is each worker's).
 */
export const ClusterAdmissionStatus = z.object({
  mode: z.literal('cluster'),
  held: z.boolean(),
  reasons: z.array(z.string()),
  queue: z.object({ waiting: z.int().min(0), active: z.int().min(0), delayed: z.int().min(0) }),
});

/**
 * Either, told apart by `mode` (only an API node's has one), so that a body that fits neither is
 * described by the issues of the one it was meant to be.
 */
export const AdmissionStatus = z
  .unknown()
  .transform((value, context): z.infer<typeof ClusterAdmissionStatus> | z.infer<typeof ServiceAdmissionStatus> => {
    const meant =
      typeof value === 'object' && value !== null && 'mode' in value ? ClusterAdmissionStatus : ServiceAdmissionStatus;
    const parsed = meant.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      context.addIssue({ code: 'custom', path: issue.path, message: issue.message, input: value });
    }
    return z.NEVER;
  });
export type AdmissionStatus = z.infer<typeof AdmissionStatus>;

/** `GET /api/executions/:id/changes`: the files changed against the base, and the diff (cut at 1 MiB when `truncated`). */
export const Changes = z.object({
  base: z.string(),
  files: z.array(
    z.object({
      path: z.string(),
      status: z.enum(['added', 'modified', 'deleted', 'renamed']),
      /** A renamed file's path at the base. */
      from: z.string().exactOptional(),
      additions: z.int().min(0),
      deletions: z.int().min(0),
      binary: z.literal(true).exactOptional(),
    }),
  ),
  diff: z.string(),
  truncated: z.boolean(),
}) satisfies z.ZodType<WorkspaceChanges>;
export type Changes = z.infer<typeof Changes>;

/** `GET /api/executions/:id/disk`: bytes of the worktree (0 once gone) and the run directory; when gc removed the worktree. */
export const Disk = z.object({
  worktreeBytes: z.number().min(0),
  runBytes: z.number().min(0),
  worktreeRemovedAt: z.string().exactOptional(),
}) satisfies z.ZodType<ExecutionDisk>;

/**
 * An event stream's record (docs/api.md "Events (SSE)"): the envelope only, with `data` an object
 * of unknown values. The payload of each type is not checked, so a newer service's new type or
 * field still reaches the view, which describes what it does not know as JSON.
 */
export const EventEnvelope = z.object({
  ts: z.string(),
  execution: z.string(),
  attempt: z.int().min(1).exactOptional(),
  harness: z.string().exactOptional(),
  source: z.string(),
  type: z.string(),
  data: z.record(z.string(), z.unknown()),
}) satisfies z.ZodType<EventRecord>;

/**
 * `POST /api/stop` (202): the executions the stop suspends, counted as the service answered (they
 * carry on at its next start). Absent from a service older than it.
 */
export const Stopping = z.object({
  stopping: z.literal(true),
  suspending: z
    .object({ running: z.int().nonnegative(), waiting: z.int().nonnegative(), queued: z.int().nonnegative() })
    .exactOptional(),
});
export type Stopping = z.infer<typeof Stopping>;

/**
 * A workflow run as `/api/workflows` shows it (docs/api.md): the stored run with its state as it is
 * now — `interrupted` for a `running` run whose process is gone (src/workflows/run-owner.ts) — and
 * its owner, while it has one, with whether that process still runs (`null`: on another machine,
 * not checked). States this CLI does not know are kept as they are, for a newer service's sake.
 */
export const WorkflowRun = z.object({
  id: z.string(),
  workflow: z.string(),
  params: z.record(z.string(), z.unknown()),
  state: z.string(),
  message: z.string().exactOptional(),
  module: z.string().exactOptional(),
  owner: z
    .object({
      pid: z.int(),
      host: z.string(),
      startTime: z.string(),
      since: z.string(),
      alive: z.boolean().nullable(),
    })
    .exactOptional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WorkflowRun = z.infer<typeof WorkflowRun>;

/** `GET /api/workflows/runs`: the runs, newest first. */
export const WorkflowRunList = z.object({ runs: z.array(WorkflowRun) });

/** `GET /api/workflows/runs/:id`: the run and, per step, its items done (of which reused) and failed. */
export const WorkflowRunWithSteps = z.object({
  run: WorkflowRun,
  steps: z.array(z.object({ step: z.string(), done: z.int().min(0), reused: z.int().min(0), failed: z.int().min(0) })),
});
export type WorkflowRunWithSteps = z.infer<typeof WorkflowRunWithSteps>;
