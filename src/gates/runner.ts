/**
 * The gate runner: what `harmflow gate <event>` does with one hook call. It reads the attempt's gates
 * file (HARMFLOW_GATE_DIR names the attempt's directory), parses the hook's stdin in the harness's
 * dialect, runs the built-in gates and then the task's custom gates, appends what it found to the
 * execution's events.jsonl (`source: "gate"`), and returns the answer for the harness.
 *
 * It never leaves the harness waiting on its own trouble: whatever fails — a missing or bad gates
 * file, input it cannot read, a custom gate that crashes, hangs past its timeout or answers nonsense
 * — is recorded as `gate.failed` where it can be, and the call is allowed, or denied when the gate
 * (or the gates as a whole, for the runner's own failures) is configured to fail closed. Only
 * `PreToolUse` can deny; after a call and at a stop the answer is always allow.
 *
 * What it records: `gate.denied` for a refused call, `gate.noted` for what the gates could not check
 * of an allowed one, `operation` for commits, pushes, pull requests and test runs a finished call
 * made (the engine leaves those to the gates when they run after every call), `gate.failed`.
 * Allowed calls without notes add nothing: the harness's own stream already has the call.
 */
import { basename, dirname, join } from 'node:path';
import type { HookAnswer, HookDialect } from '../harnesses/hooks.js';
import { type AttemptGates, currentFacts, readAttemptGates, recordSeen } from './attempt-file.js';
import { opensPullRequest } from './builtin/nothing-twice.js';
import { runCustomGate } from './custom.js';
import { dialectOf } from './dialects.js';
import { evaluate } from './evaluate.js';
import { type GateFacts, type KnownPullRequest, workSeen } from './facts.js';
import { forgePullRequests } from './forge.js';
import { GATE_DIR_ENV, type GateEvent, type HookInput } from './hook-event.js';
import { appendGateRecords, type GateRecord } from './records.js';
import { resolveSettings } from './resolve.js';
import type { ToolCall } from './tool-call.js';
import { ALLOW, deny, type Verdict } from './verdict.js';

export interface GateCall {
  readonly event: GateEvent;
  /** The hook's stdin, whole. */
  readonly stdin: string;
  readonly env: NodeJS.ProcessEnv;
}

/** The answer, plus a line for stderr when the runner could not record a failure anywhere else. */
export interface GateReply extends HookAnswer {
  readonly stderr?: string;
}

