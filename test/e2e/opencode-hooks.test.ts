/**
 * End to end against the REAL OpenCode CLI (the verified 1.18.33): the command `opencodeHooks.install`
 * builds, run against the loopback model-API simulator, with a tiny hook program in place of the gate
 * runner that answers what `opencodeHookDialect.answer` says. A deny is honoured (the command never
 * ran, the next model request carried the reason as the tool's result, no PostToolUse); an allow lets
 * the command run and PostToolUse reports its output and exit code. Between OpenCode and the simulator
 * sits a loopback recorder of the chat requests' tool messages: the simulator's log does not keep them.
 * Runs when HARMFLOW_HARNESS_BIN_DIRS lists opencode (real-harnesses.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GateEvent } from '../../src/gates/hook-event.js';
import { ALLOW, deny } from '../../src/gates/verdict.js';
import type { CommandSpec } from '../../src/harnesses/adapter.js';
import { opencodeCommand } from '../../src/harnesses/opencode/command.js';
import { opencodeHookDialect } from '../../src/harnesses/opencode/hook-dialect.js';
import { opencodeHooks } from '../../src/harnesses/opencode/hooks.js';
import { connectHarness } from '../../src/simulators/model-api/connect.js';
import { type ModelApi, startModelApi } from '../../src/simulators/model-api/server.js';
import { REAL_PATH, realHarnessesAvailable } from './real-harnesses.js';

const enabled = realHarnessesAvailable(['opencode']);

const DENIED_COMMAND = 'echo gate-me > denied.txt && cat denied.txt';
const ALLOWED_COMMAND = 'echo allowed > allowed.txt && cat allowed.txt';
const MESSAGE = 'HarmFlow gate: writing denied.txt is not allowed';

const scripts = {
  'opencode-hooks-deny': [{ shell: { command: DENIED_COMMAND } }, 'Done: the gate refused it.'],
  'opencode-hooks-allow': [{ shell: { command: ALLOWED_COMMAND } }, 'Done: ran it.'],
};

/**
 * The hook program: logs each call (event, stdin, a variable from OpenCode's environment and one from
 * the install's `env`) and answers the dialect's deny for a PreToolUse
 * whose input names denied.txt, the dialect's allow otherwise.
 */
function hookProgram(log: string): string {
  const denyAnswer = opencodeHookDialect.answer('PreToolUse', deny(MESSAGE));
  const allowAnswers = Object.fromEntries(
    opencodeHooks.events.map((event) => [event, opencodeHookDialect.answer(event, ALLOW)]),
  );
  return `import { appendFileSync } from 'node:fs';
const event = process.argv[2];
let stdin = '';
process.stdin.on('data', (chunk) => (stdin += chunk));
process.stdin.on('end', () => {
  appendFileSync(${JSON.stringify(log)}, JSON.stringify({ event, stdin, probe: process.env.HOOK_PROBE ?? null, gateDir: process.env.HARMFLOW_GATE_DIR ?? null }) + '\\n');
  const answer = event === 'PreToolUse' && stdin.includes('denied.txt') ? ${JSON.stringify(denyAnswer)} : ${JSON.stringify(allowAnswers)}[event];
  process.stdout.write(answer.stdout);
  process.exitCode = answer.exitCode;
});
`;
}

interface ToolMessage {
  readonly script: string;
  readonly tool_call_id: string;
  readonly content: string;
}

/** A loopback proxy to `target` that records the `role: "tool"` messages of every chat request. */
async function startRecorder(target: string): Promise<{ url: string; tools: ToolMessage[]; server: Server }> {
  const tools: ToolMessage[] = [];
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      try {
        const parsed = JSON.parse(body.toString('utf8')) as {
          messages?: { role: string; tool_call_id: string; content: string }[];
        };
        const script = (req.url ?? '').split('/')[1] ?? '';
        for (const message of parsed.messages ?? []) {
          if (message.role === 'tool')
            tools.push({ script, tool_call_id: message.tool_call_id, content: message.content });
        }
      } catch {
        // Not JSON: forwarded as it is; the simulator answers it.
      }
      const forward = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, tools, server };
}

interface Run {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly worktree: string;
  readonly hooks: { event: GateEvent; stdin: string; probe: string | null; gateDir: string | null }[];
}

