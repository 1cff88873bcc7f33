/**
 * End to end against the REAL Gemini CLI (the verified 0.61.0): the command `geminiHooks.install`
 * builds, run against the loopback model-API simulator, with a tiny hook program in place of the gate
 * runner that answers what `geminiHookDialect.answer` says. A deny is honoured (the command never ran,
 * the model's next request carries the reason as the call's error, no AfterTool); an allow lets the
 * command run and AfterTool reports its output and exit code. A loopback relay in front of the
 * simulator keeps the request bodies, which the simulator's own log does not.
 * Runs when HARMFLOW_HARNESS_BIN_DIRS lists gemini (real-harnesses.ts).
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
import { geminiCommand } from '../../src/harnesses/gemini/command.js';
import { geminiHookDialect } from '../../src/harnesses/gemini/hook-dialect.js';
import { geminiHooks } from '../../src/harnesses/gemini/hooks.js';
import { connectHarness } from '../../src/simulators/model-api/connect.js';
import { type ModelApi, startModelApi } from '../../src/simulators/model-api/server.js';
import { REAL_PATH, realHarnessesAvailable } from './real-harnesses.js';

const enabled = realHarnessesAvailable(['gemini']);

const DENIED_COMMAND = 'echo gate-me > denied.txt && cat denied.txt';
const ALLOWED_COMMAND = 'echo allowed > allowed.txt && cat allowed.txt && exit 3';
const MESSAGE = 'HarmFlow gate: writing denied.txt is not allowed';

const scripts = {
  'gemini-hooks-deny': [{ shell: { command: DENIED_COMMAND } }, 'Done: the gate refused it.'],
  'gemini-hooks-allow': [{ shell: { command: ALLOWED_COMMAND } }, 'Done: ran it.'],
};

/**
 * The hook program: logs each call (event, stdin, a variable from Gemini's environment) and answers
 * the dialect's deny for a PreToolUse whose input names denied.txt, the dialect's allow otherwise.
 */
function hookProgram(log: string): string {
  const denyAnswer = geminiHookDialect.answer('PreToolUse', deny(MESSAGE));
  const allowAnswers = Object.fromEntries(
    geminiHooks.events.map((event) => [event, geminiHookDialect.answer(event, ALLOW)]),
  );
  return `import { appendFileSync } from 'node:fs';
const event = process.argv[2];
let stdin = '';
process.stdin.on('data', (chunk) => (stdin += chunk));
process.stdin.on('end', () => {
  appendFileSync(${JSON.stringify(log)}, JSON.stringify({ event, stdin, probe: process.env.HOOK_PROBE ?? null }) + '\\n');
  const answer = event === 'PreToolUse' && stdin.includes('denied.txt') ? ${JSON.stringify(denyAnswer)} : ${JSON.stringify(allowAnswers)}[event];
  process.stdout.write(answer.stdout);
  process.exitCode = answer.exitCode;
});
`;
}

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/** Forwards every request to `target` and keeps its path and body. */
function startRelay(target: string, bodies: { path: string; body: string }[]): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bodies.push({ path: req.url ?? '', body: body.toString() });
      const upstream = request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface Run {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly worktree: string;
  readonly hooks: { event: GateEvent; stdin: string; probe: string | null }[];
}

interface FunctionResponse {
  readonly name: string;
  readonly response: Record<string, unknown>;
}

