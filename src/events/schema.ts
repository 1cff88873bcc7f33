/**
 * The event record: one line of an execution's `events.jsonl`. One discriminated union, built from
 * a type → payload map, so a reader (CLI, UI, tests) gets the payload's type from `type`.
 *
 * Contract (ARCHITECTURE.md): `{ts, execution, attempt?, harness?, source, type, data}`, plus
 * `truncated` on a record cut to its bound. A record's sequence is its position in the file. Every
 * record that concerns a harness names it.
 * Payload fields are optional unless every producer always knows them.
 */
import { z } from 'zod';
import { ExecutionState, HarnessName, Outcome } from '../core/outcome.js';

const workItemStatus = z.enum(['pending', 'in_progress', 'completed']);
export type WorkItemStatus = z.infer<typeof workItemStatus>;

const commit = z.object({ sha: z.string(), subject: z.string() });
const remoteRef = z.object({ remote: z.string(), branch: z.string(), sha: z.string() });

/**
 * What one operation was: its kind and the facts known of it, as the tool call's result showed them.
 * `ok` is what the harness's own result said (the command's exit status, where the harness reports
 * one: docs/harnesses.md says where each harness's comes from); `exitCode` is there when it was
 * reported; `error` is the first line the command printed that says why it failed. Whether a commit
 * or a push really happened is a different question, answered from the workspace after the attempt
 * (context.json).
 */
const exitCode = z.int().optional();
const error = z.string().optional();
export const OperationData = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('file_change'), files: z.array(z.string()), toolId: z.string().optional() }),
  z.object({
    kind: z.literal('commit'),
    command: z.string(),
    ok: z.boolean(),
    exitCode,
    error,
    sha: z.string().optional(),
    subject: z.string().optional(),
    toolId: z.string().optional(),
  }),
  z.object({
    kind: z.literal('push'),
    command: z.string(),
    ok: z.boolean(),
    exitCode,
    error,
    remote: z.string().optional(),
    branch: z.string().optional(),
    /** The commit the push said it put on the remote branch (`old..new` in git's output), abbreviated. */
    sha: z.string().optional(),
    toolId: z.string().optional(),
  }),
  z.object({
    kind: z.literal('pull_request'),
    command: z.string(),
    ok: z.boolean(),
    exitCode,
    error,
    url: z.string().optional(),
    number: z.int().optional(),
    toolId: z.string().optional(),
  }),
  z.object({
    kind: z.literal('test_run'),
    command: z.string(),
    passed: z.boolean(),
    exitCode,
    counts: z
      .object({ passed: z.int().optional(), failed: z.int().optional(), skipped: z.int().optional() })
      .optional(),
    toolId: z.string().optional(),
  }),
]);
export type OperationData = z.infer<typeof OperationData>;

