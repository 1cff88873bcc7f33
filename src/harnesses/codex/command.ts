/**
 * The Codex CLI command line, environment and config file for one turn (reference note §4.1–4.2, the
 * argv fixed in the project brief). Pure: builds data, starts nothing.
 */
import { join } from 'node:path';
import type { CommandInput, CommandSpec } from '../adapter.js';
import { promptArg } from '../argv.js';
import { buildEnv, CLI_LANG } from '../env.js';

/** The executable on PATH. */
export const CODEX_BINARY = 'codex';

/** Where the config file goes, relative to the attempt's home dir; CODEX_HOME points at its folder. */
export const CODEX_CONFIG_FILE = 'codex-home/config.toml';

/**
 * The attempt's `$CODEX_HOME/config.toml`. Without the `[features]` block codex 0.171.0 made DNS
 * queries for a curated-plugin sync at startup (GitHub, chatgpt.com); with it, and the update check
 * and analytics off, its only connection was the model API (note §4.1 network check, gotcha 9).
 * The task's provider, model and keys come from its `-c` args and env, never from here. Shell
 * commands run without a login shell (`allow_login_shell = false`, verified with 0.171.0): with one,
 * Debian's /etc/profile reset PATH and `gh` from HarmFlow's PATH was `command not found` (exit 127).
 *
 * Codex's own retries are not bounded here: `request_max_retries` / `stream_max_retries` exist only per
 * provider (`model_providers.<id>.*`), HarmFlow cannot know the id of a provider the task configures,
 * and the built-in `openai` provider cannot be overridden (codex-rs merges configured providers with
 * `entry(key).or_insert`, so a `model_providers.openai.*` override is ignored). Codex honours
 * `retry-after` without a cap (note §4.4), so what bounds a turn is the execution's deadline, which the
 * engine enforces on every attempt; a task that wants fewer retries sets them for its own provider with
 * `-c model_providers.<id>.request_max_retries=0` in its args.
 */
export const CODEX_CONFIG = `# Written by HarmFlow for one attempt: no update check, analytics or startup network calls.
check_for_update_on_startup = false
# Commands run with bash -c, not -lc: a login shell rereads /etc/profile, which resets PATH (and with
# it HarmFlow's bin directories and the task's tools).
allow_login_shell = false

[analytics]
enabled = false

[features]
plugins = false
apps = false
remote_plugin = false
in_app_updates = false
`;

/** Variables the task may not override: they keep each attempt's Codex state private. */
const ISOLATED = ['HOME', 'CODEX_HOME'] as const;

/**
 * Builds `codex exec --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox [-m M]
 * [extra…] [resume <thread_id>] <prompt>` (the prompt always last), its clean environment and the
 * config file to write first.
 */
export function codexCommand(input: CommandInput): CommandSpec {
  const args = [
    'exec',
    '--json',
    // Needed outside a git repository, harmless inside one (note §4.2).
    '--skip-git-repo-check',
    // The default read-only sandbox makes commands fail silently (note gotcha 6).
    '--dangerously-bypass-approvals-and-sandbox',
    ...(input.model !== undefined ? ['-m', input.model] : []),
    ...input.extraArgs,
    ...(input.resumeSessionId !== undefined ? ['resume', input.resumeSessionId] : []),
    promptArg(input.prompt),
  ];
  const own = {
    PATH: input.path,
    HOME: join(input.homeDir, 'home'),
    // Sessions go to $CODEX_HOME/sessions/…; resuming a thread needs the same dir (note §4.2).
    CODEX_HOME: join(input.homeDir, 'codex-home'),
    LANG: CLI_LANG,
  };
  return {
    command: CODEX_BINARY,
    args,
    env: buildEnv(own, input.env, ISOLATED),
    dirs: ['home', 'codex-home'],
    files: { [CODEX_CONFIG_FILE]: CODEX_CONFIG },
  };
}