let api: ModelApi;
let relay: Server;
let relayUrl: string;
const bodies: { path: string; body: string }[] = [];
let root: string;
beforeAll(async () => {
  if (!enabled) return;
  api = await startModelApi({ scripts });
  relay = await startRelay(api.url, bodies);
  relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
  root = mkdtempSync(join(tmpdir(), 'harmflow-gemini-hooks-'));
});
afterAll(async () => {
  await new Promise((resolve) => (relay ? relay.close(resolve) : resolve(undefined)));
  await api?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Runs one `gemini -p` turn following `script`, with the hooks installed. */
async function runGemini(script: keyof typeof scripts): Promise<Run> {
  const dir = join(root, script);
  const worktree = join(dir, 'worktree');
  const homeDir = join(dir, 'home');
  const hook = join(dir, 'hook.mjs');
  const log = join(dir, 'hooks.jsonl');
  mkdirSync(worktree, { recursive: true });
  writeFileSync(hook, hookProgram(log));
  writeFileSync(log, '');

  const connection = connectHarness('gemini', { url: relayUrl, script });
  const spec = geminiCommand({
    prompt: 'Do the task.',
    cwd: worktree,
    homeDir,
    model: 'gemini-2.5-pro',
    extraArgs: connection.args,
    env: { ...connection.env, HOOK_PROBE: 'probe-from-gemini-env' },
    path: REAL_PATH,
  });
  const installed = geminiHooks.install(spec, {
    shellCommand: (event) => [process.execPath, hook, event].map(quote).join(' '),
    argv: (event) => [process.execPath, hook, event],
    homeDir,
    env: {},
  });
  prepare(installed, homeDir);

  const { exitCode, stdout } = await spawnGemini(installed, worktree);
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

function spawnGemini(spec: CommandSpec, cwd: string): Promise<{ exitCode: number | null; stdout: string }> {
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

/** The function responses the requests of `script` carried to the model. */
function functionResponses(script: string): FunctionResponse[] {
  return bodies
    .filter((entry) => entry.path.startsWith(`/${script}/`) && entry.path.includes(':streamGenerateContent'))
    .flatMap((entry) => {
      const body = JSON.parse(entry.body) as { contents?: { parts?: { functionResponse?: FunctionResponse }[] }[] };
      return (body.contents ?? []).flatMap((content) => content.parts ?? []);
    })
    .flatMap((part) => (part.functionResponse ? [part.functionResponse] : []));
}

describe.skipIf(!enabled)('the real gemini CLI with HarmFlow hooks installed', () => {
  it('honours a BeforeTool deny: the command never runs and the model reads the reason', async () => {
    const run = await runGemini('gemini-hooks-deny');

    expect(run.exitCode).toBe(0);
    expect(existsSync(join(run.worktree, 'denied.txt'))).toBe(false);
    expect(run.hooks.map((hook) => hook.event)).toEqual(['PreToolUse', 'Stop']);
    expect(run.hooks.every((hook) => hook.probe === 'probe-from-gemini-env')).toBe(true);

    const [pre, stop] = run.hooks;
    expect(geminiHookDialect.parse('PreToolUse', pre?.stdin ?? '')).toMatchObject({
      event: 'PreToolUse',
      cwd: run.worktree,
      call: { tool: 'run_shell_command', kind: 'shell', command: DENIED_COMMAND },
    });
    expect(geminiHookDialect.parse('Stop', stop?.stdin ?? '')).toMatchObject({ event: 'Stop', cwd: run.worktree });

    const blocked = `Tool execution blocked: ${MESSAGE}`;
    expect(functionResponses('gemini-hooks-deny')).toEqual([
      { name: 'run_shell_command', response: { error: blocked }, id: expect.any(String) },
    ]);
    expect(run.stdout).toContain(`"status":"error","output":${JSON.stringify(blocked)}`);
    expect(run.stdout).toContain('"type":"result","timestamp"');
  });

  it('lets an allowed command run and reports it to AfterTool with its output and exit code', async () => {
    const run = await runGemini('gemini-hooks-allow');

    expect(run.exitCode).toBe(0);
    expect(readFileSync(join(run.worktree, 'allowed.txt'), 'utf8')).toBe('allowed\n');
    expect(run.hooks.map((hook) => hook.event)).toEqual(['PreToolUse', 'PostToolUse', 'Stop']);
    const post = geminiHookDialect.parse('PostToolUse', run.hooks[1]?.stdin ?? '');
    expect(post).toMatchObject({
      event: 'PostToolUse',
      call: { tool: 'run_shell_command', kind: 'shell', command: ALLOWED_COMMAND },
      result: { ok: false, output: 'allowed', exitCode: 3 },
    });
    const [response] = functionResponses('gemini-hooks-allow');
    expect(response?.response.output).toMatch(/^<untrusted_context>\nOutput: allowed\nExit Code: 3\n/);
  });
});
