/**
 * The `operations` gate (PostToolUse): the operations a finished tool call performed — file changes,
 * commits, pushes, pull requests, test runs — as `operation` event payloads. A thin wrapper: the
 * recognizing is `operationsOf` (src/events/operations.ts), the same code the engine runs on the
 * harness's stream, so a gate and the engine never disagree about what a command did. This file only
 * maps a gate's `ToolCall`/`ToolResult` onto the `tool.call`/`tool.result` payloads it reads, and
 * makes changed files relative to the worktree as the engine's observer does. Never denies. Pure.
 */
import { isAbsolute, relative } from 'node:path';
import { operationsOf } from '../../events/operations.js';
import type { OperationData } from '../../events/schema.js';
import type { GateFacts } from '../facts.js';
import type { ToolCall, ToolResult } from '../tool-call.js';

/** The operations `call` performed, given its `result`, in command order. */
export function operationsGate(
  call: ToolCall,
  result: ToolResult,
  facts: Pick<GateFacts, 'worktree'>,
): OperationData[] {
  const id = call.id ?? '';
  const files =
    call.kind === 'write' ? call.paths.map((file) => (isAbsolute(file) ? relative(facts.worktree, file) : file)) : [];
  const found = operationsOf(
    {
      id,
      name: call.tool,
      input: call.input,
      ...(call.command !== undefined && { shell: call.command }),
      ...(files.length > 0 && { files }),
    },
    {
      id,
      ok: result.ok,
      ...(result.exitCode !== undefined && { exitCode: result.exitCode }),
      ...(result.output !== undefined && { output: result.output }),
    },
  );
  // A call without an id has none to name: drop the placeholder rather than record an empty one.
  return call.id === undefined ? found.map(({ toolId: _, ...operation }) => operation as OperationData) : found;
}
