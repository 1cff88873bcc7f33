/**
 * The seam between what `sim` does and how a harness prints it. An `AgentStream` turns
 * harness-neutral acts (a message, a plan, a tool call and its result, the ending) into the exact
 * stdout objects of one real CLI; `claude-stream.ts` and `codex-stream.ts` implement it. A stream does
 * no I/O: it returns objects, the caller prints them, one JSON object a line, in the order returned.
 * One stream serves one run; it keeps the run's counters (ids, turns, tokens).
 */
import type { PlanItem, QuotaVariant } from './scenario.js';

/** One tool call, as the agent asks for it. Paths are absolute. */
export type ToolCall =
  | { kind: 'shell'; command: string; description: string }
  | { kind: 'write'; file: string; content: string; existed: boolean }
  | { kind: 'edit'; file: string; find: string; replace: string };

/** What a tool call gave. `output` is stdout and stderr interleaved as they arrived. */
export interface ToolResult {
  readonly ok: boolean;
  readonly output: string;
  readonly exitCode?: number;
  readonly stdout?: string;
  readonly stderr?: string;
}

/** A tool call as the harness's hooks see it: its id, tool name and input, and its result's shape. */
export interface HookedCall {
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
  /** The `tool_response` a PostToolUse hook gets for `result`. */
  response(result: ToolResult): unknown;
  /**
   * For a harness that reports a failed call to its own hook event (Claude Code's
   * `PostToolUseFailure`), the `error` that event gets; absent: failed calls go to PostToolUse too.
   */
  failure?(result: ToolResult): string;
}

/**
 * The lines that open a tool call, how to print its result once it is known, and, when a
 * PreToolUse hook refused it, every line the harness prints instead (the call never runs).
 */
export interface ToolLines {
  readonly started: object[];
  finish(result: ToolResult): object[];
  readonly hook: HookedCall;
  denied(reason: string): object[];
}

/** A way a run ends that prints lines (a hang prints nothing more and is handled by the caller). */
export type FinalEnding =
  | { kind: 'complete'; message: string; utilization?: number }
  | { kind: 'quota'; variant?: QuotaVariant; resetsAt: Date }
  | { kind: 'rate_limit' | 'overloaded' | 'auth' | 'crash' };

/** The last lines of a run and its exit code. */
export interface EndingOutput {
  readonly stdout: object[];
  readonly stderr: string[];
  readonly exitCode: number;
}

export interface AgentStream {
  /** The session (Claude Code) or thread (Codex) id this run reports. */
  readonly sessionId: string;
  /** The lines every run starts with; `stderr` is the CLI's usual noise. */
  opening(): { stdout: object[]; stderr: string[] };
  message(text: string): object[];
  plan(items: readonly PlanItem[]): object[];
  tool(call: ToolCall): ToolLines;
  ending(ending: FinalEnding): EndingOutput;
}
