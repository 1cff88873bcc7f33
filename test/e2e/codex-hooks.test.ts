/**
 * End to end against the REAL Codex CLI (the verified 0.171.0): the command `codexHooks.install`
 * builds, run against the loopback model-API simulator, with a tiny hook program in place of the gate
 * runner that answers what `codexHookDialect.answer` says. A deny is honoured (the command never ran,
 * the model read the reason as the tool's output, no PostToolUse); an allow lets the command run and
 * PostToolUse reports its output. Runs when HARMFLOW_HARNESS_BIN_DIRS lists codex (real-harnesses.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GateEvent } from '../../src/gates/hook-event.js';
import { ALLOW, deny } from '../../src/gates/verdict.js';
import type { CommandSpec } from '../../src/harnesses/adapter.js';
import { codexCommand } from '../../src/harnesses/codex/command.js';
import { codexHookDialect } from '../../src/harnesses/codex/hook-dialect.js';
import { codexHooks } from '../../src/harnesses/codex/hooks.js';
import { connectHarness } from '../../src/simulators/model-api/connect.js';
import { type ModelApi, startModelApi } from '../../src/simulators/model-api/server.js';
import { REAL_PATH, realHarnessesAvailable } from './real-harnesses.js';

const enabled = realHarnessesAvailable(['codex']);

const DENIED_COMMAND = 'echo gate-me > denied.txt && cat denied.txt';
const ALLOWED_COMMAND = 'echo allowed > allowed.txt && cat allowed.txt';
const MESSAGE = 'HarmFlow gate: writing denied.txt is not allowed';

const scripts = {
  'codex-hooks-deny': [{ shell: { command: DENIED_COMMAND } }, 'Done: the gate refused it.'],
  'codex-hooks-allow': [{ shell: { command: ALLOWED_COMMAND } }, 'Done: ran it.'],
};

/**
 * The hook program: logs each call (event, stdin, a variable from Codex's environment) and answers
 * the dialect's deny for a PreToolUse whose input names denied.txt, the dialect's allow otherwise.
 */
function hookProgram(log: string): string {
  const denyAnswer = codexHookDialect.answer('PreToolUse', deny(MESSAGE));
  const allowAnswers = Object.fromEntries(
    codexHooks.events.map((event) => [event, codexHookDialect.answer(event, ALLOW)]),
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

interface Run {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly worktree: string;
  readonly codexHome: string;
  readonly hooks: { event: GateEvent; stdin: string; probe: string | null }[];
}

let api: ModelApi;
let root: string;
beforeAll(async () => {
  if (!enabled) return;
  api = await startModelApi({ scripts });
  root = mkdtempSync(join(tmpdir(), 'harmflow-codex-hooks-'));
});
afterAll(async () => {
  await api?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Runs one `codex exec` turn following `script`, with the hooks installed. */
async function runCodex(script: keyof typeof scripts): Promise<Run> {
  const dir = join(root, script);
  const worktree = join(dir, 'worktree');
  const homeDir = join(dir, 'home');
  const hook = join(dir, 'hook.mjs');
  const log = join(dir, 'hooks.jsonl');
  mkdirSync(worktree, { recursive: true });
  writeFileSync(hook, hookProgram(log));
  writeFileSync(log, '');

  const connection = connectHarness('codex', { url: api.url, script });
  const spec = codexCommand({
    prompt: 'Do the task.',
    cwd: worktree,
    homeDir,
    model: 'gpt-5.5',
    extraArgs: connection.args,
    env: { ...connection.env, HOOK_PROBE: 'probe-from-codex-env' },
    path: REAL_PATH,
  });
  const installed = codexHooks.install(spec, {
    shellCommand: (event) => [process.execPath, hook, event].map(quote).join(' '),
    argv: (event) => [process.execPath, hook, event],
    homeDir,
    env: {},
  });
  prepare(installed, homeDir);

  const { exitCode, stdout } = await spawnCodex(installed, worktree);
  const hooks = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Run['hooks'][number]);
  return { exitCode, stdout, worktree, codexHome: installed.env.CODEX_HOME ?? '', hooks };
}

function prepare(spec: CommandSpec, homeDir: string): void {
  for (const sub of spec.dirs) mkdirSync(join(homeDir, sub), { recursive: true });
  for (const [file, content] of Object.entries(spec.files)) {
    mkdirSync(dirname(join(homeDir, file)), { recursive: true });
    writeFileSync(join(homeDir, file), content);
  }
}

function spawnCodex(spec: CommandSpec, cwd: string): Promise<{ exitCode: number | null; stdout: string }> {
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

/** The tool outputs Codex sent the model, from the session's rollout (what the next request carried). */
function toolOutputs(codexHome: string): string[] {
  const sessions = join(codexHome, 'sessions');
  const files = readdirSync(sessions, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.jsonl'));
  return files.flatMap((file) =>
    readFileSync(join(sessions, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { payload?: { type?: string; output?: unknown } })
      .filter((record) => record.payload?.type === 'function_call_output')
      .map((record) => String(record.payload?.output)),
  );
}

describe.skipIf(!enabled)('the real codex CLI with HarmFlow hooks installed', () => {
  it('honours a PreToolUse deny: the command never runs and the model reads the reason', async () => {
    const run = await runCodex('codex-hooks-deny');

    expect(run.exitCode).toBe(0);
    expect(existsSync(join(run.worktree, 'denied.txt'))).toBe(false);
    expect(run.stdout).not.toContain('"command_execution"');
    expect(run.hooks.map((hook) => hook.event)).toEqual(['PreToolUse', 'Stop']);
    expect(run.hooks.every((hook) => hook.probe === 'probe-from-codex-env')).toBe(true);

    const [pre, stop] = run.hooks;
    expect(codexHookDialect.parse('PreToolUse', pre?.stdin ?? '')).toMatchObject({
      event: 'PreToolUse',
      cwd: run.worktree,
      call: { tool: 'Bash', kind: 'shell', command: DENIED_COMMAND },
    });
    expect(codexHookDialect.parse('Stop', stop?.stdin ?? '')).toMatchObject({ event: 'Stop', cwd: run.worktree });

    expect(toolOutputs(run.codexHome)).toEqual([
      `Command blocked by PreToolUse hook: ${MESSAGE}. Command: ${DENIED_COMMAND}`,
    ]);
    expect(api.requests.filter((request) => request.script === 'codex-hooks-deny')).toHaveLength(2);
  });

  it('lets an allowed command run and reports it to PostToolUse with its output', async () => {
    const run = await runCodex('codex-hooks-allow');

    expect(run.exitCode).toBe(0);
    expect(readFileSync(join(run.worktree, 'allowed.txt'), 'utf8')).toBe('allowed\n');
    expect(run.hooks.map((hook) => hook.event)).toEqual(['PreToolUse', 'PostToolUse', 'Stop']);
    const post = codexHookDialect.parse('PostToolUse', run.hooks[1]?.stdin ?? '');
    expect(post).toMatchObject({
      event: 'PostToolUse',
      call: { tool: 'Bash', kind: 'shell', command: ALLOWED_COMMAND },
      result: { ok: true, output: 'allowed\n' },
    });
  });
});
