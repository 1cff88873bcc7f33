/**
 * The gate runner: what `harmflow gate <event>` does with one hook call. It reads the attempt's gates
 * file (HARMFLOW_GATE_DIR names the attempt's directory), parses the hook's stdin in the harness's
 * dialect, runs the built-in gates and then the task's custom gates, appends what it found to the
 * execution's events.jsonl (`source: "gate"`), and returns the answer for the harness.
 *
 * The gate configuration fails closed: unless the gates file is there and its bytes have the SHA-256
 * the hook's command line gives (the digest of the file HarmFlow wrote, attempt-file.ts), the runner
 * trusts nothing in it and refuses every `PreToolUse` with one reason, recorded (`refuseAll`).
 *
 * Otherwise it never leaves the harness waiting on its own trouble: whatever fails — input it cannot
 * read, a custom gate that crashes, hangs past its timeout or answers nonsense — is recorded as
 * `gate.failed`, and the call is allowed, or denied when the gate (or the gates as a whole, for the
 * runner's own failures) is configured to fail closed. Only `PreToolUse` can deny; after a call and at
 * a stop the answer is always allow.
 *
 * What it records: for each call a `PreToolUse` hook asks about, one decision record, last —
 * `gate.denied` (the gate that refused, the message the agent read) or `gate.allowed` (the gates that
 * ran, in order, and what they could not check); `gate.failed` before it for each gate that could not
 * decide; after a call, `operation` for the commits, pushes, pull requests and test runs it made (the
 * engine leaves those to the gates when they run after every call and the harness says how a call
 * exited). Input it cannot read names no call: its `gate.failed` (gate `runner`) is its only record.
 */
import { basename, dirname, join } from 'node:path';
import type { HookAnswer, HookDialect } from '../harnesses/hooks.js';
import { type AttemptGates, currentFacts, GatesFileError, readAttemptGates, recordSeen } from './attempt-file.js';
import { opensPullRequest } from './builtin/nothing-twice.js';
import { runCustomGate } from './custom.js';
import { dialectOf, knownDialect } from './dialects.js';
import { evaluate } from './evaluate.js';
import { type GateFacts, type KnownPullRequest, workSeen } from './facts.js';
import { forgePullRequests } from './forge.js';
import { GATE_DIR_ENV, type GateArgs, type GateEvent, type HookInput } from './hook-event.js';
import { appendGateRecords, type GateRecord, type RecordTarget } from './records.js';
import { resolveSettings } from './resolve.js';
import type { ToolCall } from './tool-call.js';
import { ALLOW, deny, type Verdict } from './verdict.js';

export interface GateCall {
  readonly event: GateEvent;
  /** The hook's stdin, whole. */
  readonly stdin: string;
  readonly env: NodeJS.ProcessEnv;
  /** What the hook's command line gives besides the event: the harness and the gates file's SHA-256. */
  readonly args: GateArgs;
}

/** The answer, plus a line for stderr: what the runner could not record anywhere else, or the reason of an exit 2. */
export interface GateReply extends HookAnswer {
  readonly stderr?: string;
}

/** Runs the gates for one hook call. Never throws and never rejects. */
export async function runGate(call: GateCall): Promise<GateReply> {
  const dir = call.env[GATE_DIR_ENV];
  let gates: AttemptGates;
  let dialect: HookDialect;
  try {
    if (!dir) throw new GatesFileError('missing', `${GATE_DIR_ENV} is not set`);
    gates = readAttemptGates(dir, call.args.sha256);
    dialect = dialectOf(gates.harness);
  } catch (error) {
    return refuseAll(call, dir, error);
  }
  const records: GateRecord[] = [];
  const trail: Trail = { ran: [], notes: [] };
  const fail = (gate: string, error: string, closed: boolean, input?: HookInput): Verdict => {
    const denies = closed && call.event === 'PreToolUse';
    const decision = denies ? 'deny' : 'allow';
    if (denies) trail.denier = gate;
    records.push({
      type: 'gate.failed',
      data: { gate, event: call.event, error, decision, ...(input && 'call' in input && toolOf(input.call)) },
    });
    return denies
      ? deny(
          `HarmFlow's ${gate === 'runner' ? 'gate runner' : `${gate} gate`} failed (${error}) and is set to fail closed, so this call was not run.`,
        )
      : ALLOW;
  };
  const budgetMs = runnerBudgetMs(gates, call.event);
  let timer: NodeJS.Timeout | undefined;
  const overdue = new Promise<'overdue'>((resolve) => {
    timer = setTimeout(() => resolve('overdue'), budgetMs);
  });
  let verdict: Verdict;
  try {
    const decided = await Promise.race([decide(call, gates, dialect, dir, records, trail, fail), overdue]);
    verdict =
      decided === 'overdue'
        ? fail('runner', `did not decide within ${budgetMs} ms`, gates.settings.failClosed)
        : decided;
  } catch (error) {
    verdict = fail('runner', messageOf(error), gates.settings.failClosed);
  } finally {
    clearTimeout(timer);
  }
  if (trail.call !== undefined) records.push(decisionRecord(verdict, trail, trail.call));
  try {
    appendGateRecords(gates, records);
  } catch (error) {
    return {
      ...dialect.answer(call.event, verdict),
      stderr: `harmflow gate: cannot append to ${gates.eventsPath}: ${messageOf(error)}`,
    };
  }
  return dialect.answer(call.event, verdict);
}

