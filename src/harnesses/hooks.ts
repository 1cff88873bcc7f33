/**
 * The gate seam of a harness adapter: how HarmFlow's gates are installed for one attempt, and the
 * harness's hook protocol. Two halves, kept apart because they run in different processes:
 *
 * - `HarnessHooks` (on the adapter, used by the engine): rewrites the attempt's command so the harness
 *   calls the gate runner around its tool calls. Only through what the attempt owns — an argument,
 *   the environment, files under the attempt's private home — never the user's own configuration.
 * - `HookDialect` (loaded by the gate runner, `harmflow gate <event>`): reads the JSON the harness
 *   writes on the hook's stdin and writes the answer the harness expects. The runner starts around
 *   every tool call, so a dialect module imports nothing heavier than `zod/mini`.
 */
import type { GateEvent, HookInput } from '../gates/hook-event.js';
import type { Verdict } from '../gates/verdict.js';
import type { CommandSpec } from './adapter.js';

/** What the engine gives an adapter to install the gates with. */
export interface HookInstallInput {
  /** The gate runner for `event` as one shell command line (quoted), for harnesses that run hooks through a shell. */
  readonly shellCommand: (event: GateEvent) => string;
  /** The same as an argv (program first), for harnesses that take one. */
  readonly argv: (event: GateEvent) => readonly string[];
  /** The attempt's private home: where `CommandSpec.files` are written (paths in `files` are relative to it). */
  readonly homeDir: string;
  /**
   * What the gate runner needs in its environment (`HARMFLOW_GATE_DIR`). The engine also sets it on
   * the harness; an adapter whose CLI may filter a hook's environment passes it to the hook itself.
   */
  readonly env: Readonly<Record<string, string>>;
}

export interface HarnessHooks {
  /**
   * The gate events this harness's installed version calls, verified against the real CLI. A harness
   * that cannot call `PreToolUse` cannot be denied a call: its gates record, after the fact.
   */
  readonly events: readonly GateEvent[];
  /** Returns `spec` with the gate runner installed for `events`. Pure. */
  install(spec: CommandSpec, input: HookInstallInput): CommandSpec;
}

/** What the gate runner writes back to the harness and how it exits. */
export interface HookAnswer {
  readonly stdout: string;
  readonly exitCode: number;
}

export interface HookDialect {
  /** Parses the hook's stdin for `event`. Throws `HookInputError` (never anything else) for input it cannot read. */
  parse(event: GateEvent, stdin: string): HookInput;
  /** The answer for `verdict`; a deny's message must reach the agent. Allow on `PostToolUse` and `Stop`. */
  answer(event: GateEvent, verdict: Verdict): HookAnswer;
  /**
   * True when the harness's `PostToolUse` input says how a shell call exited (an exit code, or a
   * failure event of its own); false when it does not (Codex 0.171.0: `tool_response` is the output
   * alone, success or not). The gates record a harness's operations only when it is true; otherwise
   * the engine records them from the harness's stream, which says.
   */
  readonly reportsExitStatus: boolean;
}
