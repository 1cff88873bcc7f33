/**
 * The Gemini CLI command line, environment and settings file for one turn (reference note §2.1–2.2,
 * §2.6, §2.8). Pure: builds data, starts nothing.
 */
import { join } from 'node:path';
import type { CommandInput, CommandSpec } from '../adapter.js';
import { promptArg } from '../argv.js';
import { buildEnv, CLI_LANG } from '../env.js';

/** The executable on PATH. */
export const GEMINI_BINARY = 'gemini';

/** Where the settings file goes, relative to the attempt's home dir; GEMINI_CLI_HOME points two levels up. */
export const GEMINI_SETTINGS_FILE = 'gemini-home/.gemini/settings.json';

/**
 * Gemini's own attempts per API request. 3: the default of 10 kept a transient 429 or a 500 going for
 * 213–251 s (note §2.6); with 3, a per-minute 429, a bare 429, a 500 and a 503 each ended after
 * 14.5–20.2 s, ~2.5 s of it startup (three rounds against a loopback server: two waits of ~5 s and
 * ~10 s, or the server's RetryInfo). 1 would not retry a transient 429 at all, and fewer than 3 also
 * cuts short the two silent retries a capacity error gets before Gemini calls it a
 * `TerminalQuotaError` (it then ends as `Max attempts reached` instead; bundle retry.js). A daily
 * quota is never retried, so the bound costs nothing on the quota path.
 */
const MAX_ATTEMPTS = 3;

/**
 * The attempt's `$GEMINI_CLI_HOME/.gemini/settings.json`. The auth type must be set: with only
 * `GOOGLE_GEMINI_BASE_URL` in the env, Gemini picks the `gateway` type, which headless mode rejects
 * with exit 41 (note §2.2, gotcha 1); `gemini-api-key` still honours the base URL. Updates, usage
 * statistics and telemetry off: with these the only connection of a run was the model API (note §1,
 * strace). The task's key and base URL come from its env, never from here.
 */
export const GEMINI_SETTINGS = `${JSON.stringify(
  {
    security: { auth: { selectedType: 'gemini-api-key' } },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: MAX_ATTEMPTS },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  },
  null,
  2,
)}\n`;

/** Variables the task may not override: they keep each attempt's Gemini state and error reports private. */
const ISOLATED = ['HOME', 'GEMINI_CLI_HOME', 'TMPDIR'] as const;

/**
 * Builds `gemini -p <prompt> [--resume <session>] --output-format stream-json --yolo --skip-trust
 * [-m M] [extra…]` (the resume right after the prompt, as for Claude Code), its clean environment and
 * the settings file to write first.
 */
export function geminiCommand(input: CommandInput): CommandSpec {
  const args = [
    '-p',
    promptArg(input.prompt),
    // Sessions are kept per cwd; the engine resumes in the same worktree (note §2.7).
    ...(input.resumeSessionId !== undefined ? ['--resume', input.resumeSessionId] : []),
    // -o json writes nothing to stdout on an error and -o text prints `[object Object]` (gotcha 4).
    '--output-format',
    'stream-json',
    // Without it the write and shell tools are not even offered to the model (gotcha 3).
    '--yolo',
    // Otherwise an untrusted worktree exits 55 (gotcha 2).
    '--skip-trust',
    ...(input.model !== undefined ? ['-m', input.model] : []),
    ...input.extraArgs,
  ];
  const own = {
    PATH: input.path,
    HOME: join(input.homeDir, 'home'),
    // Settings and sessions live under $GEMINI_CLI_HOME/.gemini; resuming needs the same dir (note §2.7).
    GEMINI_CLI_HOME: join(input.homeDir, 'gemini-home'),
    // Gemini writes a gemini-client-error-*.json report to os.tmpdir() on every API error (gotcha 8).
    TMPDIR: join(input.homeDir, 'tmp'),
    LANG: CLI_LANG,
    // One process instead of a relauncher that ignores SIGTERM and SIGINT (note §2.8): SIGTERM then
    // ends the run in ~20 ms, even when sent to the pid alone (measured; exit 0, no result line).
    GEMINI_CLI_NO_RELAUNCH: 'true',
    // The env variable overrides `telemetry.enabled` in the settings (note §2.2).
    GEMINI_TELEMETRY_ENABLED: 'false',
    // Fatal errors are printed in red otherwise; the classifier quotes stderr lines.
    NO_COLOR: '1',
  };
  return {
    command: GEMINI_BINARY,
    args,
    env: buildEnv(own, input.env, ISOLATED),
    dirs: ['home', 'gemini-home', 'tmp'],
    files: { [GEMINI_SETTINGS_FILE]: GEMINI_SETTINGS },
  };
}
