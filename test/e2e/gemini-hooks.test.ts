/**
 * End to end against the REAL Gemini CLI (the verified 0.61.0): the command `geminiHooks.install`
 * builds, run against the loopback model-API simulator, with a tiny hook program in place of the gate
 * runner that answers what `geminiHookDialect.answer` says. A deny is honoured (the command never ran,
 * the model's next request carries the reason as the call's error, no AfterTool); an allow lets the
 * command run and AfterTool reports its output and exit code. A loopback relay in front of the
 * simulator keeps the request bodies, which the simulator's own log does not.
 * Runs when HARMFLOW_HARNESS_BIN_DIRS lists gemini (real-harnesses.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiCommand } from '../../src/harnesses/gemini/command.js';
import { geminiHookDialect } from '../../src/harnesses/gemini/hook-dialect.js';
import { geminiHooks } from '../../src/harnesses/gemini/hooks.js';
import { DENIED_COMMAND, type HookedHarness, type Lab, MESSAGE, openLab, runHooked } from './hook-lab.js';
import { realHarnessesAvailable } from './real-harnesses.js';

const enabled = realHarnessesAvailable(['gemini']);

const ALLOWED_COMMAND = 'echo allowed > allowed.txt && cat allowed.txt && exit 3';

const scripts = {
  'gemini-hooks-deny': [{ shell: { command: DENIED_COMMAND } }, 'Done: the gate refused it.'],
  'gemini-hooks-allow': [{ shell: { command: ALLOWED_COMMAND } }, 'Done: ran it.'],
};

interface FunctionResponse {
  readonly name: string;
  readonly response: Record<string, unknown>;
}

const gemini: HookedHarness = {
  name: 'gemini',
  command: geminiCommand,
  hooks: geminiHooks,
  dialect: geminiHookDialect,
  model: 'gemini-2.5-pro',
};

let lab: Lab;
beforeAll(async () => {
  if (enabled) lab = await openLab(scripts, 'gemini-hooks');
});
afterAll(async () => {
  await lab?.close();
});

/** Runs one `gemini -p` turn following `script`, with the hooks installed. */
const runGemini = (script: keyof typeof scripts) => runHooked(lab, gemini, script);

/** The function responses the requests of `script` carried to the model. */
function functionResponses(script: string): FunctionResponse[] {
  return lab.relay.bodies
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
