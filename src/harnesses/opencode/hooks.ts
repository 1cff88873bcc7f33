/**
 * HarmFlow's gates in OpenCode (checked against `opencode-ai@1.18.33`): a plugin file in the attempt's
 * private global config dir that runs the gate runner around every tool call. OpenCode has no
 * command hooks; its plugins are JS modules it loads from `{plugin,plugins}/*.{js,ts}` of each config
 * dir, with no network and without `@opencode-ai/plugin` installed. The plugin (generated below, the
 * gate argv embedded: `gateRunner`, with the gates file's digest) writes one Claude Code–shaped hook
 * input on the runner's stdin and reads a Claude Code–shaped answer, so the dialect
 * (`hook-dialect.ts`) stays close to Claude Code's:
 *
 * - `tool.execute.before` → `PreToolUse` `{session_id, cwd, hook_event_name, tool_name, tool_input,
 *   tool_use_id}` with OpenCode's own tool name and args. A `permissionDecision: "deny"` answer (or
 *   exit 2 with a reason on stderr, as Claude Code reads it) is thrown as an Error: OpenCode then
 *   skips the call and sends the model the message as the tool's result.
 * - `tool.execute.after` → `PostToolUse` with `tool_response: {title, output, metadata}` (bash:
 *   `metadata.exit`). Called only for calls that ran. Its answer is not read.
 * - `session.idle` of a root session → `Stop`, once per session.
 *
 * The runner inherits OpenCode's environment, with the install input's `env` set on top (embedded in
 * the plugin, so it reaches the runner whatever OpenCode does to its own environment).
 *
 * Every gate runs with `spawnSync`: `opencode run` exits on idle without waiting for an async event
 * handler, so only a blocking call lets the Stop gate finish. Any failure of the gate runner itself
 * (not started, killed, exit other than 0 or 2, timeout) lets the call go on, as a failing Claude Code
 * hook does, with one line on stderr; the plugin never throws except to deny, because an error thrown
 * after the call would turn a call that ran into a failed one.
 */
import { join } from 'node:path';
import type { GateEvent } from '../../gates/hook-event.js';
import type { CommandSpec } from '../adapter.js';
import { gateRunner, type HarnessHooks, type HookInstallInput } from '../hooks.js';
import { PLUGIN_DIR } from './command.js';

/** Where the plugin goes, relative to the attempt's home: the global config dir's `plugins/` folder. */
export const GATE_PLUGIN_FILE = join(PLUGIN_DIR, 'plugins', 'harmflow-gates.js');

/**
 * How long the plugin waits for one gate run before it kills it and lets the call go on. A backstop
 * only: the gate runner keeps its own budget (its work plus each custom gate's timeout); 10 minutes,
 * as the Codex install gives its hooks.
 */
export const GATE_TIMEOUT_MS = 600_000;

const EVENTS = ['PreToolUse', 'PostToolUse', 'Stop'] as const satisfies readonly GateEvent[];

/**
 * `--pure` / `OPENCODE_PURE` make OpenCode load no plugin from its config dirs, ours included (a run
 * with `OPENCODE_PURE=1` ran a command the gate denies), so the install drops both.
 */
const PURE_FLAG = /^--pure(=.*)?$/;
const PURE_VARIABLE = 'OPENCODE_PURE';

export const opencodeHooks: HarnessHooks = {
  events: EVENTS,
  install(spec: CommandSpec, input: HookInstallInput): CommandSpec {
    const gate = gateRunner(input, 'opencode');
    const argv = Object.fromEntries(EVENTS.map((event) => [event, gate.argv(event)]));
    const { [PURE_VARIABLE]: _, ...env } = spec.env;
    return {
      ...spec,
      args: spec.args.filter((arg) => !PURE_FLAG.test(arg)),
      env,
      files: { ...spec.files, [GATE_PLUGIN_FILE]: gatePluginSource(argv, input.env) },
    };
  },
};

/**
 * The plugin module's source, with `argv` (event → gate runner argv) and `env` (set on the runner on
 * top of OpenCode's own environment, which it inherits) embedded. Plain JS, Node built-ins only.
 */
export function gatePluginSource(
  argv: Readonly<Record<string, readonly string[]>>,
  env: Readonly<Record<string, string>>,
): string {
  return `// HarmFlow's gates for OpenCode, written by HarmFlow for one attempt (src/harnesses/opencode/hooks.ts).
import { spawnSync } from 'node:child_process';

const GATES = ${JSON.stringify(argv)};
const GATE_ENV = ${JSON.stringify(env)};
const TIMEOUT_MS = ${GATE_TIMEOUT_MS};
const DENIED = 'denied by a HarmFlow gate';

function warn(message) {
  process.stderr.write('harmflow gates: ' + message + '\\n');
}

/** Runs the gate for event with input on stdin: {deny: reason} for a deny, otherwise undefined. */
function gate(event, input) {
  const [program, ...args] = GATES[event];
  const run = spawnSync(program, args, {
    input: JSON.stringify(input),
    env: { ...process.env, ...GATE_ENV },
    encoding: 'utf8',
    timeout: TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (run.error) {
    warn(event + ' gate failed: ' + run.error.message);
    return undefined;
  }
  if (run.status === 2) return { deny: run.stderr.trim() || DENIED };
  if (run.status !== 0) {
    warn(event + ' gate exited with ' + (run.status ?? run.signal) + ': ' + run.stderr.trim());
    return undefined;
  }
  return denyOf(run.stdout);
}

function denyOf(stdout) {
  let answer;
  try {
    answer = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  const out = answer && typeof answer === 'object' ? answer.hookSpecificOutput : undefined;
  if (!out || out.permissionDecision !== 'deny') return undefined;
  const reason = out.permissionDecisionReason;
  return { deny: typeof reason === 'string' && reason.trim() !== '' ? reason : DENIED };
}

function safely(event, input) {
  try {
    return gate(event, input);
  } catch (error) {
    warn(event + ' gate failed: ' + (error && error.message ? error.message : String(error)));
    return undefined;
  }
}

export const HarmflowGates = async ({ directory }) => {
  const children = new Set();
  const stopped = new Set();
  return {
    'tool.execute.before': async (input, output) => {
      const verdict = safely('PreToolUse', {
        session_id: input.sessionID,
        cwd: directory,
        hook_event_name: 'PreToolUse',
        tool_name: input.tool,
        tool_input: output.args,
        tool_use_id: input.callID,
      });
      if (verdict) throw new Error(verdict.deny);
    },
    'tool.execute.after': async (input, output) => {
      safely('PostToolUse', {
        session_id: input.sessionID,
        cwd: directory,
        hook_event_name: 'PostToolUse',
        tool_name: input.tool,
        tool_input: input.args,
        tool_use_id: input.callID,
        tool_response: output ? { title: output.title, output: output.output, metadata: output.metadata } : null,
      });
    },
    event: async ({ event }) => {
      const properties = event.properties || {};
      if (event.type === 'session.created' && properties.info && properties.info.parentID) {
        children.add(properties.info.id);
      }
      if (event.type !== 'session.idle') return;
      const session = properties.sessionID;
      if (children.has(session) || stopped.has(session)) return;
      stopped.add(session);
      safely('Stop', { session_id: session, cwd: directory, hook_event_name: 'Stop', stop_hook_active: false });
    },
  };
};
`;
}
