/**
 * Installs HarmFlow's gates into one Gemini CLI turn (verified against @google/gemini-cli 0.61.0
 * `-p … --yolo --skip-trust`, notes in docs/harnesses.md): a `hooks` section in the attempt's own
 * `$GEMINI_CLI_HOME/.gemini/settings.json`, merged into the settings file the command already writes,
 * that runs the gate runner (`gateRunner`: with the gates file's digest) on `BeforeTool`, `AfterTool`
 * and `AfterAgent`. Gemini runs hooks from these user settings with no trust prompt in headless mode. The user's own configuration and the
 * worktree's `.gemini/` are never read or written. Pure.
 *
 * Gemini hands a hook its own environment unchanged, unless the variables say it runs in GitHub
 * Actions (`GITHUB_SHA`, `SURFACE=Github`): then only PATH, HOME, LANG, TMPDIR, `GEMINI_CLI_*` and a
 * few others reach it, so the gate runner's command line must carry what it needs.
 */
import type { GateEvent } from '../../gates/hook-event.js';
import type { CommandSpec } from '../adapter.js';
import { type GateRunner, gateRunner, type HarnessHooks, type HookInstallInput } from '../hooks.js';
import { GEMINI_SETTINGS_FILE } from './command.js';
import { GEMINI_HOOK_EVENTS } from './hook-dialect.js';

/**
 * Milliseconds Gemini gives one hook run (its default is 60 000) before it sends SIGTERM, then SIGKILL
 * 5 s later. A hook that times out counts as failed and the call runs, as after an exit 1: the runner
 * must answer in time. 600 s, as for Codex, so that a slow gate is not waved through.
 */
export const GEMINI_HOOK_TIMEOUT_MS = 600_000;

/**
 * Trusting the worktree through the environment (rather than `--skip-trust`) makes Gemini load the
 * worktree's `.gemini/settings.json`, whose `hooksConfig.enabled: false` or `hooksConfig.disabled`
 * then switches the gates off (observed). The install drops it; `--skip-trust` still trusts the folder.
 */
const WORKSPACE_TRUST_VARIABLE = 'GEMINI_CLI_TRUST_WORKSPACE';

const EVENTS = ['PreToolUse', 'PostToolUse', 'Stop'] as const satisfies readonly GateEvent[];

/**
 * The `hooks` settings that run `gate.shellCommand(event)` for each event, with `input.env`. No
 * `matcher`: every tool (built-in and MCP) goes through the gates. Gemini runs `command` with `bash -c`.
 */
function geminiHookSettings(gate: GateRunner, input: Pick<HookInstallInput, 'env'>): Record<string, unknown> {
  return Object.fromEntries(
    EVENTS.map((event) => [
      GEMINI_HOOK_EVENTS[event],
      [
        {
          hooks: [
            {
              name: `harmflow-gate-${event}`,
              type: 'command',
              command: gate.shellCommand(event),
              // Gemini keeps only an allow list of variables for hooks under some CI settings; the
              // runner's own (HARMFLOW_GATE_DIR) are given here so they always reach it.
              env: input.env,
              timeout: GEMINI_HOOK_TIMEOUT_MS,
            },
          ],
        },
      ],
    ]),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Returns `spec` (a `gemini -p …` command) with the hooks merged into its settings file. */
function install(spec: CommandSpec, input: HookInstallInput): CommandSpec {
  const text = spec.files[GEMINI_SETTINGS_FILE];
  const settings: unknown = text === undefined ? undefined : JSON.parse(text);
  if (!isRecord(settings))
    throw new Error(`gemini hooks: the command writes no settings object at ${GEMINI_SETTINGS_FILE}`);
  const merged = {
    ...settings,
    hooksConfig: { enabled: true },
    hooks: geminiHookSettings(gateRunner(input, 'gemini'), input),
  };
  const env = Object.fromEntries(Object.entries(spec.env).filter(([name]) => name !== WORKSPACE_TRUST_VARIABLE));
  return {
    ...spec,
    env,
    files: { ...spec.files, [GEMINI_SETTINGS_FILE]: `${JSON.stringify(merged, null, 2)}\n` },
  };
}

export const geminiHooks: HarnessHooks = { events: EVENTS, install };
