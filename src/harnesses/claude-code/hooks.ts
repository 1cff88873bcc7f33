/**
 * How HarmFlow's gates are installed for one Claude Code attempt (reference note §8, verified with
 * 2.1.332): a settings file in the attempt's private home, passed with `--settings`, whose hooks call
 * the gate runner before every tool call (`PreToolUse`, which can deny it), after every call that
 * ran (`PostToolUse`, and `PostToolUseFailure` for one that failed, both given to the runner as
 * `PostToolUse`) and when the agent stops (`Stop`). `--settings` adds to the settings Claude
 * Code reads and changes nothing of the user's own. Pure.
 */
import { join } from 'node:path';
import { GATE_EVENTS, type GateEvent } from '../../gates/hook-event.js';
import type { HarnessHooks } from '../hooks.js';

/** The settings file, under the attempt's private home. */
export const GATES_SETTINGS_FILE = 'harmflow-gates.json';

/** `.*`: every tool, built-in or MCP; the gates decide what they look at. */
const EVERY_TOOL = '.*';

export const claudeHooks: HarnessHooks = {
  events: GATE_EVENTS,
  install(spec, input) {
    const hook = (event: GateEvent) => [{ type: 'command', command: input.shellCommand(event) }];
    const settings = {
      hooks: {
        PreToolUse: [{ matcher: EVERY_TOOL, hooks: hook('PreToolUse') }],
        PostToolUse: [{ matcher: EVERY_TOOL, hooks: hook('PostToolUse') }],
        // A failed call (a non-zero exit, a tool error) fires this instead: its operations count too.
        PostToolUseFailure: [{ matcher: EVERY_TOOL, hooks: hook('PostToolUse') }],
        Stop: [{ hooks: hook('Stop') }],
      },
    };
    return {
      ...spec,
      args: [...spec.args, '--settings', join(input.homeDir, GATES_SETTINGS_FILE)],
      files: { ...spec.files, [GATES_SETTINGS_FILE]: `${JSON.stringify(settings, null, 2)}\n` },
    };
  },
};