/**
 * The most one hook call may take before the runner answers without its gates: 5 s of its own (the
 * forge's 3 s and file work) plus each custom gate's timeout for this event. Every part has its own
 * timeout; this is the backstop that keeps a bug from hanging the harness.
 */
function runnerBudgetMs(gates: AttemptGates, event: GateEvent): number {
  const custom = gates.settings.custom.filter((gate) => gate.events.includes(event));
  return RUNNER_OWN_MS + custom.reduce((sum, gate) => sum + gate.timeoutMs, 0);
}

const RUNNER_OWN_MS = 5000;

type Fail = (gate: string, error: string, closed: boolean, input?: HookInput) => Verdict;

/**
 * What the gates did with a `PreToolUse` call, gathered while they run, for its one decision record:
 * the call (once its input is read), the gates that ran in order, what they could not check, and the
 * gate that denied. Owned by one `runGate`; `decide` adds to it, `runGate` reads it once it answered.
 */
interface Trail {
  call?: ToolCall;
  readonly ran: string[];
  readonly notes: string[];
  denier?: string;
}

/**
 * The decision record of a `PreToolUse` call: `gate.denied` for a deny, `gate.allowed` for an allow
 * (`notes` only when there are some: one record per call, kept small). Copies the trail, which a
 * `decide` the runner stopped waiting for may still be adding to.
 */
function decisionRecord(verdict: Verdict, trail: Trail, call: ToolCall): GateRecord {
  if (verdict.decision === 'deny') {
    return {
      type: 'gate.denied',
      data: { gate: trail.denier ?? 'gates', ...toolOf(call), message: verdict.message },
    };
  }
  return {
    type: 'gate.allowed',
    data: { ...toolOf(call), gates: [...trail.ran], ...(trail.notes.length > 0 && { notes: [...trail.notes] }) },
  };
}

async function decide(
  call: GateCall,
  gates: AttemptGates,
  dialect: HookDialect,
  dir: string,
  records: GateRecord[],
  trail: Trail,
  fail: Fail,
): Promise<Verdict> {
  const resolved = resolveSettings(gates.settings);
  let input: HookInput;
  try {
    input = dialect.parse(call.event, call.stdin);
  } catch (error) {
    return fail('runner', messageOf(error), resolved.failClosed);
  }
  if (input.event === 'PreToolUse') trail.call = input.call;
  // The harness's HOME (a private one per attempt) is what `~` means in the agent's commands.
  const home = call.env.HOME ?? gates.facts.home;
  const own = { ...gates.facts, ...(home !== undefined && { home }) };
  // What this attempt pushed and opened matters only to nothing-twice, before a call.
  let facts = input.event === 'PreToolUse' && resolved.nothingTwice ? currentFacts(dir, own) : own;
  if (input.event === 'PreToolUse' && resolved.nothingTwice && opensPullRequest(input.call, facts)) {
    facts = await withForge(facts, trail.notes);
  }
  const evaluation = evaluate(input, facts, resolved);
  trail.ran.push(...evaluation.ran);
  trail.notes.push(...evaluation.notes);
  if (evaluation.verdict.decision === 'deny') {
    trail.denier = evaluation.gate ?? 'gates';
    return evaluation.verdict;
  }
  // A harness whose hook does not say how a call exited has its operations recorded by the engine,
  // from its stream: a hook's "ok" would be a guess there.
  const operations = dialect.reportsExitStatus ? evaluation.operations : [];
  for (const operation of operations) records.push({ type: 'operation', data: operation });
  recordSeen(dir, workSeen(operations, gates.facts.branch, { attempt: gates.attempt, harness: gates.harness }));
  return custom(input, gates, resolved, trail, fail);
}

