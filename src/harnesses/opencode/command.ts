/**
 * The OpenCode command line, environment and files for one turn (reference note §3.1–3.2, checked
 * against `opencode-ai@1.18.33`). Pure: builds data, starts nothing.
 */
import { join } from 'node:path';
import type { CommandInput, CommandSpec } from '../adapter.js';
import { promptArg } from '../argv.js';
import { buildEnv, CLI_LANG } from '../env.js';

/** The executable on PATH. */
export const OPENCODE_BINARY = 'opencode';

/**
 * The title every session HarmFlow starts gets. Giving one skips OpenCode's title-generation call to
 * the small model (note §3.2): without it a first turn made two model requests, with it one.
 */
export const SESSION_TITLE = 'harmflow';

/** Folders under the attempt's home dir: the private HOME and OpenCode's four XDG base dirs. */
const HOME_DIR = 'home';
const XDG_DIRS = {
  XDG_CONFIG_HOME: 'xdg-config',
  XDG_DATA_HOME: 'xdg-data',
  XDG_CACHE_HOME: 'xdg-cache',
  XDG_STATE_HOME: 'xdg-state',
} as const;

/**
 * Where OpenCode keeps the npm project of its global config dir, relative to the attempt's home dir.
 * On every start OpenCode installs `@opencode-ai/plugin` there in the background with its bundled npm
 * (Arborist, in process: no `npm` child), which fetches the package from the registry and fills
 * `$HOME/.npm` (note §1). It skips the install when that dir already has a `node_modules` folder and a
 * `package-lock.json` whose root lists every dependency it wants (`Npm.install` in the binary), so
 * HarmFlow creates both: the run then makes no registry request at all (checked with the registry
 * pointed at a loopback logger). Project `.opencode/` dirs in the worktree are the repository's own.
 */
export const PLUGIN_DIR = join(XDG_DIRS.XDG_CONFIG_HOME, 'opencode');
export const PLUGIN_LOCK_FILE = join(PLUGIN_DIR, 'package-lock.json');
const PLUGIN_LOCK = `${JSON.stringify({ packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } })}\n`;

/** Variables the task may not override: they keep each attempt's OpenCode sessions, config and logs private. */
const ISOLATED = ['HOME', ...Object.keys(XDG_DIRS)];

/**
 * Builds `opencode run --format json --print-logs --log-level INFO --auto [--title harmflow | -s <session>]
 * [-m M] [extra…] <prompt>`, its clean environment and the files that stop the plugin install.
 *
 * - `--print-logs --log-level INFO`: each failed model request is logged on stderr as it happens
 *   (`message="stream error" … error.error="AI_APICallError: …"`), while `--format json` shows nothing
 *   until OpenCode's five retries are over (note §3.6); the stderr watcher reads those lines.
 * - `--auto`: without it every permission OpenCode would ask for is rejected, and it asks for any path
 *   outside the cwd: reading `/etc/hostname` from bash or the handoff's `context.json` (under
 *   HARMFLOW_HOME) with `read` was rejected in 1.18.33. Writes and shell commands inside the cwd need
 *   no approval. This matches the other adapters, which bypass approvals too.
 * - `--title` only on a first turn: OpenCode uses it only when it creates a session.
 * - The prompt: OpenCode joins its positional words and wraps any word containing a space in double
 *   quotes (inner `"` escaped), so the model sees the prompt quoted; one argv element keeps it intact
 *   otherwise. A first word such as `run` is read as the message, not a subcommand.
 *
 * The provider (custom `baseURL`, keys) comes from the task: `OPENCODE_CONFIG` /
 * `OPENCODE_CONFIG_CONTENT` in its env, or `opencode.json` in the repository; never from here.
 */
export function opencodeCommand(input: CommandInput): CommandSpec {
  const args = [
    'run',
    '--format',
    'json',
    '--print-logs',
    '--log-level',
    'INFO',
    '--auto',
    ...(input.resumeSessionId !== undefined ? ['-s', input.resumeSessionId] : ['--title', SESSION_TITLE]),
    ...(input.model !== undefined ? ['-m', input.model] : []),
    ...input.extraArgs,
    promptArg(input.prompt),
  ];
  const xdg = Object.fromEntries(Object.entries(XDG_DIRS).map(([name, dir]) => [name, join(input.homeDir, dir)]));
  const own = {
    PATH: input.path,
    HOME: join(input.homeDir, HOME_DIR),
    ...xdg,
    LANG: CLI_LANG,
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    // Otherwise it fetches the model catalogue from models.dev at startup (note §3.2).
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_SHARE: '1',
  };
  return {
    command: OPENCODE_BINARY,
    args,
    env: buildEnv(own, input.env, ISOLATED),
    dirs: [HOME_DIR, ...Object.values(XDG_DIRS), join(PLUGIN_DIR, 'node_modules')],
    files: { [PLUGIN_LOCK_FILE]: PLUGIN_LOCK },
  };
}
