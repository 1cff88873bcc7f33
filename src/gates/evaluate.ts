/**
 * Runs an execution's built-in gates on one hook event and says what the gate runner should answer
 * and record. Before a call (`PreToolUse`) the enabled deny gates run in a fixed order and the first
 * deny wins:
 *
 * 1. `nothing-twice`: its refusal carries a fact the agent lacks (the pull request that exists, the
 *    push an earlier attempt made), the answer most likely to set it on the right path;
 * 2. `commands`: a named rule with specific advice (push to your branch instead, download and read);
 * 3. `workspace`: the broad net, with the most general advice.
 *
 * The order decides only which message the agent reads: every gate here is pure and takes
 * microseconds, so none is skipped for speed. After a call (`PostToolUse`) nothing can be denied (the
 * call has run); the `operations` gate says what it did. `Stop` has no built-in check. The task's
 * custom gates are processes: the runner runs them after these allowed the call.
 *
 * Cheap to import on purpose (it runs in a process started around every tool call): no zod, no
 * store, nothing but the gates, `node:path` and the engine's pure operation recognizer.
 */
import type { OperationData } from '../events/schema.js';
import { commandsGate } from './builtin/commands.js';
import { nothingTwiceGate } from './builtin/nothing-twice.js';
import { operationsGate } from './builtin/operations.js';
import { workspaceGate } from './builtin/workspace.js';
import type { GateFacts } from './facts.js';
import type { ResolvedGates } from './resolve.js';
import type { ToolCall, ToolResult } from './tool-call.js';
import { ALLOW, type Verdict } from './verdict.js';

/** One hook event, as a hook dialect gives it (only `event`, `call` and `result` are read). */
export type GateInput =
  | { readonly event: 'PreToolUse'; readonly call: ToolCall }
  | { readonly event: 'PostToolUse'; readonly call: ToolCall; readonly result: ToolResult }
  | { readonly event: 'Stop' };

export interface GateEvaluation {
  /** What to answer the harness. Always allow for `PostToolUse` and `Stop`. */
  readonly verdict: Verdict;
  /**
   * The built-in gates that ran, in the order they ran: before a call, the enabled deny gates up to
   * and including the one that denied (all of them when the call is allowed); after a call,
   * `operations` when it is on. For the gate runner's `gate.allowed` record.
   */
  readonly ran: readonly string[];
  /** The gate that denied, when one did. */
  readonly gate?: string;
  /** Operations the call performed (`PostToolUse` with the `operations` gate on), for `operation` events. */
  readonly operations: OperationData[];
  /** For the event log: each prefixed with the gate's name; what the gates could not check. */
  readonly notes: string[];
}

type DenyGate = { readonly name: string; readonly run: (call: ToolCall) => Verdict };

/** Evaluates `input` with the built-in gates `gates` enables. Pure; never throws on any call shape. */
export function evaluate(input: GateInput, facts: GateFacts, gates: ResolvedGates): GateEvaluation {
  if (input.event === 'Stop') return { verdict: ALLOW, ran: [], operations: [], notes: [] };
  if (input.event === 'PostToolUse') {
    if (!gates.operations) return { verdict: ALLOW, ran: [], operations: [], notes: [] };
    return {
      verdict: ALLOW,
      ran: ['operations'],
      operations: operationsGate(input.call, input.result, facts),
      notes: [],
    };
  }
  const ran: string[] = [];
  const notes: string[] = [];
  for (const gate of denyGates(facts, gates)) {
    ran.push(gate.name);
    const verdict = gate.run(input.call);
    if (verdict.decision === 'deny') return { verdict, ran, gate: gate.name, operations: [], notes };
    for (const note of verdict.notes ?? []) notes.push(`${gate.name}: ${note}`);
  }
  return { verdict: ALLOW, ran, operations: [], notes };
}

/** The enabled deny gates, in the order they run. */
function denyGates(facts: GateFacts, gates: ResolvedGates): DenyGate[] {
  const { commands, workspace } = gates;
  return [
    ...(gates.nothingTwice ? [{ name: 'nothing-twice', run: (call: ToolCall) => nothingTwiceGate(call, facts) }] : []),
    ...(commands ? [{ name: 'commands', run: (call: ToolCall) => commandsGate(call, facts, commands) }] : []),
    ...(workspace ? [{ name: 'workspace', run: (call: ToolCall) => workspaceGate(call, facts, workspace) }] : []),
  ];
}
