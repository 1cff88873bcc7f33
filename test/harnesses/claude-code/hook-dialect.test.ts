import { describe, expect, it } from 'vitest';
import { GATE_EVENTS, type GateEvent, HookInputError } from '../../../src/gates/hook-event.js';
import { deny } from '../../../src/gates/verdict.js';
import { claudeHookDialect } from '../../../src/harnesses/claude-code/hook-dialect.js';

/** Parses `text` for the event it names (PreToolUse when it names none), as the gate runner called for that event would. */
function parseHookInput(text: string, event: GateEvent = eventOf(text)) {
  return claudeHookDialect.parse(event, text);
}

function eventOf(text: string): GateEvent {
  try {
    const named = (JSON.parse(text) as { hook_event_name?: unknown }).hook_event_name;
    return GATE_EVENTS.find((event) => event === named) ?? 'PreToolUse';
  } catch {
    return 'PreToolUse';
  }
}

/** The PreToolUse input Claude Code 2.1.332 sent (reference note §8), with its placeholders filled. */
const preToolUse = {
  session_id: '773c0f5e-5b0e-4e43-9d55-3f0c1f0e2a11',
  transcript_path: '/home/agent/.claude/projects/-srv-wt/773c0f5e.jsonl',
  cwd: '/srv/wt',
  prompt_id: 'p_01',
  permission_mode: 'bypassPermissions',
  effort: { level: 'medium' },
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'echo hello > claude_bash.txt && cat claude_bash.txt', description: 'Create a file' },
  tool_use_id: 'toolu_01AbC',
};

const json = (value: unknown) => JSON.stringify(value);