/** The task's custom gates for this event, in order; the first deny (PreToolUse) wins. */
async function custom(
  input: HookInput,
  gates: AttemptGates,
  resolved: ReturnType<typeof resolveSettings>,
  trail: Trail,
  fail: Fail,
): Promise<Verdict> {
  const about = { ...gates, worktree: gates.facts.worktree };
  for (const gate of resolved.custom) {
    if (!gate.events.includes(input.event)) continue;
    trail.ran.push(gate.name);
    const outcome = await runCustomGate(gate, input, about);
    if ('failure' in outcome) {
      const verdict = fail(gate.name, outcome.failure, gate.failClosed, input);
      if (verdict.decision === 'deny') return verdict;
      continue;
    }
    if (outcome.verdict.decision === 'deny' && input.event === 'PreToolUse') {
      trail.denier = gate.name;
      return outcome.verdict;
    }
  }
  return ALLOW;
}

/** `facts` with the pull requests the forge lists for the branch; a forge that cannot answer is noted in `notes`. */
async function withForge(facts: GateFacts, notes: string[]): Promise<GateFacts> {
  const listed = await forgePullRequests(facts.worktree, facts.branch);
  if ('failure' in listed) {
    notes.push(`nothing-twice: could not ask the forge: ${listed.failure}`);
    return facts;
  }
  const byUrl = new Map<string, KnownPullRequest>(facts.pullRequests.map((request) => [request.url, request]));
  for (const request of listed.pullRequests) byUrl.set(request.url, { ...byUrl.get(request.url), ...request });
  return { ...facts, pullRequests: [...byUrl.values()] };
}

function toolOf(call: ToolCall): { tool: string; toolId?: string } {
  return { tool: call.tool, ...(call.id !== undefined && { toolId: call.id }) };
}

/**
 * The runner cannot trust the attempt's gates file, or has none: it refuses every `PreToolUse` with
 * one reason (after a call and at a stop it can only allow) and records each call in the execution's
 * log, found from the state directory's layout (runs/<execution>/attempts/<n>), not from the file:
 * `gate.failed` (gate `runner`) with what is wrong, then `gate.denied` for a call it can name. The
 * harness is the one the command line names: its dialect reads the call and answers. Without one,
 * a refusal is exit 2 with the reason on stderr, which each harness reads as a deny (Claude Code,
 * Codex and Gemini CLI by their hook protocols; HarmFlow's OpenCode plugin by its own).
 */
function refuseAll(call: GateCall, dir: string | undefined, error: unknown): GateReply {
  const state = error instanceof GatesFileError ? error.state : 'missing';
  const message = `HarmFlow's gate configuration is ${state}: every tool call is refused until the attempt ends.`;
  const verdict = call.event === 'PreToolUse' ? deny(message) : ALLOW;
  const dialect = knownDialect(call.args.harness);
  const input = dialect === undefined ? undefined : readInput(dialect, call);
  const called = input !== undefined && 'call' in input ? toolOf(input.call) : undefined;
  const failed = { gate: 'runner', event: call.event, error: messageOf(error), decision: verdict.decision };
  const records: GateRecord[] = [{ type: 'gate.failed', data: { ...failed, ...called } }];
  if (verdict.decision === 'deny' && called !== undefined) {
    records.push({ type: 'gate.denied', data: { gate: 'runner', ...called, message } });
  }
  const harness = dialect === undefined ? undefined : call.args.harness;
  const unrecorded = dir === undefined ? messageOf(error) : append(layoutTarget(dir, harness), records);
  // Without a dialect the reason itself goes on stderr: a note there would be read as part of it.
  if (dialect === undefined && verdict.decision === 'deny') return { stdout: '', exitCode: 2, stderr: message };
  const answer = dialect?.answer(call.event, verdict) ?? { stdout: '', exitCode: 0 };
  const done = verdict.decision === 'deny' ? 'refused' : 'allowed';
  return unrecorded === undefined ? answer : { ...answer, stderr: `harmflow gate: ${unrecorded}; ${done} the call` };
}

/** The hook's input read in `dialect`; undefined when it cannot be read (the records then name no call). */
function readInput(dialect: HookDialect, call: GateCall): HookInput | undefined {
  try {
    return dialect.parse(call.event, call.stdin);
  } catch {
    return undefined;
  }
}

/** Who records go to for the attempt directory `dir`, runs/<execution>/attempts/<n>, by the state directory's layout. */
function layoutTarget(dir: string, harness: string | undefined): RecordTarget {
  const runDir = dirname(dirname(dir));
  const attempt = Number.parseInt(basename(dir), 10);
  return {
    eventsPath: join(runDir, 'events.jsonl'),
    execution: basename(runDir),
    attempt: Number.isNaN(attempt) ? 1 : attempt,
    ...(harness !== undefined && { harness }),
  };
}

/** Appends `records`; what went wrong when it could not, for stderr. */
function append(target: RecordTarget, records: readonly GateRecord[]): string | undefined {
  try {
    appendGateRecords(target, records);
    return undefined;
  } catch (error) {
    return `cannot append to ${target.eventsPath}: ${messageOf(error)}`;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
