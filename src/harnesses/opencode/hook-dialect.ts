/**
 * OpenCode's hook dialect: the JSON HarmFlow's OpenCode plugin (`hooks.ts`) writes on the gate
 * runner's stdin, which is Claude Code's hook input with OpenCode's own tool names and args, and the
 * answer the plugin reads, which is Claude Code's (`permissionDecision: "deny"` on stdout). Both are
 * read and written with Claude Code's dialect; only the tool table and the tool result are OpenCode's:
 *
 * - tools (`opencode-ai@1.18.33`): `bash {command, description, workdir?, timeout?}` is a shell call
 *   (run in `workdir` when given); `write {filePath, content}`, `edit {filePath, oldString,
 *   newString}` and `apply_patch {patchText}` write; `read {filePath}`, `glob`/`grep`/`list {path?}`
 *   read; anything else (`task`, `webfetch`, `todowrite`, `skill`, MCP tools) is `other`.
 * - `tool_response` is the tool's result as OpenCode hands it to `tool.execute.after`:
 *   `{title, output, metadata}`, where bash's `metadata.exit` is the exit code and `output` its
 *   stdout and stderr as they came. A bash call that exited non-zero is not ok, as in the adapter's
 *   parser; any other call that reached PostToolUse completed.
 *
 * Loaded by the gate runner: `zod/mini` only.
 */
import { resolve } from 'node:path';
import * as z from 'zod/mini';
import type { ToolResult } from '../../gates/tool-call.js';
import { claudeShapedAnswer } from '../claude-code/hook-dialect.js';
import { parseHookJson, patchPaths, pathField, type ToolTable } from '../hook-json.js';
import type { HookDialect } from '../hooks.js';

const filePath = pathField('filePath');
const searchPath = pathField('path');

const PatchInput = z.looseObject({ patchText: z.string() });

/** The files an `apply_patch` names: added, updated, deleted and moved-to, in patch order. */
function patchFiles(input: unknown): string[] {
  const parsed = PatchInput.safeParse(input);
  return parsed.success ? patchPaths(parsed.data.patchText) : [];
}

/** OpenCode's tools by kind, with how to read the paths each names. */
export const OPENCODE_TOOLS: ToolTable = {
  bash: { kind: 'shell', paths: () => [] },
  write: { kind: 'write', paths: filePath },
  edit: { kind: 'write', paths: filePath },
  apply_patch: { kind: 'write', paths: patchFiles },
  patch: { kind: 'write', paths: patchFiles },
  read: { kind: 'read', paths: filePath },
  glob: { kind: 'read', paths: searchPath },
  grep: { kind: 'read', paths: searchPath },
  list: { kind: 'read', paths: searchPath },
};

/** `bash {command, workdir?}`: the command runs in `workdir`, resolved against the hook's cwd. */
const BashInput = z.looseObject({ command: z.optional(z.string()), workdir: z.optional(z.string()) });

const ToolResponse = z.looseObject({
  output: z.optional(z.string()),
  metadata: z.optional(z.looseObject({ exit: z.optional(z.nullable(z.number())) })),
});

function opencodeResult(response: unknown): ToolResult {
  const parsed = ToolResponse.safeParse(response);
  if (!parsed.success) return { ok: true };
  const { output } = parsed.data;
  const exitCode = parsed.data.metadata?.exit ?? undefined;
  return {
    ok: exitCode === undefined || exitCode === 0,
    ...(output !== undefined && { output }),
    ...(exitCode !== undefined && { exitCode }),
  };
}

export const opencodeHookDialect: HookDialect = {
  parse: (event, text) =>
    parseHookJson(event, text, {
      tools: OPENCODE_TOOLS,
      shell: (input, cwd) => {
        const bash = BashInput.safeParse(input).data;
        return { command: bash?.command, cwd: bash?.workdir !== undefined ? resolve(cwd, bash.workdir) : cwd };
      },
      result: opencodeResult,
    }),
  answer: claudeShapedAnswer,
  // bash's `metadata.exit`, as on its stream.
  reportsExitStatus: true,
};