describe('parseHookInput: PreToolUse', () => {
  it('normalizes the recorded Bash call: shell kind, its command, its cwd, the raw input kept', () => {
    expect(parseHookInput(json(preToolUse))).toStrictEqual({
      event: 'PreToolUse',
      sessionId: preToolUse.session_id,
      cwd: '/srv/wt',
      call: {
        id: 'toolu_01AbC',
        tool: 'Bash',
        kind: 'shell',
        command: 'echo hello > claude_bash.txt && cat claude_bash.txt',
        paths: [],
        cwd: '/srv/wt',
        input: preToolUse.tool_input,
      },
    });
  });

  it.each([
    ['Write', { file_path: '/srv/wt/a b.txt', content: 'x' }, 'write', ['/srv/wt/a b.txt']],
    ['Edit', { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' }, 'write', ['src/a.ts']],
    ['MultiEdit', { file_path: '/srv/wt/m.ts', edits: [] }, 'write', ['/srv/wt/m.ts']],
    ['NotebookEdit', { notebook_path: '/srv/wt/n.ipynb', new_source: '' }, 'write', ['/srv/wt/n.ipynb']],
    ['Read', { file_path: '/etc/hosts' }, 'read', ['/etc/hosts']],
    ['Grep', { pattern: 'x' }, 'read', []],
    ['Glob', { pattern: '*.ts', path: '/srv/wt/src' }, 'read', ['/srv/wt/src']],
    ['WebFetch', { url: 'https://example.com' }, 'other', []],
    ['mcp__forge__open_issue', { title: 't' }, 'other', []],
    ['Write', { content: 'no path' }, 'write', []],
  ])('%s with %j is a %s call naming %j', (tool, input, kind, paths) => {
    const hook = parseHookInput(json({ ...preToolUse, tool_name: tool, tool_input: input }));
    expect(hook.event === 'PreToolUse' && hook.call).toMatchObject({ tool, kind, paths, input });
  });

  it('reads a call without a tool_use_id, with no id rather than a made-up one', () => {
    const { tool_use_id: _, ...withoutId } = preToolUse;
    const hook = parseHookInput(json(withoutId));
    expect(hook.event === 'PreToolUse' && 'id' in hook.call).toBe(false);
  });

  it('treats a tool named like an Object prototype key as unknown', () => {
    const hook = parseHookInput(json({ ...preToolUse, tool_name: 'constructor' }));
    expect(hook.event === 'PreToolUse' && hook.call.kind).toBe('other');
  });
});

describe('parseHookInput: PostToolUse', () => {
  it("reads Bash's tool_response: stdout then stderr, ok, and no exit code (Claude Code gives none)", () => {
    const hook = parseHookInput(
      json({
        ...preToolUse,
        hook_event_name: 'PostToolUse',
        tool_input: { command: 'git commit -m "Fix dates"' },
        tool_response: { stdout: '[main 1a2b3c4] Fix dates', stderr: 'hint: x', interrupted: false, isImage: false },
      }),
    );
    expect(hook.event === 'PostToolUse' && hook.result).toStrictEqual({
      ok: true,
      output: '[main 1a2b3c4] Fix dates\nhint: x',
    });
  });

  it('reads an interrupted call as not ok, a file tool answer as ok without output, a string as output', () => {
    const post = (response: unknown) =>
      parseHookInput(json({ ...preToolUse, hook_event_name: 'PostToolUse', tool_response: response }));
    const result = (response: unknown) => {
      const hook = post(response);
      return hook.event === 'PostToolUse' ? hook.result : undefined;
    };
    expect(result({ stdout: '', stderr: '', interrupted: true })).toStrictEqual({ ok: false, output: '' });
    expect(result({ filePath: '/srv/wt/a.txt', success: true })).toStrictEqual({ ok: true });
    expect(result({ filePath: '/srv/wt/a.txt', success: false })).toStrictEqual({ ok: false });
    expect(result('done')).toStrictEqual({ ok: true, output: 'done' });
    expect(result(undefined)).toStrictEqual({ ok: true });
  });
});

describe('parseHookInput: Stop', () => {
  it('reads the session and the cwd', () => {
    const stop = { session_id: 's1', transcript_path: '/t.jsonl', cwd: '/srv/wt', hook_event_name: 'Stop' };
    expect(parseHookInput(json({ ...stop, stop_hook_active: true }))).toStrictEqual({
      event: 'Stop',
      sessionId: 's1',
      cwd: '/srv/wt',
    });
  });
});

describe('parseHookInput: input it cannot read', () => {
  it.each([
    ['not JSON', '{"session_id": ', /not JSON/],
    ['empty', '', /not JSON: \(empty\)/],
    ['not an object', '[1,2]', /PreToolUse hook input: \(root\):/],
    [
      'another event than the runner was called for',
      json({ ...preToolUse, hook_event_name: 'SessionStart' }),
      /called for PreToolUse but the hook input is "SessionStart"/,
    ],
    ['no tool_name', json({ ...preToolUse, tool_name: undefined }), /PreToolUse hook input: tool_name:/],
    ['a numeric cwd', json({ ...preToolUse, cwd: 7 }), /cwd:/],
  ])('%s is a HookInputError with a message that says so', (_case, text, message) => {
    const attempt = () => parseHookInput(text);
    expect(attempt).toThrow(HookInputError);
    expect(attempt).toThrow(message);
  });

  it('carries exit code 1, which Claude Code does not read as a block (2 would be)', () => {
    let caught: unknown;
    try {
      parseHookInput('nope');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(HookInputError);
    expect((caught as HookInputError).exitCode).toBe(1);
  });
});

describe('claudeHookDialect.answer', () => {
  it('denies a PreToolUse call with permissionDecision "deny" and the message as the reason, exit 0', () => {
    const answer = claudeHookDialect.answer('PreToolUse', deny('a pull request exists: https://forge/pr/1'));
    expect(answer.exitCode).toBe(0);
    expect(JSON.parse(answer.stdout)).toStrictEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'a pull request exists: https://forge/pr/1',
      },
    });
  });

  it('allows with an empty answer, and never denies after the call or at the stop', () => {
    expect(claudeHookDialect.answer('PreToolUse', { decision: 'allow' })).toStrictEqual({ stdout: '', exitCode: 0 });
    expect(claudeHookDialect.answer('PostToolUse', deny('x'))).toStrictEqual({ stdout: '', exitCode: 0 });
    expect(claudeHookDialect.answer('Stop', deny('x'))).toStrictEqual({ stdout: '', exitCode: 0 });
  });
});
