/**
 * OpenCode's gate seam: `opencodeHooks.install` (pure), the plugin it writes (run here under Node
 * with a real hook program: the plugin uses only `node:child_process`, which OpenCode's Bun runtime
 * provides too) and `opencodeHookDialect`. The fixtures under test/fixtures/opencode/hooks/ were
 * captured from the real `opencode-ai@1.18.33` `run` against the model-API simulator, with only the
 * lab paths replaced by `/srv/wt` (the cwd): `plugin-hook-args.json` holds the arguments OpenCode
 * passed the plugin's hooks, and the other files what the plugin wrote on the gate runner's stdin in
 * the same run (`post-bash-exit-3.json`: another run, a command exiting 3).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GateEvent, HookInputError } from '../../../src/gates/hook-event.js';
import { ALLOW, allowNoting, deny } from '../../../src/gates/verdict.js';
import { opencodeCommand, PLUGIN_LOCK_FILE } from '../../../src/harnesses/opencode/command.js';
import { opencodeHookDialect } from '../../../src/harnesses/opencode/hook-dialect.js';
import { GATE_PLUGIN_FILE, gatePluginSource, opencodeHooks } from '../../../src/harnesses/opencode/hooks.js';
import { commandInput, GATE, GATES_SHA256, hookFixture, json } from '../hook-fixture.js';

const fixture = (name: string) => hookFixture('opencode', name);

const base = commandInput({ extraArgs: ['-m', 'harmflow-sim/sim-model'], env: { OPENCODE_CONFIG_CONTENT: '{}' } });

const gate = GATE;

describe('opencodeHooks.install', () => {
  it('declares the three verified events', () => {
    expect(opencodeHooks.events).toEqual(['PreToolUse', 'PostToolUse', 'Stop']);
  });

  it('adds the plugin to the global config dir of the private home, keeping the command and its files', () => {
    const spec = opencodeCommand(base);
    const installed = opencodeHooks.install(spec, gate);

    expect(GATE_PLUGIN_FILE).toBe('xdg-config/opencode/plugins/harmflow-gates.js');
    const argv = (event: GateEvent) => [...gate.argv(event), '--harness', 'opencode', '--sha256', GATES_SHA256];
    expect(installed.files).toEqual({
      [PLUGIN_LOCK_FILE]: spec.files[PLUGIN_LOCK_FILE],
      [GATE_PLUGIN_FILE]: gatePluginSource(
        { PreToolUse: argv('PreToolUse'), PostToolUse: argv('PostToolUse'), Stop: argv('Stop') },
        gate.env,
      ),
    });
    expect(installed).toEqual({ ...spec, files: installed.files });
  });

  it('embeds each event’s argv and the runner’s env as JSON', () => {
    const source = opencodeHooks.install(opencodeCommand(base), gate).files[GATE_PLUGIN_FILE] ?? '';
    const argv = (event: GateEvent) => [
      '/opt/harm flow/bin/harmflow',
      'gate',
      event,
      '--harness',
      'opencode',
      '--sha256',
      GATES_SHA256,
    ];
    expect(source).toContain(`"PreToolUse":${json(argv('PreToolUse'))}`);
    expect(source).toContain(`"Stop":${json(argv('Stop'))}`);
    expect(source).toContain(`const GATE_ENV = ${json(gate.env)};`);
  });

  it('drops --pure and OPENCODE_PURE, which stop OpenCode from loading the plugin', () => {
    const spec = opencodeCommand({ ...base, extraArgs: ['--pure', ...base.extraArgs], env: { OPENCODE_PURE: '1' } });
    const installed = opencodeHooks.install(spec, gate);
    expect(installed.args).not.toContain('--pure');
    expect(installed.args).toEqual(spec.args.filter((arg) => arg !== '--pure'));
    expect(installed.env).not.toHaveProperty('OPENCODE_PURE');
  });

  it('is pure: the same spec and input give the same result, and the spec is left as it was', () => {
    const spec = opencodeCommand(base);
    const before = structuredClone(spec);
    expect(opencodeHooks.install(spec, gate)).toEqual(opencodeHooks.install(spec, gate));
    expect(spec).toEqual(before);
  });
});

interface Hooks {
  'tool.execute.before': (input: unknown, output: unknown) => Promise<void>;
  'tool.execute.after': (input: unknown, output: unknown) => Promise<void>;
  event: (input: { event: unknown }) => Promise<void>;
}

interface HookArgs {
  input: unknown;
  output: unknown;
}

const ARGS = JSON.parse(fixture('plugin-hook-args')) as Record<string, HookArgs & { event: unknown }>;
const args = (name: string): HookArgs & { event: unknown } => {
  const found = ARGS[name];
  if (!found) throw new Error(`no ${name} in plugin-hook-args.json`);
  return found;
};

/**
 * The plugin as OpenCode loads it, in a temp dir, with a hook program that logs its stdin and answers
 * per `ANSWER` (an env variable): `deny` (the dialect's deny), `exit2`, `crash` (exit 1), or allow.
 */
