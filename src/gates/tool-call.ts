/**
 * The harness-neutral view of one tool call and its result that every gate reads. The hook input of
 * a harness (its hook dialect, src/harnesses/<harness>/hook-dialect.ts) is normalized into these; a gate never sees a
 * harness's own tool names or input shapes. Plain data, no behaviour.
 */

/**
 * What a call does, as far as its tool's name and input tell: `shell` runs a command line, `write`
 * changes the files in `paths`, `read` only reads them, `other` is anything else (web fetches, plans,
 * sub-agents, tools HarmFlow does not know).
 */
export type ToolKind = 'shell' | 'write' | 'read' | 'other';

export interface ToolCall {
  /** The harness's id of the call (Claude Code's `tool_use_id`); absent when the harness gave none. */
  readonly id?: string;
  /** The harness's own tool name, e.g. `Bash`, `Edit`. */
  readonly tool: string;
  readonly kind: ToolKind;
  /** The command line of a `shell` call, as the agent wrote it. */
  readonly command?: string;
  /** The files the call names (written for `write`, read for `read`), as given: maybe relative. */
  readonly paths: readonly string[];
  /** The directory the harness reported the call runs in; relative paths resolve against it. */
  readonly cwd?: string;
  /** The tool's input exactly as the harness sent it. */
  readonly input: unknown;
}

export interface ToolResult {
  /** False when the tool reported a failure or was interrupted. */
  readonly ok: boolean;
  /** What the tool printed (a shell call's stdout, then its stderr). */
  readonly output?: string;
  /** A shell call's exit code, only when the harness reported one. */
  readonly exitCode?: number;
}
