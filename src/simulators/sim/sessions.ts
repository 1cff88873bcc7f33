/**
 * Sessions as the played CLI keeps them in its private home, so that resuming behaves as the real
 * CLI does: a session the home does not hold cannot be resumed. Claude Code keeps
 * `$CLAUDE_CONFIG_DIR/projects/<cwd, non-alphanumerics as ->/<session>.jsonl` and resumes one from any
 * project folder; Codex keeps `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl`
 * (harness notes §3 and §4.2). The simulator writes an empty file there, named as the CLI names it.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SimulatedHarness } from '../../core/outcome.js';

function configDir(harness: SimulatedHarness, env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? '.';
  if (harness === 'claude-code') return env.CLAUDE_CONFIG_DIR ?? join(home, '.claude');
  return env.CODEX_HOME ?? join(home, '.codex');
}

/** Records session `id`, started in `cwd`, where the played CLI keeps it. */
export function recordSession(harness: SimulatedHarness, id: string, cwd: string, env: NodeJS.ProcessEnv): void {
  const dir = configDir(harness, env);
  if (harness === 'claude-code') {
    const project = join(dir, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, `${id}.jsonl`), '', { flag: 'a' });
    return;
  }
  const now = new Date();
  const day = join(
    dir,
    'sessions',
    String(now.getFullYear()),
    String(now.getMonth() + 1).padStart(2, '0'),
    String(now.getDate()).padStart(2, '0'),
  );
  mkdirSync(day, { recursive: true });
  const stamp = now.toISOString().slice(0, 19).replace(/:/g, '-');
  writeFileSync(join(day, `rollout-${stamp}-${id}.jsonl`), '', { flag: 'a' });
}

/** True when the played CLI's home holds session `id`. */
export function sessionKnown(harness: SimulatedHarness, id: string, env: NodeJS.ProcessEnv): boolean {
  const root = join(configDir(harness, env), harness === 'claude-code' ? 'projects' : 'sessions');
  const suffix = harness === 'claude-code' ? `/${id}.jsonl` : `-${id}.jsonl`;
  let names: string[];
  try {
    names = readdirSync(root, { recursive: true, encoding: 'utf8' });
  } catch {
    return false;
  }
  return names.some((name) => `/${name}`.endsWith(suffix));
}

/**
 * What the played CLI prints when asked to resume a session its home does not hold, as the real
 * ones did (Claude Code 2.1.332: one error `result` line, the message on stderr, exit 1; Codex
 * 0.171.0: nothing on stdout, the error on stderr, exit 1).
 */
export function unknownSession(
  harness: SimulatedHarness,
  id: string,
): { stdout: object[]; stderr: string[]; exitCode: number } {
  if (harness === 'claude-code') {
    const message = `No conversation found with session ID: ${id}`;
    return {
      stdout: [
        {
          type: 'result',
          subtype: 'error_during_execution',
          duration_ms: 0,
          duration_api_ms: 0,
          is_error: true,
          num_turns: 0,
          stop_reason: null,
          session_id: id,
          total_cost_usd: 0,
          usage: { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 },
          modelUsage: {},
          permission_denials: [],
          errors: [message],
        },
      ],
      stderr: [message],
      exitCode: 1,
    };
  }
  return {
    stdout: [],
    stderr: [`Error: thread/resume: thread/resume failed: no rollout found for thread id ${id} (code -32600)`],
    exitCode: 1,
  };
}
