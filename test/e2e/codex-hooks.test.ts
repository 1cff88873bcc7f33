/**
 * End to end against the REAL Codex CLI (the verified 0.171.0): the command `codexHooks.install`
 * builds, run against the loopback model-API simulator, with a tiny hook program in place of the gate
 * runner that answers what `codexHookDialect.answer` says. A deny is honoured (the command never ran,
 * the model read the reason as the tool's output, no PostToolUse); an allow lets the command run and
 * PostToolUse reports its output. Runs when HARMFLOW_HARNESS_BIN_DIRS lists codex (real-harnesses.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexCommand } from '../../src/harnesses/codex/command.js';
import { codexHookDialect } from '../../src/harnesses/codex/hook-dialect.js';
import { codexHooks } from '../../src/harnesses/codex/hooks.js';
import { DENIED_COMMAND, type HookedHarness, type Lab, MESSAGE, openLab, runHooked } from './hook-lab.js';
import { realHarnessesAvailable } from './real-harnesses.js';

const enabled = realHarnessesAvailable(['codex']);

const ALLOWED_COMMAND = 'echo allowed > allowed.txt && cat allowed.txt';

const scripts = {
  'codex-hooks-deny': [{ shell: { command: DENIED_COMMAND } }, 'Done: the gate refused it.'],
  'codex-hooks-allow': [{ shell: { command: ALLOWED_COMMAND } }, 'Done: ran it.'],
};

const codex: HookedHarness = {
  name: 'codex',
  command: codexCommand,
  hooks: codexHooks,
  dialect: codexHookDialect,
  model: 'gpt-5.5',
};

let lab: Lab;
beforeAll(async () => {
  if (enabled) lab = await openLab(scripts, 'codex-hooks');
});
afterAll(async () => {
  await lab?.close();
});

/** Runs one `codex exec` turn following `script`, with the hooks installed; `codexHome` is its CODEX_HOME. */
async function runCodex(script: keyof typeof scripts) {
  const run = await runHooked(lab, codex, script);
  return { ...run, codexHome: run.spec.env.CODEX_HOME ?? '' };
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
    expect(lab.api.requests.filter((request) => request.script === 'codex-hooks-deny')).toHaveLength(2);
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