/** Runs the gates for one hook call. Never throws and never rejects. */
export async function runGate(call: GateCall): Promise<GateReply> {
  const dir = call.env[GATE_DIR_ENV];
  if (!dir) return { stdout: '', exitCode: 0, stderr: `harmflow gate: ${GATE_DIR_ENV} is not set; allowing the call` };
  let gates: AttemptGates;
  let dialect: HookDialect;
  try {
    gates = readAttemptGates(dir);
    dialect = dialectOf(gates.harness);
  } catch (error) {
    return unrecorded(dir, call.event, `cannot read the gates of this attempt: ${messageOf(error)}`);
  }
  const records: GateRecord[] = [];
  const fail = (gate: string, error: string, closed: boolean, input?: HookInput): Verdict => {
    const denies = closed && call.event === 'PreToolUse';
    const decision = denies ? 'deny' : 'allow';
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
    const decided = await Promise.race([decide(call, gates, dialect, dir, records, fail), overdue]);
    verdict =
      decided === 'overdue'
        ? fail('runner', `did not decide within ${budgetMs} ms`, gates.settings.failClosed)
        : decided;
  } catch (error) {
    verdict = fail('runner', messageOf(error), gates.settings.failClosed);
  } finally {
    clearTimeout(timer);
  }
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

async function decide(
  call: GateCall,
  gates: AttemptGates,
  dialect: HookDialect,
  dir: string,
  records: GateRecord[],
  fail: Fail,
): Promise<Verdict> {
  const resolved = resolveSettings(gates.settings);
  let input: HookInput;
  try {
    input = dialect.parse(call.event, call.stdin);
  } catch (error) {
    return fail('runner', messageOf(error), resolved.failClosed);
  }
  // The harness's HOME (a private one per attempt) is what `~` means in the agent's commands.
  const home = call.env.HOME ?? gates.facts.home;
  const own = { ...gates.facts, ...(home !== undefined && { home }) };
  // What this attempt pushed and opened matters only to nothing-twice, before a call.
  let facts = input.event === 'PreToolUse' && resolved.nothingTwice ? currentFacts(dir, own) : own;
  if (input.event === 'PreToolUse' && resolved.nothingTwice && opensPullRequest(input.call, facts)) {
    facts = await withForge(facts, records, input);
  }
  const evaluation = evaluate(input, facts, resolved);
  if ('call' in input && evaluation.notes.length > 0) {
    records.push({ type: 'gate.noted', data: { ...toolOf(input.call), notes: evaluation.notes } });
  }
  if (evaluation.verdict.decision === 'deny') {
    if ('call' in input) {
      records.push({
        type: 'gate.denied',
        data: {
          gate: evaluation.gate ?? 'gates',
          ...toolOf(input.call),
          message: evaluation.verdict.message,
        },
      });
    }
    return evaluation.verdict;
  }
  // A harness whose hook does not say how a call exited has its operations recorded by the engine,
  // from its stream: a hook's "ok" would be a guess there.
  const operations = dialect.reportsExitStatus ? evaluation.operations : [];
  for (const operation of operations) records.push({ type: 'operation', data: operation });
  recordSeen(dir, workSeen(operations, gates.facts.branch, { attempt: gates.attempt, harness: gates.harness }));
  return custom(input, gates, resolved, records, fail);
}

/** The task's custom gates for this event, in order; the first deny (PreToolUse) wins. */
async function custom(
  input: HookInput,
  gates: AttemptGates,
  resolved: ReturnType<typeof resolveSettings>,
  records: GateRecord[],
  fail: Fail,
): Promise<Verdict> {
  const about = { ...gates, worktree: gates.facts.worktree };
  for (const gate of resolved.custom) {
    if (!gate.events.includes(input.event)) continue;
    const outcome = await runCustomGate(gate, input, about);
    if ('failure' in outcome) {
      const verdict = fail(gate.name, outcome.failure, gate.failClosed, input);
      if (verdict.decision === 'deny') return verdict;
      continue;
    }
    if (outcome.verdict.decision === 'deny' && input.event === 'PreToolUse') {
      records.push({
        type: 'gate.denied',
        data: { gate: gate.name, ...toolOf(input.call), message: outcome.verdict.message },
      });
      return outcome.verdict;
    }
  }
  return ALLOW;
}

/** `facts` with the pull requests the forge lists for the branch; a forge that cannot answer is noted. */
async function withForge(
  facts: GateFacts,
  records: GateRecord[],
  input: HookInput & { event: 'PreToolUse' },
): Promise<GateFacts> {
  const listed = await forgePullRequests(facts.worktree, facts.branch);
  if ('failure' in listed) {
    records.push({
      type: 'gate.noted',
      data: {
        ...toolOf(input.call),
        notes: [`nothing-twice: could not ask the forge: ${listed.failure}`],
      },
    });
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
 * The runner could not read its own gates file: it records the failure in the execution's log (two
 * levels up, where the engine keeps it) if it can, without a harness (the gates file names it), and
 * allows — it cannot know whether to fail closed, and a harness must never hang on HarmFlow's trouble.
 */
function unrecorded(dir: string, event: GateEvent, error: string): GateReply {
  // runs/<execution>/attempts/<n>: the state directory's layout names the execution and the attempt.
  const runDir = dirname(dirname(dir));
  const attempt = Number.parseInt(basename(dir), 10);
  const target = {
    eventsPath: join(runDir, 'events.jsonl'),
    execution: basename(runDir),
    attempt: Number.isNaN(attempt) ? 1 : attempt,
  };
  try {
    appendGateRecords(target, [{ type: 'gate.failed', data: { gate: 'runner', event, error, decision: 'allow' } }]);
    return { stdout: '', exitCode: 0 };
  } catch {
    return { stdout: '', exitCode: 0, stderr: `harmflow gate: ${error}; allowing the call` };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
