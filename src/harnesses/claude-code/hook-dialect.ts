/**
 * Claude Code's hook protocol (reference note §8; Claude Code 2.1.332): the JSON a hook program reads
 * on stdin (hook-json.ts reads it, with Claude Code's tools and `tool_response`) and the answer it
 * writes. `PreToolUse` (before a call; the only one that can deny it), `PostToolUse` (after a call
 * that completed) or `PostToolUseFailure` (after one that failed), both read as HarmFlow's
 * `PostToolUse` (none fires for a denied call), and `Stop`. The answer's shape is also
 * Codex's and that of HarmFlow's OpenCode plugin. Loaded by the gate runner: `zod/mini` only.
 */
import * as z from 'zod/mini';
import type { GateEvent } from '../../gates/hook-event.js';
import type { ToolCall, ToolResult } from '../../gates/tool-call.js';
import type { Verdict } from '../../gates/verdict.js';
import { parseHookJson, pathField, type ToolTable } from '../hook-json.js';
import type { HookAnswer, HookDialect } from '../hooks.js';

const filePath = pathField('file_path');
const searchPath = pathField('path');
const notebookPath = pathField('notebook_path');

/** Claude Code's tools by kind, with how to read the paths each names. */
const CLAUDE_TOOLS: ToolTable = {
  Bash: { kind: 'shell', paths: () => [] },
  Write: { kind: 'write', paths: filePath },
  Edit: { kind: 'write', paths: filePath },
  MultiEdit: { kind: 'write', paths: filePath },
  NotebookEdit: { kind: 'write', paths: (input) => orElse(notebookPath(input), filePath(input)) },
  Read: { kind: 'read', paths: filePath },
  NotebookRead: { kind: 'read', paths: (input) => orElse(notebookPath(input), filePath(input)) },
  Glob: { kind: 'read', paths: searchPath },
  Grep: { kind: 'read', paths: searchPath },
  LS: { kind: 'read', paths: searchPath },
};

function orElse(first: string[], second: string[]): string[] {
  return first.length > 0 ? first : second;
}

/**
 * Claude Code's `tool_response`: for Bash `{stdout, stderr, interrupted, isImage}`, for file tools
 * an object about the file (`{filePath, …}`, some with `success`), for a few a plain string. Every
 * field is optional and an unexpected shape reads as an ok call without output. PostToolUse fires for
 * a call that completed, so it is ok unless it says it was interrupted or did not succeed. Bash
 * reports no exit code here, so none is given.
 */
const ToolResponse = z.looseObject({
  stdout: z.optional(z.string()),
  stderr: z.optional(z.string()),
  interrupted: z.optional(z.boolean()),
  success: z.optional(z.boolean()),
});

function toolResult(response: unknown, _call: ToolCall, hook: Readonly<Record<string, unknown>>): ToolResult {
  if (hook.hook_event_name === FAILURE) return failedResult(hook);
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

/**
 * Claude Code's answer: a deny is `permissionDecision: "deny"` on stdout with exit 0 (the agent reads
 * the reason as the tool's error); an allow is an empty stdout, which leaves the call to Claude Code's
 * own permission mode.
 */
export function claudeShapedAnswer(event: GateEvent, verdict: Verdict): HookAnswer {
  if (event !== 'PreToolUse' || verdict.decision === 'allow') return { stdout: '', exitCode: 0 };
  const hookSpecificOutput = {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    permissionDecisionReason: verdict.message,
  };
  return { stdout: `${JSON.stringify({ hookSpecificOutput })}\n`, exitCode: 0 };
}

/** What Claude Code sends, instead of `PostToolUse`, after a call that failed (an error, a non-zero exit). */
const FAILURE = 'PostToolUseFailure';

const Failure = z.looseObject({ error: z.optional(z.string()), is_interrupt: z.optional(z.boolean()) });
const EXIT_LINE = /^Exit code (\d+)\b/;

/**
 * `PostToolUseFailure` (Claude Code 2.1.332's binary: `{…, error, is_interrupt, duration_ms}`): the call
 * failed. `error` is what the agent read as the tool's error; a shell call's starts `Exit code N`
 * (as its `tool_result` does), which gives the exit code.
 */
function failedResult(hook: Readonly<Record<string, unknown>>): ToolResult {
  const error = Failure.safeParse(hook).data?.error;
  const exit = error === undefined ? undefined : EXIT_LINE.exec(error)?.[1];
  return {
    ok: false,
    ...(error !== undefined && { output: error }),
    ...(exit !== undefined && { exitCode: Number(exit) }),
  };
}

const CLAUDE_EVENT_NAMES = { PreToolUse: 'PreToolUse', PostToolUse: ['PostToolUse', FAILURE], Stop: 'Stop' } as const;

export const claudeHookDialect: HookDialect = {
  parse: (event, text) =>
    parseHookJson(event, text, { eventNames: CLAUDE_EVENT_NAMES, tools: CLAUDE_TOOLS, result: toolResult }),
  answer: claudeShapedAnswer,
  // A failed call comes as `PostToolUseFailure`, a shell call's with its `Exit code N`.
  reportsExitStatus: true,
};