/** The payload of each event type. */
export const EventPayloads = {
  'execution.started': z.object({
    task: z.string(),
    repo: z.string(),
    baseRef: z.string(),
    baseSha: z.string(),
    branch: z.string(),
    worktree: z.string(),
    deadline: z.string(),
    chain: z.array(z.string()),
    maxSwitches: z.int(),
  }),
  'attempt.started': z.object({
    model: z.string().optional(),
    command: z.string(),
    simulated: z.boolean(),
    handoff: z.boolean(),
    contextPath: z.string().optional(),
    /** The harness session this attempt continues (an execution reopened by a follow-up). */
    resumedSession: z.string().optional(),
    timeLeftMs: z.number(),
    /** The prompt the harness was given (for a later attempt: the task prompt plus the handoff). */
    prompt: z.string(),
    /**
     * Whether the attempt's harness runs in the OS sandbox (bubblewrap, docs/gates.md "The sandbox");
     * when false, a `warning` before this record says why. Absent in records written before it existed.
     */
    sandboxed: z.boolean().optional(),
  }),
  'execution.resumed': z.object({
    /** `restart`: an earlier process of the service stopped while the execution was open. */
    reason: z.enum(['restart']),
    /** The attempt an earlier process left open (it is closed `crashed`), if any. */
    openAttempt: z.int().optional(),
  }),
  /**
   * An execution that had succeeded took a follow-up message: it runs again, with a new deadline (the
   * task's timeout from now), resuming the last attempt's harness session when there is one.
   */
  /** A follow-up reopened a succeeded execution; `worktreeRestored` when gc had removed its worktree and it was checked out again. */
  'execution.reopened': z.object({
    deadline: z.string(),
    resumedSession: z.string().optional(),
    worktreeRestored: z.boolean().optional(),
  }),
  /** A user's message was queued (durably) as a turn; `queued` counts the turns waiting, it included. */
  'message.queued': z.object({ turn: z.string(), text: z.string(), queued: z.int() }),
  /**
   * A turn was delivered to the attempt's harness: `first` the first time, `handoff` again to the next
   * attempt after a switch (the earlier harness stopped before it was done), `redelivered` again after
   * HarmFlow restarted while it ran.
   */
  'turn.started': z.object({
    turn: z.string(),
    text: z.string(),
    delivery: z.enum(['first', 'handoff', 'redelivered']),
    resumedSession: z.string().optional(),
  }),
  'turn.redelivered': z.object({ turn: z.string(), reason: z.string() }),
  'turn.ended': z.object({ turn: z.string(), outcome: Outcome, durationMs: z.number() }),
  'cancel.requested': z.object({ budgetMs: z.int() }),
  /** A switch asked by hand (`harmflow switch`, the API, the Workbench): to which harness, by whom, why. */
  'switch.requested': z.object({
    harness: HarnessName,
    model: z.string().optional(),
    by: z.string(),
    reason: z.string().optional(),
  }),
  'session.started': z.object({ sessionId: z.string(), model: z.string().optional() }),
  message: z.object({ text: z.string() }),
  'tool.call': z.object({
    id: z.string(),
    name: z.string(),
    input: z.unknown(),
    shell: z.string().optional(),
    files: z.array(z.string()).optional(),
  }),
  'tool.result': z.object({
    id: z.string(),
    ok: z.boolean(),
    exitCode: z.int().optional(),
    output: z.string().optional(),
    truncated: z.boolean().optional(),
  }),
  plan: z.object({ items: z.array(z.object({ text: z.string(), status: workItemStatus })) }),
  operation: OperationData,
  usage: z.object({
    inputTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    cachedInputTokens: z.number().optional(),
    costUsd: z.number().optional(),
  }),
  retry: z.object({
    attempt: z.number().optional(),
    maxRetries: z.number().optional(),
    delayMs: z.number().optional(),
    reason: z.string().optional(),
    message: z.string().optional(),
  }),
  rate_limit: z.object({
    status: z.string(),
    resetsAt: z.string().optional(),
    window: z.string().optional(),
    utilization: z.number().optional(),
  }),
  'harness.error': z.object({ message: z.string(), fatal: z.boolean() }),
  result: z.object({
    ok: z.boolean(),
    message: z.string().optional(),
    apiErrorStatus: z.number().optional(),
    numTurns: z.number().optional(),
    durationMs: z.number().optional(),
  }),
  warning: z.object({ message: z.string() }),
  raw: z.object({ stream: z.enum(['stdout', 'stderr']), line: z.string() }),
  'quota.exhausted': z.object({ message: z.string().optional(), resetsAt: z.string().optional() }),
  'workspace.inspected': z.object({
    head: z.string(),
    changedFiles: z.array(z.string()),
    commits: z.array(commit),
    remote: remoteRef.optional(),
    durationMs: z.number(),
  }),
  'context.written': z.object({ path: z.string(), attempts: z.int() }),
  /**
   * What the workspace showed that the record must not pass over: `commits_failed` — the execution
   * tried to commit and no commit of it reached the branch; `unconfirmed` — an operation its harness
   * reported done that the workspace does not show (a commit not on the branch, a push the remote does
   * not hold); `no_forge` — the task asks for a pull request and a link of its chain would find no
   * `gh` to open one with (said once, before the first attempt); `pull_request_failed` — the
   * execution tried to open a pull request and opened none (said at its end).
   */
  'workspace.warning': z.object({
    kind: z.enum(['commits_failed', 'unconfirmed', 'no_forge', 'pull_request_failed']),
    message: z.string(),
  }),
  /**
   * A link of the chain passed over: its harness is known to be out of quota until `until` (`known`:
   * the harness said so; otherwise the task's cool-down since it ran out), or it last reported
   * `utilization` of its limit used, at or over the task's `threshold` (switchAtUtilization).
   */
  'harness.skipped': z.object({
    harness: z.string(),
    until: z.string().optional(),
    known: z.boolean().optional(),
    utilization: z.number().optional(),
    threshold: z.number().optional(),
  }),
  /** Every harness of the chain is out: the execution waits for `harness`, whose reset comes first. */
  'quota.waiting': z.object({ harness: z.string(), until: z.string(), known: z.boolean(), waitMs: z.number() }),
  /**
   * The wait ended: the reset came (`reset`), or a person resumed it early (`resumed`); the execution
   * carries on, on `harness`.
   */
  'wait.ended': z.object({ harness: z.string(), reason: z.enum(['reset', 'resumed', 'switched']) }),
  /** A gate refused a tool call before it ran; `message` is what the agent was told. */
  'gate.denied': z.object({
    gate: z.string(),
    tool: z.string(),
    toolId: z.string().optional(),
    message: z.string(),
  }),
  /**
   * A gate could not decide (bad hook input, a crash, a timeout, an answer it could not read), and what
   * the runner answered instead: allow, or deny when the gate fails closed. `gate` is `runner` for the
   * gate runner itself.
   */
  'gate.failed': z.object({
    gate: z.string(),
    event: z.enum(['PreToolUse', 'PostToolUse', 'Stop']),
    error: z.string(),
    decision: z.enum(['allow', 'deny']),
    tool: z.string().optional(),
    toolId: z.string().optional(),
  }),
  /**
   * A call a gate would have refused, seen on the stream of a harness that has no hooks: it ran, so
   * this records it for the reader (and the handoff), it did not stop it.
   */
  'gate.flagged': z.object({
    gate: z.string(),
    tool: z.string(),
    toolId: z.string().optional(),
    message: z.string(),
  }),
  /** What the gates could not check about an allowed call, each note prefixed with its gate's name. */
  'gate.noted': z.object({ tool: z.string(), toolId: z.string().optional(), notes: z.array(z.string()) }),
  /**
   * The gates allowed a call (one record per call a hook asked about, before it ran): the gates that
   * ran, in order (`nothing-twice`, `commands`, `workspace`, then each custom gate by name), and what
   * they could not check, each note prefixed with its gate's name.
   */
  'gate.allowed': z.object({
    tool: z.string(),
    toolId: z.string().optional(),
    gates: z.array(z.string()),
    notes: z.array(z.string()).optional(),
  }),
  failover: z.object({
    from: z.string(),
    to: z.string(),
    reason: Outcome,
    switchNumber: z.int(),
    maxSwitches: z.int(),
    /** A switch before the limit (switchAtUtilization): the share `from` reported used, and the task's threshold. */
    utilization: z.number().optional(),
    threshold: z.number().optional(),
    /** The index in the execution's chain of the link switched to (absent in records from before it was kept). */
    toIndex: z.int().optional(),
    /** A switch by hand: the link it put into the chain (hand-switch.ts), who asked and why. */
    hand: z.object({ harness: HarnessName, model: z.string().optional(), like: z.int().optional() }).optional(),
    requestedBy: z.string().optional(),
    note: z.string().optional(),
  }),
  'attempt.ended': z.object({
    outcome: Outcome,
    exitCode: z.int().nullable(),
    signal: z.string().nullable(),
    message: z.string().optional(),
    sessionId: z.string().optional(),
    resetsAt: z.string().optional(),
    durationMs: z.number(),
  }),
  'execution.ended': z.object({
    state: ExecutionState,
    attempts: z.int(),
    durationMs: z.number(),
    message: z.string().optional(),
  }),
} as const;