describe('the generated plugin (under Node, with a real hook program)', () => {
  const MESSAGE = 'HarmFlow gate: not this command';
  let dir: string;
  let log: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'harmflow-opencode-plugin-'));
    log = join(dir, 'hooks.jsonl');
    const hook = join(dir, 'hook.mjs');
    writeFileSync(
      hook,
      `import { appendFileSync } from 'node:fs';
let stdin = '';
process.stdin.on('data', (chunk) => (stdin += chunk));
process.stdin.on('end', () => {
  appendFileSync(${json(log)}, JSON.stringify({ event: process.argv[2], stdin, gateDir: process.env.HARMFLOW_GATE_DIR }) + '\\n');
  const answer = process.env.ANSWER;
  if (answer === 'deny') process.stdout.write(${json(opencodeHookDialect.answer('PreToolUse', deny(MESSAGE)).stdout)});
  if (answer === 'exit2') { process.stderr.write('refused with exit 2\\n'); process.exitCode = 2; }
  if (answer === 'crash') { process.stderr.write('the gate crashed\\n'); process.exitCode = 1; }
});
`,
    );
    mkdirSync(join(dir, 'plugins'));
    const argv = (event: GateEvent) => [process.execPath, hook, event];
    writeFileSync(
      join(dir, 'plugins', 'gates.mjs'),
      gatePluginSource(
        { PreToolUse: argv('PreToolUse'), PostToolUse: argv('PostToolUse'), Stop: argv('Stop') },
        { HARMFLOW_GATE_DIR: '/srv/gate-dir' },
      ),
    );
    const missing = ['/nonexistent/harmflow-gate'];
    writeFileSync(
      join(dir, 'plugins', 'missing.mjs'),
      gatePluginSource({ PreToolUse: missing, PostToolUse: missing, Stop: missing }, {}),
    );
  });
  afterAll(() => {
    delete process.env.ANSWER;
    rmSync(dir, { recursive: true, force: true });
  });

  async function plugin(file = 'gates.mjs'): Promise<Hooks> {
    const module = (await import(pathToFileURL(join(dir, 'plugins', file)).href)) as {
      HarmflowGates: (context: { directory: string }) => Promise<Hooks>;
    };
    return module.HarmflowGates({ directory: '/srv/wt' });
  }

  function logged(): { event: string; stdin: string; gateDir?: string }[] {
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    writeFileSync(log, '');
    return lines.map((line) => JSON.parse(line) as { event: string; stdin: string; gateDir?: string });
  }

  it('writes Claude Code–shaped input for each hook, as the real CLI run did, with the runner’s env set', async () => {
    delete process.env.ANSWER;
    writeFileSync(log, '');
    const hooks = await plugin();
    await hooks['tool.execute.before'](args('beforeBash').input, args('beforeBash').output);
    await hooks['tool.execute.after'](args('afterBash').input, args('afterBash').output);
    await hooks['tool.execute.before'](args('beforeWrite').input, args('beforeWrite').output);
    await hooks['tool.execute.after'](args('afterWrite').input, args('afterWrite').output);
    await hooks.event({ event: args('sessionIdle').event });

    const calls = logged();
    expect(calls.map((call) => call.event)).toEqual(['PreToolUse', 'PostToolUse', 'PreToolUse', 'PostToolUse', 'Stop']);
    const expected = ['pre-bash', 'post-bash', 'pre-write', 'post-write', 'stop'].map((name) =>
      JSON.parse(fixture(name)),
    );
    expect(calls.map((call) => JSON.parse(call.stdin))).toEqual(expected);
    expect(calls.every((call) => call.gateDir === '/srv/gate-dir')).toBe(true);
  });

  it('throws the deny reason, which OpenCode hands the model as the tool’s result', async () => {
    process.env.ANSWER = 'deny';
    const hooks = await plugin();
    await expect(hooks['tool.execute.before'](args('beforeBash').input, args('beforeBash').output)).rejects.toThrow(
      new Error(MESSAGE),
    );
  });

  it('reads exit 2 as a deny with the reason from stderr, as Claude Code does', async () => {
    process.env.ANSWER = 'exit2';
    const hooks = await plugin();
    await expect(hooks['tool.execute.before'](args('beforeBash').input, args('beforeBash').output)).rejects.toThrow(
      new Error('refused with exit 2'),
    );
  });

  it('lets the call go on when the gate runner fails, crashes or cannot start, and never throws after a call', async () => {
    process.env.ANSWER = 'crash';
    for (const hooks of [await plugin(), await plugin('missing.mjs')]) {
      await expect(hooks['tool.execute.before'](args('beforeBash').input, args('beforeBash').output)).resolves.toBe(
        undefined,
      );
      await expect(hooks['tool.execute.after'](args('afterBash').input, args('afterBash').output)).resolves.toBe(
        undefined,
      );
    }
    process.env.ANSWER = 'deny';
    const hooks = await plugin();
    await expect(hooks['tool.execute.after'](args('afterBash').input, args('afterBash').output)).resolves.toBe(
      undefined,
    );
  });

  it('calls Stop once per session, and never for a sub-agent’s session', async () => {
    delete process.env.ANSWER;
    writeFileSync(log, '');
    const hooks = await plugin();
    const idle = (sessionID: string) => ({ type: 'session.idle', properties: { sessionID } });
    await hooks.event({
      event: { type: 'session.created', properties: { info: { id: 'ses_child', parentID: 'ses_root' } } },
    });
    await hooks.event({ event: idle('ses_child') });
    await hooks.event({ event: idle('ses_root') });
    await hooks.event({ event: idle('ses_root') });
    await hooks.event({ event: args('sessionCreated').event });
    await hooks.event({ event: { type: 'message.updated', properties: {} } });

    expect(logged().map((call) => [call.event, (JSON.parse(call.stdin) as { session_id: string }).session_id])).toEqual(
      [['Stop', 'ses_root']],
    );
  });
});

