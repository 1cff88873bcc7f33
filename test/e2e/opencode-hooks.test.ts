/**
 * End to end against the REAL OpenCode CLI (the verified 1.18.33): the command `opencodeHooks.install`
 * builds, run against the loopback model-API simulator, with a tiny hook program in place of the gate
 * runner that answers what `opencodeHookDialect.answer` says. A deny is honoured (the command never
 * ran, the next model request carried the reason as the tool's result, no PostToolUse); an allow lets
 * the command run and PostToolUse reports its output and exit code. Between OpenCode and the simulator
 * sits a loopback relay that keeps the chat requests: their tool messages, which the simulator's log
 * does not keep.
 * Runs when HARMFLOW_HARNESS_BIN_DIRS lists opencode (real-harnesses.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opencodeCommand } from '../../src/harnesses/opencode/command.js';
import { opencodeHookDialect } from '../../src/harnesses/opencode/hook-dialect.js';
import { opencodeHooks } from '../../src/harnesses/opencode/hooks.js';
import { DENIED_COMMAND, type HookedHarness, type Lab, MESSAGE, openLab, type Relayed, runHooked } from './hook-lab.js';
import { realHarnessesAvailable } from './real-harnesses.js';

const enabled = realHarnessesAvailable(['opencode']);

const ALLOWED_COMMAND = 'echo allowed > allowed.txt && cat allowed.txt';

const scripts = {
  'opencode-hooks-deny': [{ shell: { command: DENIED_COMMAND } }, 'Done: the gate refused it.'],
  'opencode-hooks-allow': [{ shell: { command: ALLOWED_COMMAND } }, 'Done: ran it.'],
};

interface ToolMessage {
  readonly script: string;
  readonly tool_call_id: string;
  readonly content: string;
}

/** The `role: "tool"` messages of the chat requests the relay kept, each with its script (the path's first segment). */
function toolMessages(bodies: readonly Relayed[]): ToolMessage[] {
  return bodies.flatMap(({ path, body }) => {
    const script = path.split('/')[1] ?? '';
    const parsed = JSON.parse(body) as { messages?: { role: string; tool_call_id: string; content: string }[] };
    return (parsed.messages ?? [])
      .filter((message) => message.role === 'tool')
      .map((message) => ({ script, tool_call_id: message.tool_call_id, content: message.content }));
  });
}

const opencode: HookedHarness = {
  name: 'opencode',
  command: opencodeCommand,
  hooks: opencodeHooks,
  dialect: opencodeHookDialect,
};

let lab: Lab;
beforeAll(async () => {
  if (enabled) lab = await openLab(scripts, 'opencode-hooks');
});
afterAll(async () => {
  await lab?.close();
});

/** Runs one `opencode run` turn following `script`, with the hooks installed and HARMFLOW_GATE_DIR given to them. */
const runOpencode = (script: keyof typeof scripts) =>
  runHooked(lab, opencode, script, { HARMFLOW_GATE_DIR: join(lab.root, script, 'gate') });

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
    expect(
      toolMessages(lab.relay.bodies)
        .filter((tool) => tool.script === 'opencode-hooks-deny')
        .map((tool) => tool.content),
    ).toEqual([MESSAGE]);
    expect(lab.api.requests.filter((request) => request.script === 'opencode-hooks-deny')).toHaveLength(2);
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
