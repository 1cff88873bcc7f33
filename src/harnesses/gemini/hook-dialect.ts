/**
 * Gemini CLI's hook protocol (@google/gemini-cli 0.61.0 headless, verified; notes in
 * docs/harnesses.md): the one JSON object a hook program reads on stdin, parsed at the edge into the
 * harness-neutral `HookInput`, and the answer it writes. Gemini's names for HarmFlow's events are
 * `BeforeTool`, `AfterTool` and `AfterAgent`. Its input carries no id of the tool call. A denied call
 * fires no `AfterTool`, and neither hook fires for a call Gemini rejects for its parameters (a path
 * outside the workspace).
 *
 * hook-json.ts reads the input with Gemini's tools and `tool_response`. Loaded by the gate runner:
 * `zod/mini` only.
 */
import { resolve } from 'node:path';
import * as z from 'zod/mini';
import type { GateEvent } from '../../gates/hook-event.js';
import type { ToolCall, ToolResult } from '../../gates/tool-call.js';
import type { Verdict } from '../../gates/verdict.js';
import { parseHookJson, pathField, type ToolTable } from '../hook-json.js';
import type { HookAnswer, HookDialect } from '../hooks.js';

/** Gemini's name (settings key and `hook_event_name`) for each of HarmFlow's gate events. */
export const GEMINI_HOOK_EVENTS = {
  PreToolUse: 'BeforeTool',
  PostToolUse: 'AfterTool',
  Stop: 'AfterAgent',
} as const satisfies Record<GateEvent, string>;

const filePath = pathField('file_path');
const dirPath = pathField('dir_path');
const ReadManyInput = z.looseObject({ include: z.array(z.string()) });

/**
 * Gemini's tools by kind, with the paths each names (the tool declarations 0.61.0 sends: `file_path`
 * for files, `dir_path` for a search's directory; `read_many_files` takes `include` paths and globs).
 * `search_file_content` is the old name of `grep_search`, which Gemini still accepts; `edit` is an
 * older name of `replace`.
 */
const GEMINI_TOOLS: ToolTable = {
  run_shell_command: { kind: 'shell', paths: () => [] },
  write_file: { kind: 'write', paths: filePath },
  replace: { kind: 'write', paths: filePath },
  edit: { kind: 'write', paths: filePath },
  read_file: { kind: 'read', paths: filePath },
  read_many_files: { kind: 'read', paths: (input) => ReadManyInput.safeParse(input).data?.include ?? [] },
  glob: { kind: 'read', paths: dirPath },
  grep_search: { kind: 'read', paths: dirPath },
  search_file_content: { kind: 'read', paths: dirPath },
  list_directory: { kind: 'read', paths: dirPath },
};

/** `run_shell_command {command, dir_path?}`: the command runs in `dir_path`, resolved against the workspace. */
const ShellInput = z.looseObject({ command: z.string(), dir_path: z.optional(z.string()) });

/**
 * Gemini's `tool_response`: `{llmContent, returnDisplay, error?}`. `llmContent` is what the model
 * reads (a string, or parts); `returnDisplay` what the user sees (for the shell its output as
 * printed, for `write_file` an object with the diff); `error` is there when the tool failed.
 */
const ToolResponse = z.looseObject({
  llmContent: z.optional(z.unknown()),
  returnDisplay: z.optional(z.unknown()),
  error: z.optional(z.unknown()),
});

/**
 * The shell tool's `llmContent` for a command that ran: `Output: <output>`, then `Error: …`,
 * `Exit Code: <n>` (only when not 0), `Signal: …`, `Background PIDs: …` and `Process Group PGID: <n>`
 * lines as they apply, all inside `<untrusted_context>…</untrusted_context>`. Gemini reports the
 * exit code nowhere else.
 */
const SHELL_RAN = /^(?:<untrusted_context>\n)?Output: /;
const SHELL_EXIT =
  /\nExit Code: (\d+)(?:\nSignal: [^\n]*)?(?:\nBackground PIDs: [^\n]*)?(?:\nProcess Group PGID: \d+)?\n?(?:<\/untrusted_context>)?$/;
const SHELL_TROUBLE = /^(?:Exit Code|Signal|Error): /m;

/**
 * The exit code a shell call's `llmContent` reports: its `Exit Code` line; 0 for a command that ran
 * and printed neither that line nor a signal or error line (output that itself holds such a line
 * leaves it unknown); unknown for a cancelled or backgrounded command.
 */
function shellExitCode(content: string): number | undefined {
  const exit = SHELL_EXIT.exec(content);
  if (exit?.[1] !== undefined) return Number(exit[1]);
  return SHELL_RAN.test(content) && !SHELL_TROUBLE.test(content) ? 0 : undefined;
}

function toolResult(response: unknown, call: ToolCall): ToolResult {
  const parsed = ToolResponse.safeParse(response);
  if (!parsed.success) return { ok: true };
  const { llmContent, returnDisplay, error } = parsed.data;
  const failed = error !== undefined && error !== null;
  if (call.kind === 'shell' && typeof llmContent === 'string') {
    const exitCode = shellExitCode(llmContent);
    return {
      ok: !failed && (exitCode === undefined || exitCode === 0),
      ...(typeof returnDisplay === 'string' && { output: returnDisplay }),
      ...(exitCode !== undefined && { exitCode }),
    };
  }
  return { ok: !failed, ...(typeof llmContent === 'string' && { output: llmContent }) };
}

/**
 * Gemini's answer, always exit 0 with one JSON object on stdout: a deny is `decision: "deny"` with
 * the message as `reason` (the model reads `Tool execution blocked: <reason>` as the call's error and
 * the turn goes on); anything else is `decision: "allow"`. Deny is only ever sent on `BeforeTool`: on
 * `AfterTool` it would replace the tool's result, on `AfterAgent` start another turn.
 */
function answer(event: GateEvent, verdict: Verdict): HookAnswer {
  const decision =
    event === 'PreToolUse' && verdict.decision === 'deny'
      ? { decision: 'deny', reason: verdict.message }
      : { decision: 'allow' };
  return { stdout: `${JSON.stringify(decision)}\n`, exitCode: 0 };
}

export const geminiHookDialect: HookDialect = {
  parse: (event, text) =>
    parseHookJson(event, text, {
      eventNames: GEMINI_HOOK_EVENTS,
      tools: GEMINI_TOOLS,
      shell: (input, cwd) => {
        const shell = ShellInput.safeParse(input).data;
        return { command: shell?.command, cwd: shell?.dir_path !== undefined ? resolve(cwd, shell.dir_path) : cwd };
      },
      result: toolResult,
    }),
  answer,
  // `Exit Code: N` in the shell's `llmContent` (its stream reports none: the hook is the record).
  reportsExitStatus: true,
};
