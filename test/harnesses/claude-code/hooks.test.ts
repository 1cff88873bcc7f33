import { describe, expect, it } from 'vitest';
import { claudeCommand } from '../../../src/harnesses/claude-code/command.js';
import { claudeHooks, GATES_SETTINGS_FILE } from '../../../src/harnesses/claude-code/hooks.js';
import { commandInput, GATE, GATES_SHA256 } from '../hook-fixture.js';

const base = commandInput({ extraArgs: ['--max-turns', '40'], env: { ANTHROPIC_API_KEY: 'sk-sim-0000' } });

describe('claudeHooks.install', () => {
  it('declares the three gate events', () => {
    expect(claudeHooks.events).toEqual(['PreToolUse', 'PostToolUse', 'Stop']);
  });

  it('passes a settings file in the attempt directory, out of the private home, with --settings; argv, env and dirs otherwise stay', () => {
    const spec = claudeCommand(base);
    const installed = claudeHooks.install(spec, GATE);
    const path = `${GATE.env.HARMFLOW_GATE_DIR}/${GATES_SETTINGS_FILE}`;
    expect(installed.args).toEqual([...spec.args, '--settings', path]);
    expect(installed.env).toEqual(spec.env);
    expect(installed.dirs).toEqual(spec.dirs);
    // Files are written under the home: this one one level up, in the attempt's directory.
    expect(Object.keys(installed.files)).toEqual([...Object.keys(spec.files), `../${GATES_SETTINGS_FILE}`]);
  });

  it('runs the gate runner on every tool before and after (a failure too) and at the stop, whatever other settings say of hooks', () => {
    const installed = claudeHooks.install(claudeCommand(base), GATE);
    const settings = JSON.parse(installed.files[`../${GATES_SETTINGS_FILE}`] ?? '') as unknown;
    const hook = (event: string) => [
      {
        type: 'command',
        command: `${GATE.shellCommand(event as 'PreToolUse')} --harness claude-code --sha256 ${GATES_SHA256}`,
      },
    ];
    expect(settings).toStrictEqual({
      disableAllHooks: false,
      hooks: {
        PreToolUse: [{ matcher: '.*', hooks: hook('PreToolUse') }],
        PostToolUse: [{ matcher: '.*', hooks: hook('PostToolUse') }],
        PostToolUseFailure: [{ matcher: '.*', hooks: hook('PostToolUse') }],
        Stop: [{ hooks: hook('Stop') }],
      },
    });
  });
});
