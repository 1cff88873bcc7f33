/**
 * How HarmFlow's gates are installed for one Claude Code attempt (reference note §8, verified with
 * 2.1.332): a settings file in the attempt's directory, out of the agent's private home, passed with
 * `--settings`, whose hooks call the gate runner (`gateRunner`: with the gates file's digest) before
 * every tool call (`PreToolUse`, which can deny it), after every call that ran (`PostToolUse`, and
 * `PostToolUseFailure` for one that failed, both given to the runner as `PostToolUse`) and when the
 * agent stops (`Stop`). `--settings` adds to the settings Claude Code reads and changes nothing of
 * the user's own, and takes precedence over all but managed settings: its `disableAllHooks: false`
 * keeps the hooks on whatever the user's or the worktree's settings say. Pure.
 */
import { GATE_EVENTS, type GateEvent } from '../../gates/hook-event.js';
import { attemptFile, gateRunner, type HarnessHooks } from '../hooks.js';

/** The settings file, in the attempt's directory. */
export const GATES_SETTINGS_FILE = 'claude-code-hooks.json';

/** `.*`: every tool, built-in or MCP; the gates decide what they look at. */
const EVERY_TOOL = '.*';

export const claudeHooks: HarnessHooks = {
  events: GATE_EVENTS,
  install(spec, input) {
    const gate = gateRunner(input, 'claude-code');
    const hook = (event: GateEvent) => [{ type: 'command', command: gate.shellCommand(event) }];
    const settings = {
      // Command-line settings win over the worktree's `.claude/settings{,.local}.json`, which the
      // agent can write: there `disableAllHooks: true` turned every gate off (verified with 2.1.332).
      disableAllHooks: false,
      hooks: {
        PreToolUse: [{ matcher: EVERY_TOOL, hooks: hook('PreToolUse') }],
        PostToolUse: [{ matcher: EVERY_TOOL, hooks: hook('PostToolUse') }],
        // A failed call (a non-zero exit, a tool error) fires this instead: its operations count too.
        PostToolUseFailure: [{ matcher: EVERY_TOOL, hooks: hook('PostToolUse') }],
        Stop: [{ hooks: hook('Stop') }],
      },
    };
    const { path, file } = attemptFile(input, GATES_SETTINGS_FILE);
    return {
      ...spec,
      args: [...spec.args, '--settings', path],
      files: { ...spec.files, [file]: `${JSON.stringify(settings, null, 2)}\n` },
    };
  },
};
