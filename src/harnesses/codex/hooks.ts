/**
 * Installs HarmFlow's gates into one Codex turn (verified against codex-cli 0.171.0 `exec`, notes in
 * docs/harnesses.md): a `hooks.json` in the attempt's private `$CODEX_HOME` that runs the gate runner
 * (`gateRunner`: with the gates file's digest) on `PreToolUse`, `PostToolUse` and `Stop`, and
 * `--dangerously-bypass-hook-trust`, without which Codex skips every hook it has not been told to
 * trust — silently, with no warning in `--json` output. The user's own configuration is never read or written. Pure.
 *
 * With the flag, Codex emits two `item.completed` items of type `error` ("`--dangerously-bypass-hook-trust`
 * is enabled…") at the start of every turn; they are warnings, not failures. Hooks in the worktree's
 * own `.codex/` stay off: Codex loads a project's hooks only in a trusted project, flag or not.
 */
import { posix } from 'node:path';
import type { GateEvent } from '../../gates/hook-event.js';
import type { CommandSpec } from '../adapter.js';
import { type GateRunner, gateRunner, type HarnessHooks, type HookInstallInput } from '../hooks.js';
import { CODEX_CONFIG_FILE } from './command.js';

/** The hooks file, next to `config.toml` in the attempt's `$CODEX_HOME` (relative to its home dir). */
export const CODEX_HOOKS_FILE = posix.join(posix.dirname(CODEX_CONFIG_FILE), 'hooks.json');

/** Lets hooks run that nobody reviewed in Codex's `/hooks` screen; HarmFlow wrote them itself. */
const BYPASS_HOOK_TRUST = '--dangerously-bypass-hook-trust';

/**
 * Seconds Codex gives one hook run before it kills it (Codex's documented default, written out so a
 * new default cannot shorten it). A hook that times out, fails (exit 1; exit 2 with nothing on
 * stderr) or prints anything but a valid answer is a failed hook, and the call runs: fail-open.
 */
const CODEX_HOOK_TIMEOUT_SECONDS = 600;

const EVENTS = ['PreToolUse', 'PostToolUse', 'Stop'] as const satisfies readonly GateEvent[];

/**
 * The `hooks.json` that runs `gate.shellCommand(event)` for each event. No `matcher`: every tool
 * (`Bash`, `apply_patch`, MCP tools) goes through the gates. Codex runs `command` through a shell.
 */
function codexHooksJson(gate: GateRunner): string {
  const hooks = Object.fromEntries(
    EVENTS.map((event) => [
      event,
      [{ hooks: [{ type: 'command', command: gate.shellCommand(event), timeout: CODEX_HOOK_TIMEOUT_SECONDS }] }],
    ]),
  );
  return `${JSON.stringify({ hooks }, null, 2)}\n`;
}

/** Returns `spec` (a `codex exec …` command) with the hooks file and the trust flag added. */
function install(spec: CommandSpec, input: HookInstallInput): CommandSpec {
  const [subcommand, ...rest] = spec.args;
  if (subcommand !== 'exec') throw new Error(`codex hooks: expected a \`codex exec\` command, got ${subcommand}`);
  return {
    ...spec,
    // Right after `exec`: before the task's args, a `resume <id>` and the prompt.
    args: [subcommand, BYPASS_HOOK_TRUST, ...rest],
    files: { ...spec.files, [CODEX_HOOKS_FILE]: codexHooksJson(gateRunner(input, 'codex')) },
  };
}

export const codexHooks: HarnessHooks = { events: EVENTS, install };
