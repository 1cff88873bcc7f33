/**
 * Reads the real CLIs' command lines the way `sim` needs them: the prompt, the model and the session
 * to resume. The shapes are the ones the adapters build (brief "Shared decisions"):
 *   claude -p <prompt> --output-format stream-json --verbose … [--resume <id>] [--model M] [extra…]
 *   codex exec --json … [-m M] [-c k=v…] [extra…] [resume <thread_id>] <prompt>
 * Unknown flags are accepted and ignored (the real CLIs have many); flags known to take a value have
 * it skipped, so a value is never mistaken for a positional argument.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** A command line `sim` cannot play: no prompt, no `exec`. The message is one line. */
export class InvocationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvocationError';
  }
}

/** What one invocation asks for. */
export interface Invocation {
  readonly prompt: string;
  readonly model?: string;
  /** The session (Claude Code) or thread (Codex) to resume; absent on a first turn. */
  readonly resumeId?: string;
  /** Claude Code `--session-id`: the id a new session must take. */
  readonly sessionId?: string;
  /** Codex `-c …stream_max_retries=N`: how many `Reconnecting...` lines a transient failure prints. */
  readonly streamMaxRetries?: number;
  /** The file listing the run's hooks: Claude Code `--settings`; Codex `$CODEX_HOME/hooks.json` under the trust flag. */
  readonly hooksFile?: string;
}

/** Splits `--flag=value` into its flag and value; other tokens come back whole. */
function splitInline(token: string): [string, string | undefined] {
  if (!token.startsWith('--')) return [token, undefined];
  const eq = token.indexOf('=');
  return eq === -1 ? [token, undefined] : [token.slice(0, eq), token.slice(eq + 1)];
}

interface Scanned {
  readonly values: Map<string, string[]>;
  readonly positionals: string[];
}

/** Walks argv once: values of known value flags (by canonical name) and the positional tokens. */
function scan(argv: readonly string[], valueFlags: Readonly<Record<string, string>>): Scanned {
  const values = new Map<string, string[]>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = splitInline(argv[i] ?? '');
    const name = valueFlags[flag];
    if (name === undefined) {
      if (!flag.startsWith('-') || flag === '-') positionals.push(flag);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new InvocationError(`option ${flag} needs a value`);
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  return { values, positionals };
}

const last = (values: readonly string[] | undefined): string | undefined => values?.[values.length - 1];

/** Claude Code options that take a value, by spelling → canonical name. */
const CLAUDE_VALUE_FLAGS: Readonly<Record<string, string>> = {
  '-p': 'prompt',
  '--print': 'prompt',
  '--model': 'model',
  '--resume': 'resume',
  '-r': 'resume',
  '--session-id': 'session-id',
  '--output-format': 'other',
  '--input-format': 'other',
  '--permission-mode': 'other',
  '--allowedTools': 'other',
  '--allowed-tools': 'other',
  '--disallowedTools': 'other',
  '--disallowed-tools': 'other',
  '--max-turns': 'other',
  '--max-budget-usd': 'other',
  '--settings': 'settings',
  '--mcp-config': 'other',
  '--system-prompt': 'other',
  '--append-system-prompt': 'other',
  '--add-dir': 'other',
  '--fallback-model': 'other',
  '--agents': 'other',
};

const uuid = z.uuid();

/** Parses Claude Code's argv (without the binary name). */
export function parseClaudeArgv(argv: readonly string[]): Invocation {
  const { values } = scan(argv, CLAUDE_VALUE_FLAGS);
  const prompt = last(values.get('prompt'));
  if (prompt === undefined) throw new InvocationError('claude-code command line has no prompt after -p');
  const model = last(values.get('model'));
  const resumeId = last(values.get('resume'));
  const sessionId = last(values.get('session-id'));
  const hooksFile = last(values.get('settings'));
  if (sessionId !== undefined && !uuid.safeParse(sessionId).success) {
    throw new InvocationError(`--session-id must be a UUID, got ${JSON.stringify(sessionId)}`);
  }
  return {
    prompt,
    ...(model !== undefined && { model }),
    ...(resumeId !== undefined && { resumeId }),
    ...(sessionId !== undefined && { sessionId }),
    ...(hooksFile !== undefined && { hooksFile }),
  };
}

/** Codex `exec` options that take a value, by spelling → canonical name. */
const CODEX_VALUE_FLAGS: Readonly<Record<string, string>> = {
  '-m': 'model',
  '--model': 'model',
  '-c': 'config',
  '--config': 'config',
  '-C': 'other',
  '--cd': 'other',
  '-s': 'other',
  '--sandbox': 'other',
  '-o': 'other',
  '--output-last-message': 'other',
  '--output-schema': 'other',
  '--enable': 'other',
  '--disable': 'other',
  '-p': 'other',
  '--profile': 'other',
  '-i': 'other',
  '--image': 'other',
  '--color': 'other',
  '--add-dir': 'other',
  '--local-provider': 'other',
};

/** `-c model_providers.<id>.stream_max_retries=N` (any provider): the last one given wins. */
function streamMaxRetries(configs: readonly string[] | undefined): number | undefined {
  let found: number | undefined;
  for (const config of configs ?? []) {
    const match = /(?:^|\.)stream_max_retries\s*=\s*(\d+)\s*$/.exec(config);
    if (match) found = Number(match[1]);
  }
  return found;
}

/** Without it Codex skips every hook nobody trusted in its TUI (docs/harnesses.md, Codex hooks). */
const CODEX_HOOK_TRUST_FLAG = '--dangerously-bypass-hook-trust';

/**
 * Parses Codex's argv (without the binary name): everything after `exec`, prompt last. `codexHome`
 * is `$CODEX_HOME`, where the hooks file lives.
 */
export function parseCodexArgv(argv: readonly string[], codexHome?: string): Invocation {
  const exec = argv.indexOf('exec');
  if (exec === -1) throw new InvocationError('codex command line has no `exec` subcommand');
  const prompt = argv.length > exec + 1 ? argv[argv.length - 1] : undefined;
  if (prompt === undefined || prompt.startsWith('-')) {
    throw new InvocationError('codex command line does not end with a prompt');
  }
  const { values, positionals } = scan(argv.slice(exec + 1, -1), CODEX_VALUE_FLAGS);
  let resumeId: string | undefined;
  if (positionals[0] === 'resume') {
    resumeId = positionals[1];
    if (resumeId === undefined) throw new InvocationError('codex `resume` needs a thread id before the prompt');
  }
  const model = last(values.get('model'));
  const retries = streamMaxRetries(values.get('config'));
  const hooksFile =
    codexHome !== undefined && argv.includes(CODEX_HOOK_TRUST_FLAG) ? join(codexHome, 'hooks.json') : undefined;
  return {
    prompt,
    ...(model !== undefined && { model }),
    ...(resumeId !== undefined && { resumeId }),
    ...(retries !== undefined && { streamMaxRetries: retries }),
    ...(hooksFile !== undefined && existsSync(hooksFile) && { hooksFile }),
  };
}
