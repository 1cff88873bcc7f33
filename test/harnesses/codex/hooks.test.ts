import { describe, expect, it } from 'vitest';
import { type GateEvent, HookInputError } from '../../../src/gates/hook-event.js';
import { ALLOW, allowNoting, deny } from '../../../src/gates/verdict.js';
import { CODEX_CONFIG, CODEX_CONFIG_FILE, codexCommand } from '../../../src/harnesses/codex/command.js';
import { codexHookDialect } from '../../../src/harnesses/codex/hook-dialect.js';
import { CODEX_HOOKS_FILE, codexHooks } from '../../../src/harnesses/codex/hooks.js';
import { commandInput, GATE, GATES_SHA256, hookFixture, json } from '../hook-fixture.js';

const fixture = (name: string) => hookFixture('codex', name);

const base = commandInput({ extraArgs: ['-c', 'model_provider="sim"'], env: { HARMFLOW_SIM_API_KEY: 'sk-sim-0000' } });

const gate = GATE;

describe('codexHooks.install', () => {
  it('declares the three verified events', () => {
    expect(codexHooks.events).toEqual(['PreToolUse', 'PostToolUse', 'Stop']);
  });

  it('adds the trust flag right after `exec` and a hooks.json next to config.toml; nothing else changes', () => {
    const spec = codexCommand(base);
    const installed = codexHooks.install(spec, gate);

    expect(installed.args).toEqual([spec.args[0], '--dangerously-bypass-hook-trust', ...spec.args.slice(1)]);
    expect(installed.args.at(-1)).toBe('Add a README');
    expect(installed.env).toEqual(spec.env);
    expect(installed.dirs).toEqual(spec.dirs);
    expect(installed.command).toBe('codex');
    expect(CODEX_HOOKS_FILE).toBe('codex-home/hooks.json');
    expect(installed.files[CODEX_CONFIG_FILE]).toBe(CODEX_CONFIG);
    expect(JSON.parse(installed.files[CODEX_HOOKS_FILE] ?? '')).toEqual({
      hooks: Object.fromEntries(
        (['PreToolUse', 'PostToolUse', 'Stop'] as const).map((event) => [
          event,
          [
            {
              hooks: [
                {
                  type: 'command',
                  command: `'/opt/harm flow/bin/harmflow' gate ${event} --harness codex --sha256 ${GATES_SHA256}`,
                  timeout: 600,
                },
              ],
            },
          ],
        ]),
      ),
    });
    // Pure: the spec it was given is untouched.
    expect(spec.files[CODEX_HOOKS_FILE]).toBeUndefined();
    expect(spec.args).not.toContain('--dangerously-bypass-hook-trust');
  });

  it('keeps the flag before `resume <thread>` on a follow-up turn', () => {
    const installed = codexHooks.install(codexCommand({ ...base, resumeSessionId: 'th-1' }), gate);
    const flag = installed.args.indexOf('--dangerously-bypass-hook-trust');
    expect(flag).toBe(1);
    expect(installed.args.slice(-3)).toEqual(['resume', 'th-1', 'Add a README']);
  });

  it('refuses a command that is not `codex exec`', () => {
    expect(() => codexHooks.install({ ...codexCommand(base), args: ['login'] }, gate)).toThrow(/codex exec/);
  });
});

describe('codexHookDialect.parse: recorded inputs', () => {
  it('PreToolUse Bash → a shell call with its command line', () => {
    expect(codexHookDialect.parse('PreToolUse', fixture('pre-tool-use-bash'))).toStrictEqual({
      event: 'PreToolUse',
      sessionId: '01a23134-d592-7823-ace7-401e1c0f366e',
      cwd: '/srv/wt',
      call: {
        id: 'call_sim00000002',
        tool: 'Bash',
        kind: 'shell',
        command: 'echo out; echo err >&2; exit 3',
        paths: [],
        cwd: '/srv/wt',
        input: { command: 'echo out; echo err >&2; exit 3' },
      },
    });
  });

  it('PostToolUse Bash → its output; Codex gives no exit code, so none is claimed', () => {
    const input = codexHookDialect.parse('PostToolUse', fixture('post-tool-use-bash'));
    expect(input).toMatchObject({
      event: 'PostToolUse',
      call: { kind: 'shell', command: 'echo out; echo err >&2; exit 3' },
    });
    expect(input.event === 'PostToolUse' && input.result).toStrictEqual({ ok: true, output: 'out\nerr\n' });
  });

  it('PreToolUse apply_patch → a write of the patched file, as the patch names it', () => {
    const input = codexHookDialect.parse('PreToolUse', fixture('pre-tool-use-apply-patch'));
    expect(input).toMatchObject({
      event: 'PreToolUse',
      call: { id: 'call_sim00000002', tool: 'apply_patch', kind: 'write', paths: ['patched.txt'], cwd: '/srv/wt' },
    });
    expect(input.event === 'PreToolUse' && input.call.command).toBeUndefined();
  });

  it('PostToolUse apply_patch → ok from its `Exit code: 0` line', () => {
    const input = codexHookDialect.parse('PostToolUse', fixture('post-tool-use-apply-patch'));
    expect(input.event === 'PostToolUse' && input.result).toStrictEqual({
      ok: true,
      output: 'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA patched.txt\n',
    });
  });

  it('Stop → session and cwd', () => {
    expect(codexHookDialect.parse('Stop', fixture('stop'))).toStrictEqual({
      event: 'Stop',
      sessionId: '01a23134-d592-7823-ace7-401e1c0f366e',
      cwd: '/srv/wt',
    });
  });
});