export type EventType = keyof typeof EventPayloads;
export type EventData<T extends EventType> = z.infer<(typeof EventPayloads)[T]>;
export const EVENT_TYPES = Object.keys(EventPayloads) as EventType[];

/** Who appended a record. */
export const EventSource = z.enum(['executor', 'harness', 'gate', 'workspace']);
export type EventSource = z.infer<typeof EventSource>;

/**
 * Present on a record its writer cut to keep its line within the bound (events/bound.ts): its long
 * texts end with a marker naming the bytes each dropped, its longest lists lost their last items.
 * `droppedBytes` counts them all: a text's UTF-8 bytes, a list item's JSON with its comma.
 */
const Truncated = z.object({ droppedBytes: z.int().min(1) });
export type Truncated = z.infer<typeof Truncated>;

/** One record of `events.jsonl`, discriminated by `type`. */
export type EventRecord = {
  [T in EventType]: {
    ts: string;
    execution: string;
    attempt?: number;
    harness?: string;
    source: EventSource;
    type: T;
    truncated?: Truncated;
    data: EventData<T>;
  };
}[EventType];

const envelope = z.object({
  ts: z.string(),
  execution: z.string(),
  attempt: z.int().min(1).optional(),
  harness: z.string().optional(),
  source: EventSource,
  type: z.string(),
  truncated: Truncated.optional(),
  data: z.unknown(),
});

/** Parses one line of `events.jsonl`; returns undefined for a line that is not a valid record. */
export function parseEventRecord(line: string): EventRecord | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return undefined;
  }
  const head = envelope.safeParse(json);
  if (!head.success || !(head.data.type in EventPayloads)) return undefined;
  const payload = EventPayloads[head.data.type as EventType].safeParse(head.data.data);
  if (!payload.success) return undefined;
  return { ...head.data, data: payload.data } as EventRecord;
}

/** The types a harness adapter produces from its CLI's output. */
export const HARNESS_EVENT_TYPES = [
  'session.started',
  'message',
  'tool.call',
  'tool.result',
  'plan',
  'usage',
  'retry',
  'rate_limit',
  'harness.error',
  'result',
  'warning',
  'raw',
] as const satisfies readonly EventType[];
export type HarnessEventType = (typeof HARNESS_EVENT_TYPES)[number];

/** One normalized event parsed from a harness's output line, before it becomes a record. */
export type HarnessEvent = { [T in HarnessEventType]: { type: T; data: EventData<T> } }[HarnessEventType];
