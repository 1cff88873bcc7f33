/**
 * Shared inputs of the gate tests: an execution's facts (made-up paths, no machine's own) and tool
 * calls as `parseHookInput` normalizes Claude Code's.
 */
import type { GateFacts } from '../../src/gates/facts.js';
import type { ToolCall } from '../../src/gates/tool-call.js';

export const WORKTREE = '/srv/harmflow/worktrees/01jexec';
export const BRANCH = 'harmflow/fix-dates-01jexec';

/** An execution on `harmflow/fix-dates-01jexec` from `main`, with nothing done yet. */
export function facts(overrides: Partial<GateFacts> = {}): GateFacts {
  return {
    worktree: WORKTREE,
    tmpdir: '/tmp',
    home: '/home/agent',
    branch: BRANCH,
    baseBranch: 'main',
    pushes: [],
    pullRequests: [],
    ...overrides,
  };
}

/** A Bash call run in the worktree (or `cwd`). */
export function bash(command: string, cwd = WORKTREE): ToolCall {
  return { id: 'toolu_01', tool: 'Bash', kind: 'shell', command, paths: [], cwd, input: { command } };
}

/** A Write call of `path`. */
export function write(path: string, cwd = WORKTREE): ToolCall {
  return { id: 'toolu_02', tool: 'Write', kind: 'write', paths: [path], cwd, input: { file_path: path, content: 'x' } };
}
