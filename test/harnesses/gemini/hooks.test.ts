import { describe, expect, it } from 'vitest';
import { type GateEvent, HookInputError } from '../../../src/gates/hook-event.js';
import { ALLOW, allowNoting, deny } from '../../../src/gates/verdict.js';
import { GEMINI_SETTINGS, GEMINI_SETTINGS_FILE, geminiCommand } from '../../../src/harnesses/gemini/command.js';
import { geminiHookDialect } from '../../../src/harnesses/gemini/hook-dialect.js';
import { GEMINI_HOOK_TIMEOUT_MS, geminiHooks } from '../../../src/harnesses/gemini/hooks.js';
import { commandInput, GATE, GATES_SHA256, hookFixture, json } from '../hook-fixture.js';

const fixture = (name: string) => hookFixture('gemini', name);

const base = commandInput({
  extraArgs: [],
  env: { GEMINI_API_KEY: 'sim-0000', GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:4567/s' },
});

const gate = GATE;

function settingsOf(files: Readonly<Record<string, string>>): Record<string, unknown> {
  return JSON.parse(files[GEMINI_SETTINGS_FILE] ?? '') as Record<string, unknown>;
}

describe('geminiHooks.install', () => {
  it('declares the three verified events', () => {
    expect(geminiHooks.events).toEqual(['PreToolUse', 'PostToolUse', 'Stop']);
  });

  it("merges the hooks into the command's own settings file; argv, dirs and other files stay", () => {
    const spec = geminiCommand(base);
    const installed = geminiHooks.install(spec, gate);

    expect(installed.command).toBe(spec.command);
    expect(installed.args).toEqual(spec.args);
    expect(installed.dirs).toEqual(spec.dirs);
    expect(Object.keys(installed.files)).toEqual([GEMINI_SETTINGS_FILE]);
    expect(installed.files[GEMINI_SETTINGS_FILE]?.endsWith('\n')).toBe(true);
    const hook = (event: GateEvent) => [
      {
        hooks: [
          {
            name: `harmflow-gate-${event}`,
            type: 'command',
            command: `${gate.shellCommand(event)} --harness gemini --sha256 ${GATES_SHA256}`,
            env: gate.env,
            timeout: GEMINI_HOOK_TIMEOUT_MS,
          },
        ],
      },
    ];
    expect(settingsOf(installed.files)).toStrictEqual({
      ...(JSON.parse(GEMINI_SETTINGS) as Record<string, unknown>),
      hooksConfig: { enabled: true },
      hooks: { BeforeTool: hook('PreToolUse'), AfterTool: hook('PostToolUse'), AfterAgent: hook('Stop') },
    });
  });

  it("keeps the environment, except a task's GEMINI_CLI_TRUST_WORKSPACE (it would load the worktree's settings)", () => {
    const plain = geminiCommand(base);
    expect(geminiHooks.install(plain, gate).env).toEqual(plain.env);

    const trusting = geminiCommand({ ...base, env: { ...base.env, GEMINI_CLI_TRUST_WORKSPACE: 'true' } });
    const { GEMINI_CLI_TRUST_WORKSPACE: _, ...rest } = trusting.env;
    expect(geminiHooks.install(trusting, gate).env).toEqual(rest);
  });

  it('is pure: the spec it was given is left as it was', () => {
    const spec = geminiCommand(base);
    const before = structuredClone(spec);
    geminiHooks.install(spec, gate);
    expect(spec).toEqual(before);
  });

  it('refuses a command without a settings object', () => {
    const spec = geminiCommand(base);
    expect(() => geminiHooks.install({ ...spec, files: {} }, gate)).toThrow(/no settings object/);
    expect(() => geminiHooks.install({ ...spec, files: { [GEMINI_SETTINGS_FILE]: '[]' } }, gate)).toThrow(
      /no settings object/,
    );
  });
});

describe('geminiHookDialect.parse: recorded inputs', () => {
  const session = { sessionId: 'd5a82b52-803d-4866-b1ea-d70841087b3c', cwd: '/srv/wt' };
  const command = 'echo ran > ran.txt; echo out; echo err >&2; exit 3';

  it('BeforeTool run_shell_command: a shell call with its command, run in the cwd, no id', () => {
    expect(geminiHookDialect.parse('PreToolUse', fixture('before-tool-shell'))).toStrictEqual({
      event: 'PreToolUse',
      ...session,
      call: { tool: 'run_shell_command', kind: 'shell', command, paths: [], cwd: '/srv/wt', input: { command } },
    });
  });

  it('AfterTool run_shell_command exit 3: not ok, the output as shown, the exit code from llmContent', () => {
    const hook = geminiHookDialect.parse('PostToolUse', fixture('after-tool-shell-exit-3'));
    expect(hook).toMatchObject({ event: 'PostToolUse', ...session, call: { kind: 'shell', command } });
    expect(hook.event === 'PostToolUse' && hook.result).toStrictEqual({ ok: false, output: 'out\nerr', exitCode: 3 });
  });

  it('AfterTool run_shell_command exit 0: ok with exit code 0 (Gemini prints no Exit Code line for 0)', () => {
    const hook = geminiHookDialect.parse('PostToolUse', fixture('after-tool-shell-ok'));
    expect(hook.event === 'PostToolUse' && hook.result).toStrictEqual({ ok: true, output: 'ok', exitCode: 0 });
  });

  it('BeforeTool and AfterTool write_file: a write naming its file_path; the result is llmContent', () => {
    const pre = geminiHookDialect.parse('PreToolUse', fixture('before-tool-write'));
    expect(pre.event === 'PreToolUse' && pre.call).toStrictEqual({
      tool: 'write_file',
      kind: 'write',
      paths: ['w.txt'],
      cwd: '/srv/wt',
      input: { file_path: 'w.txt', content: 'hello\n' },
    });
    const post = geminiHookDialect.parse('PostToolUse', fixture('after-tool-write'));
    expect(post.event === 'PostToolUse' && post.result).toStrictEqual({
      ok: true,
      output: 'Successfully created and wrote to new file: /srv/wt/w.txt. Here is the updated code:\nhello\n',
    });
  });

  it('AfterTool write_file that failed: not ok, with the error text', () => {
    const hook = geminiHookDialect.parse('PostToolUse', fixture('after-tool-write-error'));
    expect(hook.event === 'PostToolUse' && hook.result).toMatchObject({ ok: false, output: /ENOTDIR/ });
  });

  it('AfterAgent is the Stop event', () => {
    expect(geminiHookDialect.parse('Stop', fixture('after-agent'))).toStrictEqual({
      event: 'Stop',
      sessionId: 'd5a82b52-803d-4866-b1ea-d70841087b3c',
      cwd: '/srv/wt',
    });
  });
});

describe('geminiHookDialect.parse: tools', () => {
  const before = JSON.parse(fixture('before-tool-shell')) as Record<string, unknown>;
  const call = (tool: string, input: unknown) => {
    const hook = geminiHookDialect.parse('PreToolUse', json({ ...before, tool_name: tool, tool_input: input }));
    return hook.event === 'PreToolUse' ? hook.call : undefined;
  };

  it.each([
    ['replace', { file_path: 'src/a.ts', instruction: 'i', old_string: 'a', new_string: 'b' }, 'write', ['src/a.ts']],
    ['edit', { file_path: '/srv/wt/e.ts' }, 'write', ['/srv/wt/e.ts']],
    ['write_file', { content: 'no path' }, 'write', []],
    ['read_file', { file_path: '/etc/hosts' }, 'read', ['/etc/hosts']],
    ['read_many_files', { include: ['a.md', 'docs/**/*.md'] }, 'read', ['a.md', 'docs/**/*.md']],
    ['glob', { pattern: '*.ts', dir_path: 'src' }, 'read', ['src']],
    ['grep_search', { pattern: 'x' }, 'read', []],
    ['search_file_content', { pattern: 'x', dir_path: 'lib' }, 'read', ['lib']],
    ['list_directory', { dir_path: '.' }, 'read', ['.']],
    ['web_fetch', { prompt: 'https://example.com' }, 'other', []],
    ['mcp_forge_open_issue', { title: 't' }, 'other', []],
    ['constructor', {}, 'other', []],
  ])('%s with %j is a %s call naming %j', (tool, input, kind, paths) => {
    expect(call(tool, input)).toStrictEqual({ tool, kind, paths, cwd: '/srv/wt', input });
  });

  it('a shell call runs in its dir_path, resolved against the cwd', () => {
    expect(call('run_shell_command', { command: 'make', dir_path: 'pkg/a' })).toMatchObject({
      command: 'make',
      cwd: '/srv/wt/pkg/a',
    });
    expect(call('run_shell_command', { command: 'ls', dir_path: '/srv/other' })?.cwd).toBe('/srv/other');
  });

  it('a shell call without a command string is a shell call without a command', () => {
    expect(call('run_shell_command', { cmd: 'ls' })).toStrictEqual({
      tool: 'run_shell_command',
      kind: 'shell',
      paths: [],
      cwd: '/srv/wt',
      input: { cmd: 'ls' },
    });
  });
});

describe('geminiHookDialect.parse: shell results', () => {
  const after = JSON.parse(fixture('after-tool-shell-ok')) as Record<string, unknown>;
  const result = (response: unknown) => {
    const hook = geminiHookDialect.parse('PostToolUse', json({ ...after, tool_response: response }));
    return hook.event === 'PostToolUse' ? hook.result : undefined;
  };
  const wrap = (text: string) => `<untrusted_context>\n${text}\n</untrusted_context>`;

  it('reads an exit code followed by a signal line, and leaves it unknown when the output mimics one', () => {
    expect(result({ llmContent: wrap('Output: x\nExit Code: 137\nSignal: 9\nProcess Group PGID: 5') })).toStrictEqual({
      ok: false,
      exitCode: 137,
    });
    expect(
      result({ llmContent: wrap('Output: build log\nExit Code: 0 seen\nProcess Group PGID: 5'), returnDisplay: 'x' }),
    ).toStrictEqual({ ok: true, output: 'x' });
  });

  it('leaves the exit code unknown for a cancelled command; a response it cannot read is an ok call', () => {
    expect(result({ llmContent: 'Command was cancelled by user before it could complete.' })).toStrictEqual({
      ok: true,
    });
    expect(result('not an object')).toStrictEqual({ ok: true });
    expect(result(undefined)).toStrictEqual({ ok: true });
  });
});

describe('geminiHookDialect.parse: input it cannot read', () => {
  const before = JSON.parse(fixture('before-tool-shell')) as Record<string, unknown>;

  it.each([
    ['not JSON', 'PreToolUse', '{"session_id": ', /not JSON/],
    ['empty', 'PreToolUse', '', /not JSON: \(empty\)/],
    ['not an object', 'PreToolUse', '[1,2]', /PreToolUse hook input: \(root\):/],
    [
      "HarmFlow's own event name",
      'PreToolUse',
      json({ ...before, hook_event_name: 'PreToolUse' }),
      /called for PreToolUse \(BeforeTool here\) but the hook input is "PreToolUse"/,
    ],
    ['another event', 'PostToolUse', fixture('before-tool-shell'), /called for PostToolUse/],
    ['no tool_name', 'PreToolUse', json({ ...before, tool_name: undefined }), /PreToolUse hook input: tool_name:/],
    ['a numeric cwd', 'Stop', json({ ...before, hook_event_name: 'AfterAgent', cwd: 7 }), /cwd:/],
  ] as const)('%s is a HookInputError with a message that says so', (_case, event, text, message) => {
    const attempt = () => geminiHookDialect.parse(event, text);
    expect(attempt).toThrow(HookInputError);
    expect(attempt).toThrow(message);
  });
});

describe('geminiHookDialect.answer', () => {
  it('denies a BeforeTool call with decision "deny" and the message as the reason, exit 0', () => {
    const answer = geminiHookDialect.answer('PreToolUse', deny('a pull request exists: https://forge/pr/1'));
    expect(answer.exitCode).toBe(0);
    expect(JSON.parse(answer.stdout)).toStrictEqual({
      decision: 'deny',
      reason: 'a pull request exists: https://forge/pr/1',
    });
  });

  it('allows with decision "allow", notes or not, and never denies after the call or at the end of the turn', () => {
    const allow = { stdout: '{"decision":"allow"}\n', exitCode: 0 };
    expect(geminiHookDialect.answer('PreToolUse', ALLOW)).toStrictEqual(allow);
    expect(geminiHookDialect.answer('PreToolUse', allowNoting(['could not read x']))).toStrictEqual(allow);
    expect(geminiHookDialect.answer('PostToolUse', deny('x'))).toStrictEqual(allow);
    expect(geminiHookDialect.answer('Stop', deny('x'))).toStrictEqual(allow);
  });
});