let api: ModelApi;
let recorder: Awaited<ReturnType<typeof startRecorder>>;
let root: string;
beforeAll(async () => {
  if (!enabled) return;
  api = await startModelApi({ scripts });
  recorder = await startRecorder(api.url);
  root = mkdtempSync(join(tmpdir(), 'harmflow-opencode-hooks-'));
});
afterAll(async () => {
  await api?.close();
  if (recorder) await new Promise((resolve) => recorder.server.close(resolve));
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Runs one `opencode run` turn following `script`, with the hooks installed. */
async function runOpencode(script: keyof typeof scripts): Promise<Run> {
  const dir = join(root, script);
  const worktree = join(dir, 'worktree');
  const homeDir = join(dir, 'home');
  const hook = join(dir, 'hook.mjs');
  const log = join(dir, 'hooks.jsonl');
  mkdirSync(worktree, { recursive: true });
  writeFileSync(hook, hookProgram(log));
  writeFileSync(log, '');

  const connection = connectHarness('opencode', { url: recorder.url, script });
  const spec = opencodeCommand({
    prompt: 'Do the task.',
    cwd: worktree,
    homeDir,
    extraArgs: connection.args,
    env: { ...connection.env, HOOK_PROBE: 'probe-from-opencode-env' },
    path: REAL_PATH,
  });
  const installed = opencodeHooks.install(spec, {
    shellCommand: (event) => `${process.execPath} ${hook} ${event}`,
    argv: (event) => [process.execPath, hook, event],
    homeDir,
    env: { HARMFLOW_GATE_DIR: join(dir, 'gate') },
  });
  prepare(installed, homeDir);

  const { exitCode, stdout } = await spawnOpencode(installed, worktree);
  const hooks = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Run['hooks'][number]);
  return { exitCode, stdout, worktree, hooks };
}

function prepare(spec: CommandSpec, homeDir: string): void {
  for (const sub of spec.dirs) mkdirSync(join(homeDir, sub), { recursive: true });
  for (const [file, content] of Object.entries(spec.files)) {
    mkdirSync(dirname(join(homeDir, file)), { recursive: true });
    writeFileSync(join(homeDir, file), content);
  }
}

function spawnOpencode(spec: CommandSpec, cwd: string): Promise<{ exitCode: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(spec.command, spec.args, { cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout });
    });
  });
}

/** The `tool_use` parts of OpenCode's `--format json` output. */
function toolParts(stdout: string): { tool: string; state: { status: string; error?: string; output?: string } }[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; part?: unknown })
    .filter((event) => event.type === 'tool_use')
    .map((event) => event.part as { tool: string; state: { status: string; error?: string; output?: string } });
}

describe.skipIf(!enabled)('the real opencode CLI with HarmFlow hooks installed', () => {
  it('honours a PreToolUse deny: the command never runs and the model reads the reason', async () => {
    const run = await runOpencode('opencode-hooks-deny');

    expect(run.exitCode).toBe(0);
    expect(existsSync(join(run.worktree, 'denied.txt'))).toBe(false);
    expect(run.hooks.map((hook) => hook.event)).toEqual(['PreToolUse', 'Stop']);
    expect(run.hooks.every((hook) => hook.probe === 'probe-from-opencode-env')).toBe(true);
    expect(run.hooks.every((hook) => hook.gateDir === join(dirname(run.worktree), 'gate'))).toBe(true);
    const [pre, stop] = run.hooks;
    expect(opencodeHookDialect.parse('PreToolUse', pre?.stdin ?? '')).toMatchObject({
      event: 'PreToolUse',
      cwd: run.worktree,
      call: { tool: 'bash', kind: 'shell', command: DENIED_COMMAND },
    });
    expect(opencodeHookDialect.parse('Stop', stop?.stdin ?? '')).toMatchObject({ event: 'Stop', cwd: run.worktree });

    expect(toolParts(run.stdout)).toMatchObject([{ tool: 'bash', state: { status: 'error', error: MESSAGE } }]);
    expect(recorder.tools.filter((tool) => tool.script === 'opencode-hooks-deny').map((tool) => tool.content)).toEqual([
      MESSAGE,
    ]);
    expect(api.requests.filter((request) => request.script === 'opencode-hooks-deny')).toHaveLength(2);
  });

  it('lets an allowed command run and reports it to PostToolUse with its output and exit code', async () => {
    const run = await runOpencode('opencode-hooks-allow');

    expect(run.exitCode).toBe(0);
    expect(readFileSync(join(run.worktree, 'allowed.txt'), 'utf8')).toBe('allowed\n');
    expect(run.hooks.map((hook) => hook.event)).toEqual(['PreToolUse', 'PostToolUse', 'Stop']);
    expect(opencodeHookDialect.parse('PostToolUse', run.hooks[1]?.stdin ?? '')).toMatchObject({
      event: 'PostToolUse',
      call: { tool: 'bash', kind: 'shell', command: ALLOWED_COMMAND },
      result: { ok: true, output: 'allowed\n', exitCode: 0 },
    });
  });
});
