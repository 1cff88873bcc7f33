/**
 * Claude Code's hook input — the one JSON object a hook program reads on stdin — parsed at the edge
 * and normalized into the harness-neutral `ToolCall`/`ToolResult` the gates read (reference note §8;
 * Claude Code 2.1.332). Three events: `PreToolUse` (before a call; the only one that can deny it),
 * `PostToolUse` (after a call that completed; Claude Code fires none for a denied call) and `Stop`.
 *
 * Fields are required only where the gates need them (`session_id`, `cwd`, `hook_event_name`,
 * `tool_name`); unknown keys pass through. A tool HarmFlow does not know, or a known tool with an
 * unexpected input, is never an error: it becomes `kind: 'other'` (or its kind without paths). Only
 * input that is not JSON, not an object of a supported event, or lacks a required field is a
 * `HookInputError`, which the gate runner turns into "allow (or deny, failClosed) and record it".
 */
import { z } from 'zod';
import { EXIT, HarmflowError } from '../core/errors.js';
import type { ToolCall, ToolKind, ToolResult } from './tool-call.js';

/** Hook input the gates cannot read. Exit code 1: Claude Code treats it as a non-blocking hook error (2 would block). */
export class HookInputError extends HarmflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.internal, options);
  }
}

export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'Stop'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

const common = { session_id: z.string(), cwd: z.string(), transcript_path: z.string().optional() };
const tool = { tool_name: z.string(), tool_input: z.unknown().optional(), tool_use_id: z.string().optional() };

export const PreToolUseInput = z.looseObject({ hook_event_name: z.literal('PreToolUse'), ...common, ...tool });
export const PostToolUseInput = z.looseObject({
  hook_event_name: z.literal('PostToolUse'),
  ...common,
  ...tool,
  tool_response: z.unknown().optional(),
});
export const StopInput = z.looseObject({
  hook_event_name: z.literal('Stop'),
  ...common,
  stop_hook_active: z.boolean().optional(),
});
const HookJson = z.discriminatedUnion('hook_event_name', [PreToolUseInput, PostToolUseInput, StopInput]);

/** One hook event, normalized. */
export type HookInput =
  | { readonly event: 'PreToolUse'; readonly sessionId: string; readonly cwd: string; readonly call: ToolCall }
  | {
      readonly event: 'PostToolUse';
      readonly sessionId: string;
      readonly cwd: string;
      readonly call: ToolCall;
      readonly result: ToolResult;
    }
  | { readonly event: 'Stop'; readonly sessionId: string; readonly cwd: string; readonly stopHookActive: boolean };

const EventName = z.looseObject({ hook_event_name: z.string() });

/** Parses the text Claude Code wrote on the hook's stdin. Throws `HookInputError`. */
export function parseHookInput(text: string): HookInput {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new HookInputError(`hook input is not JSON: ${text.trim().slice(0, 80) || '(empty)'}`, { cause });
  }
  const name = EventName.safeParse(json);
  if (!name.success) throw new HookInputError('hook input has no hook_event_name', { cause: name.error });
  if (!(HOOK_EVENTS as readonly string[]).includes(name.data.hook_event_name)) {
    throw new HookInputError(
      `unsupported hook event ${JSON.stringify(name.data.hook_event_name)} (supported: ${HOOK_EVENTS.join(', ')})`,
    );
  }
  const parsed = HookJson.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new HookInputError(`${name.data.hook_event_name} hook input: ${problems.join('; ')}`, {
      cause: parsed.error,
    });
  }
  const hook = parsed.data;
  const head = { sessionId: hook.session_id, cwd: hook.cwd };
  switch (hook.hook_event_name) {
    case 'PreToolUse':
      return { event: 'PreToolUse', ...head, call: toolCall(hook) };
    case 'PostToolUse':
      return { event: 'PostToolUse', ...head, call: toolCall(hook), result: toolResult(hook.tool_response) };
    case 'Stop':
      return { event: 'Stop', ...head, stopHookActive: hook.stop_hook_active === true };
  }
}

const ShellInput = z.looseObject({ command: z.string() });
const FilePathInput = z.looseObject({ file_path: z.string() });
const NotebookInput = z.looseObject({ notebook_path: z.string() });
const SearchInput = z.looseObject({ path: z.string() });

/** Claude Code's tools by kind, with how to read the paths each names. */
const TOOLS: Readonly<Record<string, { kind: ToolKind; paths: (input: unknown) => string[] }>> = {
  Bash: { kind: 'shell', paths: () => [] },
  Write: { kind: 'write', paths: (input) => field(FilePathInput, input, 'file_path') },
  Edit: { kind: 'write', paths: (input) => field(FilePathInput, input, 'file_path') },
  MultiEdit: { kind: 'write', paths: (input) => field(FilePathInput, input, 'file_path') },
  NotebookEdit: { kind: 'write', paths: notebookPath },
  Read: { kind: 'read', paths: (input) => field(FilePathInput, input, 'file_path') },
  NotebookRead: { kind: 'read', paths: notebookPath },
  Glob: { kind: 'read', paths: (input) => field(SearchInput, input, 'path') },
  Grep: { kind: 'read', paths: (input) => field(SearchInput, input, 'path') },
  LS: { kind: 'read', paths: (input) => field(SearchInput, input, 'path') },
};

function field<K extends string>(schema: z.ZodType<Record<K, string>>, input: unknown, key: K): string[] {
  const parsed = schema.safeParse(input);
  return parsed.success ? [parsed.data[key]] : [];
}

function notebookPath(input: unknown): string[] {
  const notebook = field(NotebookInput, input, 'notebook_path');
  return notebook.length > 0 ? notebook : field(FilePathInput, input, 'file_path');
}

function toolCall(hook: {
  tool_name: string;
  tool_input?: unknown;
  tool_use_id?: string | undefined;
  cwd: string;
}): ToolCall {
  const known = Object.hasOwn(TOOLS, hook.tool_name) ? TOOLS[hook.tool_name] : undefined;
  const input = hook.tool_input ?? {};
  const command = known?.kind === 'shell' ? ShellInput.safeParse(input).data?.command : undefined;
  return {
    ...(hook.tool_use_id !== undefined && { id: hook.tool_use_id }),
    tool: hook.tool_name,
    kind: known?.kind ?? 'other',
    ...(command !== undefined && { command }),
    paths: known?.paths(input) ?? [],
    cwd: hook.cwd,
    input,
  };
}

/**
 * Claude Code's `tool_response`: for Bash `{stdout, stderr, interrupted, isImage}`, for file tools
 * an object about the file (`{filePath, …}`, some with `success`), for a few a plain string. These
 * shapes are Claude Code's hook documentation's, not yet recorded in the reference note, so every
 * field is optional and an unexpected shape reads as an ok call without output. PostToolUse fires for
 * a call that completed, so it is ok unless it says it was interrupted or did not succeed. Bash
 * reports no exit code here, so none is given.
 */
const ToolResponse = z.looseObject({
  stdout: z.string().optional(),
  stderr: z.string().optional(),
  interrupted: z.boolean().optional(),
  success: z.boolean().optional(),
});

function toolResult(response: unknown): ToolResult {
  if (typeof response === 'string') return { ok: true, output: response };
  const parsed = ToolResponse.safeParse(response);
  if (!parsed.success) return { ok: true };
  const { stdout, stderr, interrupted, success } = parsed.data;
  const output = [stdout, stderr].filter((text): text is string => text !== undefined && text !== '').join('\n');
  return {
    ok: interrupted !== true && success !== false,
    ...((stdout !== undefined || stderr !== undefined) && { output }),
  };
}