describe('codexHookDialect.parse: other shapes', () => {
  const pre = JSON.parse(fixture('pre-tool-use-bash')) as Record<string, unknown>;
  const parseCall = (fields: Record<string, unknown>) => {
    const input = codexHookDialect.parse('PreToolUse', json({ ...pre, ...fields }));
    if (input.event !== 'PreToolUse') throw new Error('not PreToolUse');
    return input.call;
  };

  it.each([
    [['bash', '-lc', 'echo hi > a.txt'], 'echo hi > a.txt'],
    [['/bin/zsh', '-c', 'ls'], 'ls'],
    [['git', 'commit', '-m', "it's done"], `git commit -m 'it'\\''s done'`],
  ])('a command given as argv %j reads as %j', (command, expected) => {
    expect(parseCall({ tool_input: { command } }).command).toBe(expected);
  });

  it('reads the model-facing exec_command {cmd} as a shell call', () => {
    expect(parseCall({ tool_name: 'exec_command', tool_input: { cmd: 'make test' } })).toMatchObject({
      kind: 'shell',
      command: 'make test',
    });
  });

  it('takes every file a multi-file patch changes, once', () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: src/a.ts',
      '*** Move to: src/b.ts',
      '@@',
      '-old',
      '+new',
      '*** Delete File: /srv/wt/old.txt',
      '*** Add File: docs/new file.md',
      '+hello',
      '*** Update File: src/a.ts',
      '*** End Patch',
    ].join('\n');
    expect(parseCall({ tool_name: 'apply_patch', tool_input: { command: patch } }).paths).toEqual([
      'src/a.ts',
      'src/b.ts',
      '/srv/wt/old.txt',
      'docs/new file.md',
    ]);
  });

  it('an unknown tool, or a known one with an unexpected input, is kind other / kind without details', () => {
    expect(parseCall({ tool_name: 'mcp__docs__search', tool_input: { q: 'x' } })).toMatchObject({
      tool: 'mcp__docs__search',
      kind: 'other',
      paths: [],
    });
    const odd = parseCall({ tool_input: { script: 'ls' } });
    expect(odd).toMatchObject({ kind: 'shell', paths: [] });
    expect(odd.command).toBeUndefined();
    expect(parseCall({ tool_name: 'apply_patch', tool_input: 42 })).toMatchObject({ kind: 'write', paths: [] });
  });

  it('a failed apply_patch reads as not ok; a non-string response as ok without output', () => {
    const post = JSON.parse(fixture('post-tool-use-apply-patch')) as Record<string, unknown>;
    const result = (tool_response: unknown) => {
      const input = codexHookDialect.parse('PostToolUse', json({ ...post, tool_response }));
      return input.event === 'PostToolUse' ? input.result : undefined;
    };
    expect(result('Exit code: 1\nWall time: 0 seconds\nOutput:\nverification failed\n')).toMatchObject({ ok: false });
    expect(result({ content: [] })).toStrictEqual({ ok: true });
  });

  it.each<[string, GateEvent, string]>([
    ['not JSON', 'PreToolUse', 'not json'],
    ['another event', 'PostToolUse', fixture('pre-tool-use-bash')],
    ['no cwd', 'Stop', json({ hook_event_name: 'Stop', session_id: 's' })],
    ['no tool_name', 'PreToolUse', json({ hook_event_name: 'PreToolUse', cwd: '/srv/wt' })],
  ])('%s is a HookInputError', (_, event, text) => {
    expect(() => codexHookDialect.parse(event, text)).toThrow(HookInputError);
  });
});

describe('codexHookDialect.answer', () => {
  it('a PreToolUse deny is permissionDecision deny on stdout, exit 0, without a trailing period', () => {
    const answer = codexHookDialect.answer('PreToolUse', deny('git push is not allowed here.'));
    expect(answer.exitCode).toBe(0);
    expect(JSON.parse(answer.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'git push is not allowed here',
      },
    });
  });

  it('a blank deny message still denies: Codex runs the call when the reason is empty', () => {
    const answer = codexHookDialect.answer('PreToolUse', deny('  '));
    expect(JSON.parse(answer.stdout).hookSpecificOutput.permissionDecisionReason).toBe('denied by a HarmFlow gate');
  });

  it.each<[GateEvent, Parameters<typeof codexHookDialect.answer>[1]]>([
    ['PreToolUse', ALLOW],
    ['PreToolUse', allowNoting(['could not read the command'])],
    ['PostToolUse', ALLOW],
    ['PostToolUse', deny('too late')],
    ['Stop', ALLOW],
    ['Stop', deny('not now')],
  ])('%s with %j is an empty stdout and exit 0', (event, verdict) => {
    expect(codexHookDialect.answer(event, verdict)).toEqual({ stdout: '', exitCode: 0 });
  });
});
