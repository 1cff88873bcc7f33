/**
 * Turns a `write` or `shell` reply into a call of a tool the request offered. Which tool depends on
 * the CLI, known only from the tool names it sends: Claude Code `Write`/`Bash`, Codex
 * `apply_patch`/`exec_command` (older: `shell_command`, `shell`), Gemini CLI
 * `write_file`/`run_shell_command`, OpenCode `write`/`bash`. A `write` falls back to a shell command
 * that writes the file when no file-writing tool is offered. Pure.
 */
import { shellQuote } from '../../core/shell-words.js';

/** A tool a request offered. `freeform`: it takes raw text, not JSON (a Responses `custom` tool). */
export interface OfferedTool {
  readonly name: string;
  readonly freeform: boolean;
}

/** A tool call to answer with: JSON arguments, or raw text for a free-form tool. */
export type ToolCall =
  | { readonly name: string; readonly form: 'json'; readonly arguments: Readonly<Record<string, unknown>> }
  | { readonly name: string; readonly form: 'freeform'; readonly input: string };

type Candidate<A> = readonly [name: string, build: (action: A, tool: OfferedTool) => ToolCall];

const json = (name: string, args: Record<string, unknown>): ToolCall => ({ name, form: 'json', arguments: args });

/** The `*** Begin Patch` text that adds `path` with `content` (a missing final newline is added). */
export function addFilePatch(path: string, content: string): string {
  const lines = content.endsWith('\n') ? content.slice(0, -1).split('\n') : content.split('\n');
  return `*** Begin Patch\n*** Add File: ${path}\n${lines.map((line) => `+${line}`).join('\n')}\n*** End Patch\n`;
}

/** A shell command that writes `content` to `path` exactly, creating its folder. */
export function writeFileCommand(path: string, content: string): string {
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  const mkdir = dir !== '' ? `mkdir -p ${shellQuote(dir)} && ` : '';
  return `${mkdir}printf '%s' ${shellQuote(content)} > ${shellQuote(path)}`;
}

interface WriteAction {
  readonly path: string;
  readonly content: string;
}

const WRITE_TOOLS: readonly Candidate<WriteAction>[] = [
  ['Write', (w) => json('Write', { file_path: w.path, content: w.content })],
  ['write_file', (w) => json('write_file', { file_path: w.path, content: w.content })],
  ['write', (w) => json('write', { filePath: w.path, content: w.content })],
  [
    'apply_patch',
    (w, tool) =>
      tool.freeform
        ? { name: 'apply_patch', form: 'freeform', input: addFilePatch(w.path, w.content) }
        : json('apply_patch', { input: addFilePatch(w.path, w.content) }),
  ],
];

const SHELL_TOOLS: readonly Candidate<string>[] = [
  ['Bash', (command) => json('Bash', { command, description: 'Run a command' })],
  ['run_shell_command', (command) => json('run_shell_command', { command })],
  ['bash', (command) => json('bash', { command, description: 'Run a command' })],
  ['exec_command', (command) => json('exec_command', { cmd: command })],
  ['shell_command', (command) => json('shell_command', { command })],
  ['shell', (command) => json('shell', { command: ['bash', '-lc', command] })],
];

function pick<A>(
  candidates: readonly Candidate<A>[],
  offered: readonly OfferedTool[],
  action: A,
): ToolCall | undefined {
  for (const [name, build] of candidates) {
    const tool = offered.find((t) => t.name === name);
    if (tool !== undefined) return build(action, tool);
  }
  return undefined;
}

/** The call that writes `path`; undefined when the request offered neither a write nor a shell tool. */
export function writeCall(action: WriteAction, offered: readonly OfferedTool[]): ToolCall | undefined {
  return pick(WRITE_TOOLS, offered, action) ?? shellCall(writeFileCommand(action.path, action.content), offered);
}

/** The call that runs `command`; undefined when the request offered no shell tool. */
export function shellCall(command: string, offered: readonly OfferedTool[]): ToolCall | undefined {
  return pick(SHELL_TOOLS, offered, command);
}