describe('opencodeHookDialect.parse (the plugin’s input from real runs)', () => {
  it('reads a bash call as a shell call with its command and call id', () => {
    expect(opencodeHookDialect.parse('PreToolUse', fixture('pre-bash'))).toEqual({
      event: 'PreToolUse',
      sessionId: 'ses_dcec583e8ffeUk5VJSscJ8SLK7',
      cwd: '/srv/wt',
      call: {
        id: 'call_sim00000108',
        tool: 'bash',
        kind: 'shell',
        command: 'echo hello-from-bash > bash.txt && cat bash.txt',
        paths: [],
        cwd: '/srv/wt',
        input: { command: 'echo hello-from-bash > bash.txt && cat bash.txt', description: 'Run a command' },
      },
    });
  });

  it('reads a write call as a write of its filePath', () => {
    expect(opencodeHookDialect.parse('PreToolUse', fixture('pre-write'))).toMatchObject({
      call: { tool: 'write', kind: 'write', paths: ['w.txt'], input: { filePath: 'w.txt', content: 'written\n' } },
    });
  });

  it('reads bash results with their output and exit code; a non-zero exit is not ok', () => {
    expect(opencodeHookDialect.parse('PostToolUse', fixture('post-bash'))).toMatchObject({
      event: 'PostToolUse',
      call: { tool: 'bash', kind: 'shell' },
      result: { ok: true, output: 'hello-from-bash\n', exitCode: 0 },
    });
    expect(opencodeHookDialect.parse('PostToolUse', fixture('post-bash-exit-3'))).toMatchObject({
      result: { ok: false, output: 'out\nerr\n', exitCode: 3 },
    });
  });

  it('reads a write result as ok with its output and no exit code', () => {
    const post = opencodeHookDialect.parse('PostToolUse', fixture('post-write'));
    expect(post).toMatchObject({ call: { kind: 'write', paths: ['w.txt'] } });
    expect(post.event === 'PostToolUse' && post.result).toEqual({ ok: true, output: 'Wrote file successfully.' });
  });

  it('reads Stop', () => {
    expect(opencodeHookDialect.parse('Stop', fixture('stop'))).toEqual({
      event: 'Stop',
      sessionId: 'ses_dcec583e8ffeUk5VJSscJ8SLK7',
      cwd: '/srv/wt',
    });
  });

  it('throws HookInputError for input that is not JSON or not the event the runner was called for', () => {
    expect(() => opencodeHookDialect.parse('PreToolUse', 'not json')).toThrow(HookInputError);
    expect(() => opencodeHookDialect.parse('PreToolUse', fixture('stop'))).toThrow(HookInputError);
    expect(() => opencodeHookDialect.parse('PostToolUse', json({ hook_event_name: 'PostToolUse' }))).toThrow(
      HookInputError,
    );
  });
});

