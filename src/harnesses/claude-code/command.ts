/**
 * The Claude Code command line and environment for one turn (reference note §3.1–3.2, the argv fixed
 * in the project brief). Pure: builds data, starts nothing.
 */
import { join } from 'node:path';
import type { CommandInput, CommandSpec } from '../adapter.js';
import { promptArg } from '../argv.js';
import { buildEnv, CLI_LANG } from '../env.js';

/** The executable on PATH. */
export const CLAUDE_BINARY = 'claude';

/**
 * Claude's own API retries per request. 2: the default is 10 (clamped at 15), which the note measured
 * at ~3 minutes before a 429, 529 or even a 401 surfaced (182 s, 184 s, 186 s); with 2 the same error
 * surfaced after 3 requests in ~2.9 s. A subscription limit and a credit-balance error are never
 * retried, so the bound costs nothing on the quota path and keeps a transient error from eating the
 * execution's single deadline.
 */
const MAX_RETRIES = '2';

/** Variables the task may not override: they keep each attempt's Claude state private. */
const ISOLATED = ['HOME', 'CLAUDE_CONFIG_DIR'] as const;

/**
 * Builds `claude -p <prompt> [--resume <id>] --output-format stream-json --verbose
 * --dangerously-skip-permissions [--model M] [extra…]` and its clean environment.
 */
export function claudeCommand(input: CommandInput): CommandSpec {
  const args = [
    '-p',
    promptArg(input.prompt),
    ...(input.resumeSessionId !== undefined ? ['--resume', input.resumeSessionId] : []),
    // stream-json requires --verbose (note §3.2).
    '--output-format',
    'stream-json',
    '--verbose',
    '--dangerously-skip-permissions',
    ...(input.model !== undefined ? ['--model', input.model] : []),
    ...input.extraArgs,
  ];
  const own = {
    PATH: input.path,
    HOME: join(input.homeDir, 'home'),
    // Sessions, settings and ~/.claude.json all live here (note §3.1); resuming needs the same dir.
    CLAUDE_CONFIG_DIR: join(input.homeDir, 'claude-config'),
    LANG: CLI_LANG,
    // As root, --dangerously-skip-permissions exits 1 without it (note §3.2, gotcha 1).
    IS_SANDBOX: '1',
    // These four kept the only connection on the configured API host (note §3.1 network check).
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_MAX_RETRIES: MAX_RETRIES,
  };
  return {
    command: CLAUDE_BINARY,
    args,
    env: buildEnv(own, input.env, ISOLATED),
    dirs: ['home', 'claude-config'],
    files: {},
  };
}
