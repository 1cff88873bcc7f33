/**
 * Codex's hook protocol (codex-cli 0.171.0 `exec`, verified; notes in docs/harnesses.md): the one JSON
 * object a hook program reads on stdin, parsed at the edge into the harness-neutral `HookInput`, and
 * the answer it writes. Codex names its shell tool `Bash` here (the model's `exec_command`) with
 * `tool_input.command` one command line, and `apply_patch` with the patch text in `tool_input.command`;
 * `tool_response` is a string. A denied call fires no `PostToolUse`.
 * hook-json.ts reads the input with Codex's tools and `tool_response`. Loaded by the gate runner:
 * `zod/mini` only.
 */
import * as z from 'zod/mini';
import { shellWord } from '../../core/shell-words.js';
import type { GateEvent } from '../../gates/hook-event.js';
import type { ToolResult } from '../../gates/tool-call.js';
import { deny, type Verdict } from '../../gates/verdict.js';
import { claudeShapedAnswer } from '../claude-code/hook-dialect.js';
import { parseHookJson, patchPaths, type ToolTable } from '../hook-json.js';
import type { HookAnswer, HookDialect } from '../hooks.js';

const CommandInput = z.looseObject({ command: z.union([z.string(), z.array(z.string())]) });
const CmdInput = z.looseObject({ cmd: z.string() });

/**
 * The command line of a shell call: `command` as a string (what 0.171.0 sends), or as an argv whose
 * shell wrapper (`["bash", "-lc", "<script>"]`) is unwrapped to the script; the model-facing
 * `exec_command`'s `cmd` otherwise.
 */
function shellCommand(input: unknown): string | undefined {
  const command = CommandInput.safeParse(input).data?.command;
  if (typeof command === 'string') return command;
  if (command !== undefined) return argvCommand(command);
  return CmdInput.safeParse(input).data?.cmd;
}

const SHELLS = /^(?:.*\/)?(?:bash|sh|zsh)$/;

function argvCommand(argv: readonly string[]): string {
  const [program, flag, script, ...more] = argv;
  const wrapped = program !== undefined && SHELLS.test(program) && (flag === '-c' || flag === '-lc');
  if (wrapped && script !== undefined && more.length === 0) return script;
  return argv.map(shellWord).join(' ');
}

const PatchInput = z.looseObject({ command: z.string() });

/** The files an `apply_patch` call changes, from the patch text in `tool_input.command`. */
function patchFiles(input: unknown): string[] {
  return patchPaths(PatchInput.safeParse(input).data?.command ?? (typeof input === 'string' ? input : ''));
}

const shellTool = { kind: 'shell', paths: () => [] } as const;

/**
 * Codex's tools by kind. `Bash` is the name 0.171.0 gives its shell tool in hooks; the model-facing
 * names (`exec_command`, `shell_command`, `shell`) read the same way.
 */
const CODEX_TOOLS: ToolTable = {
  Bash: shellTool,
  exec_command: shellTool,
  shell_command: shellTool,
  shell: shellTool,
  apply_patch: { kind: 'write', paths: patchFiles },
};

const EXIT_CODE_LINE = /^Exit code: (\d+)\n/;

/**
 * Codex's `tool_response`: a string. For `Bash` it is the command's output (stdout and stderr as they
 * came) and nothing says how it exited, so the call reads as ok with no exit code. For `apply_patch`
 * it starts `Exit code: N`, which decides `ok`. Any other shape reads as an ok call without output.
 */
function toolResult(response: unknown): ToolResult {
  if (typeof response !== 'string') return { ok: true };
  const exit = EXIT_CODE_LINE.exec(response)?.[1];
  return { ok: exit === undefined || exit === '0', output: response };
}

/** The reason sent for a deny whose message is blank: Codex ignores a deny with an empty reason and runs the call. */
const BLANK_REASON = 'denied by a HarmFlow gate';

/**
 * Codex's answer: a deny is `permissionDecision: "deny"` on stdout with exit 0, and the model reads
 * `Command blocked by PreToolUse hook: <reason>. Command: <the command or patch>` as the tool's output
 * (Codex adds the `. `, so one trailing period of the reason is dropped). An allow, and every answer on
 * `PostToolUse` and `Stop`, is an empty stdout with exit 0: Codex then does what it would have done.
 */
function answer(event: GateEvent, verdict: Verdict): HookAnswer {
  if (verdict.decision === 'allow') return claudeShapedAnswer(event, verdict);
  return claudeShapedAnswer(event, deny(verdict.message.trim().replace(/\.$/, '') || BLANK_REASON));
}

export const codexHookDialect: HookDialect = {
  parse: (event, text) =>
    parseHookJson(event, text, {
      tools: CODEX_TOOLS,
      shell: (input, cwd) => ({ command: shellCommand(input), cwd }),
      result: toolResult,
    }),
  answer,
  // `tool_response` of a shell call is its output alone: its JSON stream's `exit_code` is the record.
  reportsExitStatus: false,
};