describe('opencodeHookDialect.parse (OpenCode’s other tools)', () => {
  const pre = (tool_name: string, tool_input: unknown) =>
    opencodeHookDialect.parse(
      'PreToolUse',
      json({ session_id: 's', cwd: '/srv/wt', hook_event_name: 'PreToolUse', tool_name, tool_input }),
    );
  const call = (tool: string, input: unknown) => {
    const hook = pre(tool, input);
    if (hook.event !== 'PreToolUse') throw new Error('not a PreToolUse');
    return hook.call;
  };

  it('maps edit and apply_patch to writes of the files they name', () => {
    expect(call('edit', { filePath: 'src/a.ts', oldString: 'a', newString: 'b' })).toMatchObject({
      kind: 'write',
      paths: ['src/a.ts'],
    });
    const patchText = [
      '*** Begin Patch',
      '*** Add File: added.txt',
      '+added line',
      '*** Update File: hello.txt',
      '*** Move to: moved.txt',
      '@@',
      '-hello',
      '+hello patched',
      '*** Delete File: gone.txt',
      '*** End Patch',
    ].join('\n');
    expect(call('apply_patch', { patchText })).toMatchObject({
      kind: 'write',
      paths: ['added.txt', 'hello.txt', 'moved.txt', 'gone.txt'],
    });
  });

  it('maps read, glob, grep and list to reads', () => {
    expect(call('read', { filePath: '/srv/wt/a.ts' })).toMatchObject({ kind: 'read', paths: ['/srv/wt/a.ts'] });
    expect(call('glob', { pattern: '**/*.ts', path: 'src' })).toMatchObject({ kind: 'read', paths: ['src'] });
    expect(call('grep', { pattern: 'TODO' })).toMatchObject({ kind: 'read', paths: [] });
    expect(call('list', { path: 'docs' })).toMatchObject({ kind: 'read', paths: ['docs'] });
  });

  it('maps any other tool to other', () => {
    expect(call('webfetch', { url: 'https://example.com' })).toMatchObject({ kind: 'other', paths: [] });
    expect(call('task', { prompt: 'p', description: 'd', subagent_type: 'general' })).toMatchObject({ kind: 'other' });
  });

  it('runs a bash call in its workdir, resolved against the cwd', () => {
    expect(call('bash', { command: 'ls', description: 'd', workdir: 'sub' })).toMatchObject({
      command: 'ls',
      cwd: '/srv/wt/sub',
    });
    expect(call('bash', { command: 'ls', description: 'd', workdir: '/tmp' })).toMatchObject({ cwd: '/tmp' });
  });
});

describe('opencodeHookDialect.answer', () => {
  it('answers a PreToolUse deny with Claude Code’s deny on stdout, exit 0', () => {
    const answer = opencodeHookDialect.answer('PreToolUse', deny('HarmFlow gate: no'));
    expect(answer.exitCode).toBe(0);
    expect(JSON.parse(answer.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'HarmFlow gate: no',
      },
    });
  });

  it('answers an allow, and every PostToolUse and Stop, with nothing', () => {
    for (const event of ['PreToolUse', 'PostToolUse', 'Stop'] as const) {
      expect(opencodeHookDialect.answer(event, ALLOW)).toEqual({ stdout: '', exitCode: 0 });
      expect(opencodeHookDialect.answer(event, allowNoting(['n']))).toEqual({ stdout: '', exitCode: 0 });
    }
  });
});
