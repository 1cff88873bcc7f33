/**
 * A task's own gate: a shell command run in the worktree with one JSON object on stdin — the same,
 * harness-neutral view every built-in gate reads, so one gate works for every harness of the chain:
 *
 * ```json
 * {"event":"PreToolUse","execution":"…","attempt":2,"harness":"codex","cwd":"…",
 *  "call":{"tool":"Bash","kind":"shell","command":"git push","paths":[],"input":{…}},
 *  "result":{"ok":true,"output":"…"}}            // PostToolUse only
 * ```
 *
 * Its answer: exit 0 with nothing on stdout, or `{"decision":"allow"}`, allows; exit 0 with
 * `{"decision":"deny","message":"…"}` denies; exit 2 denies with its stderr as the message (the
 * convention of Claude Code's command hooks, so such a script works unchanged). Anything else — another
 * exit code, a signal, a timeout, stdout that is not that JSON — is a failure of the gate, which the
 * runner records and answers by the gate's `failClosed`.
 */
import * as z from 'zod/mini';
import { runCommand } from '../proc/run.js';
import type { HookInput } from './hook-event.js';
import type { ResolvedGates } from './resolve.js';
import { ALLOW, deny, type Verdict } from './verdict.js';

type Gate = ResolvedGates['custom'][number];

/** What a custom gate did: its verdict, or why it could not give one. */
export type CustomOutcome = { readonly verdict: Verdict } | { readonly failure: string };

/** The longest deny message or failure text kept from a gate's output: the agent reads it, so keep it a paragraph. */
const MAX_TEXT = 2000;

const Answer = z.union([
  z.object({ decision: z.literal('allow') }),
  z.object({ decision: z.literal('deny'), message: z.string().check(z.minLength(1)) }),
]);

/** Runs `gate` on `input`; `about` names the execution for the gate's JSON. Never throws. */
export async function runCustomGate(
  gate: Gate,
  input: HookInput,
  about: { readonly execution: string; readonly attempt: number; readonly harness: string; readonly worktree: string },
): Promise<CustomOutcome> {
  const { event, cwd } = input;
  const json = {
    event,
    execution: about.execution,
    attempt: about.attempt,
    harness: about.harness,
    cwd,
    ...('call' in input && { call: input.call }),
    ...('result' in input && { result: input.result }),
  };
  const run = await runCommand('/bin/sh', ['-c', gate.command], {
    cwd: about.worktree,
    timeoutMs: gate.timeoutMs,
    input: `${JSON.stringify(json)}\n`,
  });
  if (run.timedOut) return { failure: `timed out after ${gate.timeoutMs} ms` };
  if (run.error !== undefined) return { failure: run.error };
  if (run.exitCode === 2) {
    return { verdict: deny(clip(run.stderr.trim()) || `HarmFlow's custom gate ${gate.name} refused this call.`) };
  }
  if (run.exitCode !== 0) {
    const said = clip(run.stderr.trim().split('\n').at(-1) ?? '');
    return { failure: `exited with ${run.signal ?? `code ${run.exitCode}`}${said ? `: ${said}` : ''}` };
  }
  const text = run.stdout.trim();
  if (text === '') return { verdict: ALLOW };
  let answerJson: unknown;
  try {
    answerJson = JSON.parse(text);
  } catch {
    return { failure: `answered with something that is not JSON: ${clip(text)}` };
  }
  const answer = Answer.safeParse(answerJson);
  if (!answer.success)
    return { failure: `answered ${clip(text)}, not {"decision":"allow"} or {"decision":"deny","message":…}` };
  return { verdict: answer.data.decision === 'allow' ? ALLOW : deny(clip(answer.data.message)) };
}

function clip(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…`;
}
