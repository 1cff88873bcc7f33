/**
 * The hooks of the played harness, run the way the real CLI runs them (reference note §8; the Codex
 * notes in docs/harnesses.md): a hooks file — Claude Code's `--settings` file, or Codex's
 * `$CODEX_HOME/hooks.json` when `--dangerously-bypass-hook-trust` is given — lists commands per event
 * (`PreToolUse`, `PostToolUse`, Claude Code's `PostToolUseFailure` for a failed call, `Stop`), each run
 * through a shell with the event's JSON on stdin. A
 * PreToolUse answer `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":…}}`,
 * or exit 2 with the reason on stderr, refuses the call; any other answer or failure lets it run
 * (both CLIs fail open). So the gates HarmFlow installs run under `sim` exactly as under the real CLI.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { HookedCall, ToolResult } from './stream.js';

const Handler = z.looseObject({ type: z.literal('command'), command: z.string(), timeout: z.number().optional() });
const Group = z.looseObject({ matcher: z.string().optional(), hooks: z.array(Handler) });
const HooksFile = z.looseObject({
  hooks: z.looseObject({
    PreToolUse: z.array(Group).optional(),
    PostToolUse: z.array(Group).optional(),
    PostToolUseFailure: z.array(Group).optional(),
    Stop: z.array(Group).optional(),
  }),
});
type Group = z.infer<typeof Group>;
type HookEvent = 'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure' | 'Stop';
type Groups = { readonly [E in HookEvent]?: readonly Group[] | undefined };

const Decision = z.looseObject({
  hookSpecificOutput: z.looseObject({
    permissionDecision: z.string().optional(),
    permissionDecisionReason: z.string().optional(),
  }),
});

/** 60 s: both CLIs' default hook timeout order of magnitude; a handler's own `timeout` (seconds) wins. */
const DEFAULT_TIMEOUT_S = 60;

export class HookRunner {
  constructor(
    private readonly groups: Groups,
    private readonly session: { readonly sessionId: string; readonly cwd: string },
  ) {}

  /** Runs the PreToolUse hooks of `call`; returns the reason when one refused it. */
  pre(call: HookedCall): string | undefined {
    for (const answer of this.run('PreToolUse', call.name, this.toolJson('PreToolUse', call))) {
      if (answer.exitCode === 2) return answer.stderr.trim() || 'blocked by a hook';
      const decision = parseDecision(answer.stdout);
      if (decision !== undefined) return decision;
    }
    return undefined;
  }

  /** Runs the hooks after a call: `PostToolUseFailure` for a failed one where the harness has that event. */
  post(call: HookedCall, result: ToolResult): void {
    if (!result.ok && call.failure !== undefined && this.groups.PostToolUseFailure !== undefined) {
      const json = { ...this.toolJson('PostToolUseFailure', call), error: call.failure(result), is_interrupt: false };
      this.run('PostToolUseFailure', call.name, json);
      return;
    }
    this.run('PostToolUse', call.name, { ...this.toolJson('PostToolUse', call), tool_response: call.response(result) });
  }

  stop(): void {
    this.run('Stop', undefined, { ...this.head('Stop'), stop_hook_active: false });
  }

  private head(event: string) {
    return { session_id: this.session.sessionId, cwd: this.session.cwd, hook_event_name: event };
  }

  private toolJson(event: string, call: HookedCall) {
    return { ...this.head(event), tool_name: call.name, tool_input: call.input, tool_use_id: call.id };
  }

  private run(event: HookEvent, tool: string | undefined, json: object) {
    const answers: { exitCode: number | null; stdout: string; stderr: string }[] = [];
    for (const group of this.groups[event] ?? []) {
      if (tool !== undefined && !matches(group.matcher, tool)) continue;
      for (const handler of group.hooks) {
        const run = spawnSync('bash', ['-c', handler.command], {
          cwd: this.session.cwd,
          input: `${JSON.stringify(json)}\n`,
          encoding: 'utf8',
          timeout: (handler.timeout ?? DEFAULT_TIMEOUT_S) * 1000,
        });
        answers.push({ exitCode: run.status, stdout: run.stdout ?? '', stderr: run.stderr ?? '' });
      }
    }
    return answers;
  }
}

function matches(matcher: string | undefined, tool: string): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(tool);
  } catch {
    return false;
  }
}

function parseDecision(stdout: string): string | undefined {
  if (stdout.trim() === '') return undefined;
  try {
    const parsed = Decision.safeParse(JSON.parse(stdout));
    if (!parsed.success || parsed.data.hookSpecificOutput.permissionDecision !== 'deny') return undefined;
    return parsed.data.hookSpecificOutput.permissionDecisionReason || undefined;
  } catch {
    return undefined;
  }
}

/** The hooks in `file`, or undefined when it has none; a file that cannot be read or parsed throws. */
export function loadHooks(file: string, session: { sessionId: string; cwd: string }): HookRunner | undefined {
  const parsed = HooksFile.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) return undefined;
  return new HookRunner(parsed.data.hooks, session);
}
