/**
 * A real attempt directory for the gate runner's tests: a temp state directory laid out as the engine
 * lays it out (runs/<execution>/attempts/<n>/gates.json beside the execution's events.jsonl), written
 * by the engine's own `writeAttemptGates`, the command-line arguments the hooks HarmFlow installs give
 * the runner (the harness, the file's SHA-256 as the engine kept it), and helpers to build Claude
 * Code hook input and read back the records the runner appended, through the event schema.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { GatesConfig, type GatesConfig as GatesSection } from '../../src/core/gates-config.js';
import { type EventRecord, parseEventRecord } from '../../src/events/schema.js';
import { writeAttemptGates } from '../../src/execution/attempt-gates.js';
import type { AttemptContext } from '../../src/execution/context-schema.js';
import type { GateArgs } from '../../src/gates/hook-event.js';

export const EXECUTION = '01jgatetest';
export const BRANCH = 'harmflow/gates-01jgatetest';

export interface GateAttempt {
  readonly root: string;
  readonly worktree: string;
  readonly attemptDir: string;
  readonly eventsPath: string;
  readonly env: NodeJS.ProcessEnv;
  /** The runner's command-line arguments, as the installed hooks give them. */
  readonly args: GateArgs;
  /** Every line of events.jsonl read through the schema; a line that does not parse fails the test. */
  records(): EventRecord[];
  cleanup(): void;
}

export interface GateAttemptOptions {
  readonly section?: GatesSection;
  readonly harness?: string;
  readonly attempt?: number;
  readonly earlier?: AttemptContext[];
}

/** An attempt (number `attempt`, on `harness`) whose task has the `gates:` section `section`. */
export function gateAttempt(options: GateAttemptOptions = {}): GateAttempt {
  const root = mkdtempSync(join(tmpdir(), 'harmflow-gates-'));
  const worktree = join(root, 'worktrees', EXECUTION);
  mkdirSync(worktree, { recursive: true });
  const runDir = join(root, 'runs', EXECUTION);
  const attempt = options.attempt ?? 1;
  const attemptDir = join(runDir, 'attempts', String(attempt));
  const eventsPath = join(runDir, 'events.jsonl');
  const harness = options.harness ?? 'claude-code';
  const { sha256 } = writeAttemptGates({
    execution: EXECUTION,
    attempt,
    harness,
    attemptDir,
    eventsPath,
    settings: GatesConfig.parse(options.section ?? {}),
    worktree,
    stateDir: root,
    branch: BRANCH,
    baseBranch: 'main',
    earlier: options.earlier ?? [],
  });
  return {
    root,
    worktree,
    attemptDir,
    eventsPath,
    env: { ...process.env, HARMFLOW_GATE_DIR: attemptDir },
    args: { harness, sha256 },
    records() {
      let text: string;
      try {
        text = readFileSync(eventsPath, 'utf8');
      } catch {
        return [];
      }
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          const record = parseEventRecord(line);
          if (record === undefined) throw new Error(`events.jsonl has a line the schema rejects: ${line}`);
          return record;
        });
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Claude Code's PreToolUse input for a Bash command run in `cwd`. */
export function preBash(command: string, cwd: string, id = 'toolu_pre'): string {
  return JSON.stringify({
    session_id: 's1',
    cwd,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command, description: 'd' },
    tool_use_id: id,
  });
}

/** Claude Code's PostToolUse input for a Bash command that printed `stdout`. */
export function postBash(command: string, stdout: string, cwd: string, id = 'toolu_post'): string {
  return JSON.stringify({
    session_id: 's1',
    cwd,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: id,
    tool_response: { stdout, stderr: '', interrupted: false, isImage: false },
  });
}

/**
 * `gateAttempt` for a test file whose tests open one attempt each: the one a test opened is removed
 * after it (registers vitest's afterEach; call at the top level).
 */
export function gateAttemptPerTest(): (options?: GateAttemptOptions) => GateAttempt {
  let attempt: GateAttempt | undefined;
  afterEach(() => {
    attempt?.cleanup();
    attempt = undefined;
  });
  return (options = {}) => {
    attempt = gateAttempt(options);
    return attempt;
  };
}
