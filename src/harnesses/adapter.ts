/**
 * The harness adapter seam. An adapter is data plus pure functions: it knows one CLI's flags,
 * environment, stream format and failure signatures, and nothing about executions, stores or
 * processes. The engine spawns what `command` returns (through src/proc), feeds every stdout line
 * to a parser from `createParser`, and asks `classify` how the turn ended.
 */
import type { HarnessName, Outcome } from '../core/outcome.js';
import type { HarnessEvent } from '../events/schema.js';
import type { HarnessHooks } from './hooks.js';

/** What the engine knows when it builds a command line for one turn. */
export interface CommandInput {
  /** The prompt of this turn (for a new attempt: the task prompt plus the handoff). */
  readonly prompt: string;
  /** The worktree the CLI works in (its cwd). */
  readonly cwd: string;
  /** A private directory for this attempt (HOME and the CLI's config dir live under it). */
  readonly homeDir: string;
  readonly model?: string;
  /** Extra arguments from the task, appended after HarmFlow's own. */
  readonly extraArgs: readonly string[];
  /**
   * Environment the task sets explicitly (literal values and passed-through host variables), and
   * always `TZ`: the task's, else HarmFlow's own zone (`harnessTimeZone`).
   */
  readonly env: Readonly<Record<string, string>>;
  /** The harness session to resume (a follow-up turn of the same attempt); absent on a first turn. */
  readonly resumeSessionId?: string;
  /** PATH for the CLI: HarmFlow's own bin directories first, then the host's. */
  readonly path: string;
}

/** A process to start: argv (no shell) and its complete environment. */
export interface CommandSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Folders to create under `homeDir` before the start (the private HOME and config dirs). */
  readonly dirs: readonly string[];
  /** Files to write under `homeDir` before the start (e.g. Codex's config.toml), path → content. */
  readonly files: Readonly<Record<string, string>>;
}

/** What the engine knows when a turn's process has ended. */
export interface ClassifyInput {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** Every event the parser produced for this turn, in order. */
  readonly events: readonly HarnessEvent[];
  /** The last few KiB of stderr. */
  readonly stderrTail: string;
  /**
   * The IANA zone the harness process ran in (its `TZ`, see `harnessTimeZone`), for a CLI that
   * prints its reset as a wall time without naming the zone (Codex's `try again at 9:31 AM`).
   */
  readonly timeZone: string;
}

/** How a turn ended, as far as the harness's own output tells. */
export interface Classification {
  /** One of completed, quota_exhausted, rate_limited, overloaded, auth_failed, failed, crashed. */
  readonly outcome: Outcome;
  /** The harness's own words for it (result text, error message, stderr line). */
  readonly message?: string;
  /** When the quota or limit resets, ISO 8601, when the CLI said so. */
  readonly resetsAt?: string;
}

/** Turns stdout lines into events; one per turn, so it may keep state across lines. Never throws. */
export type LineParser = (line: string) => HarnessEvent[];

export interface HarnessAdapter {
  readonly name: HarnessName;
  /** The executable looked up on PATH, e.g. `claude`, `codex`. */
  readonly binary: string;
  /** The npm package that installs it (for the "not installed" error). */
  readonly npmPackage: string;
  /**
   * The host variables that give the CLI its credentials and endpoint, as its docs name them: what a
   * link not in the task's chain (a switch by hand) passes through, having no `passEnv` of its own.
   */
  readonly credentialEnv: readonly string[];
  command(input: CommandInput): CommandSpec;
  createParser(): LineParser;
  /**
   * Optional: watches the CLI's stderr while a turn runs, for a CLI whose failure shows there long
   * before it ends (OpenCode retries a quota 429 five times, ~75 s, with nothing on stdout). Returns
   * how the turn ended as soon as a line tells; the engine then interrupts the CLI and takes that
   * classification. One watcher per turn; may keep state across lines; never throws.
   */
  createStderrWatcher?(): (line: string) => Classification | undefined;
  classify(input: ClassifyInput): Classification;
  /**
   * How the gates are installed, when the CLI calls hooks around its tool calls (src/harnesses/hooks.ts).
   * Absent: the gates run on the attempt's event stream after the fact, recording, not blocking.
   */
  readonly hooks?: HarnessHooks;
}
