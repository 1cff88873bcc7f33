/**
 * The gate seam of a harness adapter: how HarmFlow's gates are installed for one attempt, and the
 * harness's hook protocol. Two halves, kept apart because they run in different processes:
 *
 * - `HarnessHooks` (on the adapter, used by the engine): rewrites the attempt's command so the harness
 *   calls the gate runner around its tool calls. Only through what the attempt owns — an argument,
 *   the environment, files under the attempt's private home or in the attempt's directory — never the
 *   user's own configuration. Every hook runs the command `gateRunner` gives, which carries the
 *   harness and the SHA-256 of the attempt's gates file: the runner trusts the file only with it.
 * - `HookDialect` (loaded by the gate runner, `harmflow gate <event>`): reads the JSON the harness
 *   writes on the hook's stdin and writes the answer the harness expects. The runner starts around
 *   every tool call, so a dialect module imports nothing heavier than `zod/mini`.
 */
import { join, relative } from 'node:path';
import type { HarnessName } from '../core/outcome.js';
import { shellWord } from '../core/shell-words.js';
import { GATE_DIR_ENV, type GateEvent, gateArgsWords, type HookInput } from '../gates/hook-event.js';
import type { Verdict } from '../gates/verdict.js';
import type { CommandSpec } from './adapter.js';

/** What the engine gives an adapter to install the gates with. */
export interface HookInstallInput {
  /** The gate runner for `event` as one shell command line (quoted), for harnesses that run hooks through a shell. */
  readonly shellCommand: (event: GateEvent) => string;
  /** The same as an argv (program first), for harnesses that take one. */
  readonly argv: (event: GateEvent) => readonly string[];
  /**
   * The attempt's private home: where `CommandSpec.files` are written (paths in `files` are relative
   * to it; `attemptFile` gives those of the attempt's directory, outside it).
   */
  readonly homeDir: string;
  /**
   * What the gate runner needs in its environment (`HARMFLOW_GATE_DIR`). The engine also sets it on
   * the harness; an adapter whose CLI may filter a hook's environment passes it to the hook itself.
   */
  readonly env: Readonly<Record<string, string>>;
  /**
   * The SHA-256 of the attempt's gates file, as the engine kept it in its memory when it wrote the
   * file (src/execution/attempt-gates.ts) — never read back from the file, which the agent may have
   * changed by then (a follow-up turn reinstalls the hooks).
   */
  readonly gatesSha256: string;
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

/**
 * A file of the install that belongs in the attempt's directory (`HARMFLOW_GATE_DIR` in `input.env`)
 * rather than in the private home, which the agent can write: its absolute `path`, and its key for
 * `CommandSpec.files`, which are written under the home, so relative to the home (`../<name>`, or
 * further up when the attempt resumes an earlier attempt's session in that attempt's home).
 */
export function attemptFile(input: HookInstallInput, name: string): { readonly path: string; readonly file: string } {
  const dir = input.env[GATE_DIR_ENV];
  if (dir === undefined) throw new Error(`hooks: the install input has no ${GATE_DIR_ENV}`);
  const path = join(dir, name);
  return { path, file: relative(input.homeDir, path) };
}

/** The gate runner's command for each event, as one harness's hooks run it. */
export interface GateRunner {
  /** As one shell command line (quoted). */
  readonly shellCommand: (event: GateEvent) => string;
  /** As an argv, program first. */
  readonly argv: (event: GateEvent) => readonly string[];
}

/**
 * The engine's gate runner command (`input`) for `harness`'s hooks, followed by `--harness <harness>
 * --sha256 <hex>` (`input.gatesSha256`): the runner trusts the attempt's gates file only when its
 * bytes have that digest.
 */
export function gateRunner(input: HookInstallInput, harness: HarnessName): GateRunner {
  const words = gateArgsWords({ harness, sha256: input.gatesSha256 });
  return {
    shellCommand: (event) => [input.shellCommand(event), ...words.map(shellWord)].join(' '),
    argv: (event) => [...input.argv(event), ...words],
  };
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
