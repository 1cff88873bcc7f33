import { describe, expect, it } from 'vitest';
import { claudeCommand } from '../../../src/harnesses/claude-code/command.js';
import { claudeHooks, GATES_SETTINGS_FILE } from '../../../src/harnesses/claude-code/hooks.js';
import { commandInput, GATE } from '../hook-fixture.js';

const base = commandInput({ extraArgs: ['--max-turns', '40'], env: { ANTHROPIC_API_KEY: 'sk-sim-0000' } });

describe('claudeHooks.install', () => {
  it('declares the three gate events', () => {
    expect(claudeHooks.events).toEqual(['PreToolUse', 'PostToolUse', 'Stop']);
  });

  it('passes a settings file in the private home with --settings; argv, env and dirs otherwise stay', () => {
    const spec = claudeCommand(base);
    const installed = claudeHooks.install(spec, GATE);
    const path = `${base.homeDir}/${GATES_SETTINGS_FILE}`;
    expect(installed.args).toEqual([...spec.args, '--settings', path]);
    expect(installed.env).toEqual(spec.env);
    expect(installed.dirs).toEqual(spec.dirs);
    expect(Object.keys(installed.files)).toEqual([...Object.keys(spec.files), GATES_SETTINGS_FILE]);
  });

  it('runs the gate runner on every tool before and after (a failure too) and at the stop', () => {
    const installed = claudeHooks.install(claudeCommand(base), GATE);
    const settings = JSON.parse(installed.files[GATES_SETTINGS_FILE] ?? '') as unknown;
    const hook = (event: string) => [{ type: 'command', command: GATE.shellCommand(event as 'PreToolUse') }];
    expect(settings).toStrictEqual({
      hooks: {
        PreToolUse: [{ matcher: '.*', hooks: hook('PreToolUse') }],
        PostToolUse: [{ matcher: '.*', hooks: hook('PostToolUse') }],
        PostToolUseFailure: [{ matcher: '.*', hooks: hook('PostToolUse') }],
        Stop: [{ hooks: hook('Stop') }],
      },
    });
  });
});
