/**
 * Hook input in the shape Claude Code set and Codex, Gemini CLI and HarmFlow's OpenCode plugin follow:
 * one JSON object on stdin with `hook_event_name`, `session_id`, `cwd`, and for a tool call
 * `tool_name`, `tool_input`, `tool_use_id` and (after the call) `tool_response`. Each harness's dialect
 * gives its `HookJsonShape` — its event names, its tools, how its shell tool names its command and
 * directory, how it reports a result — and `parseHookJson` does the rest the same way for all.
 *
 * Fields are required only where the gates need them (`hook_event_name`, `cwd`, `tool_name`); unknown
 * keys pass through. An unknown tool, or a known one with an unexpected input, is never an error: it
 * becomes `kind: 'other'` (or its kind without a command or paths). Input that is not JSON, not the
 * event the runner was called for, or lacks a required field is a `HookInputError`. Loaded by the
 * gate runner: `zod/mini` only.
 */
import * as z from 'zod/mini';
import { type GateEvent, type HookInput, HookInputError } from '../gates/hook-event.js';
import type { ToolCall, ToolKind, ToolResult } from '../gates/tool-call.js';

/** How a harness's tools read: each tool's kind, and the paths its input names. */
export type ToolTable = Readonly<
  Record<string, { readonly kind: ToolKind; readonly paths: (input: unknown) => string[] }>
>;

export interface HookJsonShape {
  /**
   * The harness's `hook_event_name`s for each gate event (Claude Code sends `PostToolUse` after a call
   * that succeeded, `PostToolUseFailure` after one that failed); absent: HarmFlow's own names.
   */
  readonly eventNames?: Readonly<Record<GateEvent, string | readonly string[]>>;
  readonly tools: ToolTable;
  /**
   * The command line of a shell call and the directory it runs in; absent: `tool_input.command` when
   * it is a string, run in the hook's `cwd`.
   */
  readonly shell?: (input: unknown, cwd: string) => { readonly command?: string | undefined; readonly cwd: string };
  /** Reads a finished call's result: its `tool_response`, or any field of the whole `hook` object. */
  readonly result: (response: unknown, call: ToolCall, hook: Readonly<Record<string, unknown>>) => ToolResult;
}

const Head = z.looseObject({
  hook_event_name: z.string(),
  session_id: z.optional(z.string()),
  cwd: z.string(),
});
const ToolHook = z.looseObject({
  tool_name: z.string(),
  tool_input: z.optional(z.unknown()),
  tool_use_id: z.optional(z.string()),
  tool_response: z.optional(z.unknown()),
});
const ShellInput = z.looseObject({ command: z.string() });

/** Parses hook input for `event` in `shape`. Throws `HookInputError`. */
export function parseHookJson(event: GateEvent, text: string, shape: HookJsonShape): HookInput {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new HookInputError(`hook input is not JSON: ${text.trim().slice(0, 80) || '(empty)'}`, { cause });
  }
  const head = Head.safeParse(json);
  if (!head.success) throw new HookInputError(`${event} hook input: ${problems(head.error)}`, { cause: head.error });
  const { hook_event_name: name, session_id: sessionId, cwd } = head.data;
  const named = shape.eventNames?.[event] ?? event;
  const expected: readonly string[] = typeof named === 'string' ? [named] : named;
  if (!expected.includes(name)) {
    const native = expected.length === 1 && expected[0] === event ? '' : ` (${expected.join(' or ')} here)`;
    throw new HookInputError(
      `the gate runner was called for ${event}${native} but the hook input is ${JSON.stringify(name)}`,
    );
  }
  const common = { ...(sessionId !== undefined && { sessionId }), cwd };
  if (event === 'Stop') return { event, ...common };
  const hook = ToolHook.safeParse(json);
  if (!hook.success) throw new HookInputError(`${event} hook input: ${problems(hook.error)}`, { cause: hook.error });
  const call = toolCall(hook.data, cwd, shape);
  if (event === 'PreToolUse') return { event, ...common, call };
  return { event, ...common, call, result: shape.result(hook.data.tool_response, call, hook.data) };
}

function problems(error: z.core.$ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
}

function toolCall(
  hook: { tool_name: string; tool_input?: unknown; tool_use_id?: string | undefined },
  cwd: string,
  shape: HookJsonShape,
): ToolCall {
  const known = Object.hasOwn(shape.tools, hook.tool_name) ? shape.tools[hook.tool_name] : undefined;
  const input = hook.tool_input ?? {};
  const shell =
    known?.kind !== 'shell'
      ? undefined
      : (shape.shell?.(input, cwd) ?? { command: ShellInput.safeParse(input).data?.command, cwd });
  return {
    ...(hook.tool_use_id !== undefined && { id: hook.tool_use_id }),
    tool: hook.tool_name,
    kind: known?.kind ?? 'other',
    ...(shell?.command !== undefined && { command: shell.command }),
    paths: known?.paths(input) ?? [],
    cwd: shell?.cwd ?? cwd,
    input,
  };
}

/** The value of the string field `key` of a tool's input, as a one-path list; none when absent. */
export function pathField(key: string): (input: unknown) => string[] {
  const schema = z.looseObject({ [key]: z.string() });
  return (input) => {
    const parsed = schema.safeParse(input);
    return parsed.success ? [parsed.data[key] as string] : [];
  };
}

const PATCH_FILE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/;

/**
 * The files a patch in the `apply_patch` format (Codex's, OpenCode's) changes: every
 * `*** Add/Update/Delete File:` and `*** Move to:` line, once each, in patch order.
 */
export function patchPaths(patch: string): string[] {
  const paths = patch.split('\n').flatMap((line) => {
    const file = PATCH_FILE.exec(line.trimEnd())?.[1]?.trim();
    return file ? [file] : [];
  });
  return [...new Set(paths)];
}
