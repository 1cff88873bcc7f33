/**
 * One hook event as every gate reads it, whichever harness called: HarmFlow's three gate events
 * (named after Claude Code's, whose protocol came first) and the normalized input of each. A harness's
 * hook dialect (src/harnesses/<harness>/hook-dialect.ts) turns its own hook JSON into a `HookInput`.
 * Also what the runner's command line carries besides the event (`GateArgs`), written by the hooks
 * install and read by `harmflow gate`. Plain data, one error class and two small functions; cheap to
 * import (the gate runner starts around every tool call).
 */
import { EXIT, HarmflowError } from '../core/errors.js';
import type { ToolCall, ToolResult } from './tool-call.js';

/**
 * `PreToolUse`: before a call (the only event that can deny it); `PostToolUse`: after a call that
 * ran; `Stop`: the agent finished its turn.
 */
export const GATE_EVENTS = ['PreToolUse', 'PostToolUse', 'Stop'] as const;
export type GateEvent = (typeof GATE_EVENTS)[number];

/**
 * The environment variable naming the attempt's directory (runs/<execution>/attempts/<n>) for the
 * gate runner. Here, not in command.ts, so the runner's bundle does not carry what only the engine needs.
 */
export const GATE_DIR_ENV = 'HARMFLOW_GATE_DIR';

/**
 * What the hook's command line tells the runner besides the event, written there by HarmFlow when it
 * installs the hooks: the harness (so the runner answers in its protocol even when it cannot trust
 * the gates file, which names it too) and the SHA-256 of the gates file HarmFlow wrote, which the
 * runner checks the file against before it trusts anything in it. Either is absent only from a
 * command line HarmFlow did not write; without the digest the runner refuses every call.
 */
export interface GateArgs {
  readonly harness?: string;
  readonly sha256?: string;
}

const GATE_FLAGS = { harness: '--harness', sha256: '--sha256' } as const;

/** `args` as the command-line words that follow the event: `--harness <name> --sha256 <hex>`, those given. */
export function gateArgsWords(args: GateArgs): string[] {
  return (Object.keys(GATE_FLAGS) as (keyof GateArgs)[]).flatMap((name) => {
    const value = args[name];
    return value === undefined ? [] : [GATE_FLAGS[name], value];
  });
}

/** The words after the event read back; a word it does not know, or a flag without its value, is undefined. */
export function parseGateArgs(words: readonly string[]): GateArgs | undefined {
  const args: { harness?: string; sha256?: string } = {};
  for (let at = 0; at < words.length; at += 2) {
    const [flag, value] = [words[at], words[at + 1]];
    const key = (Object.keys(GATE_FLAGS) as (keyof GateArgs)[]).find((name) => GATE_FLAGS[name] === flag);
    if (key === undefined || value === undefined) return undefined;
    args[key] = value;
  }
  return args;
}

/** One hook event, normalized. `sessionId` is the harness's session when its hook input names one. */
export type HookInput =
  | { readonly event: 'PreToolUse'; readonly sessionId?: string; readonly cwd: string; readonly call: ToolCall }
  | {
      readonly event: 'PostToolUse';
      readonly sessionId?: string;
      readonly cwd: string;
      readonly call: ToolCall;
      readonly result: ToolResult;
    }
  | { readonly event: 'Stop'; readonly sessionId?: string; readonly cwd: string };

/**
 * Hook input the gates cannot read: not JSON, not the event the runner was called for, or without a
 * field the gates need. The gate runner turns it into "allow (or deny, when failing closed) and
 * record it".
 */
export class HookInputError extends HarmflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.internal, options);
  }
}
