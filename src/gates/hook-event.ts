/**
 * One hook event as every gate reads it, whichever harness called: HarmFlow's three gate events
 * (named after Claude Code's, whose protocol came first) and the normalized input of each. A harness's
 * hook dialect (src/harnesses/<harness>/hook-dialect.ts) turns its own hook JSON into a `HookInput`.
 * Plain data and one error class; cheap to import (the gate runner starts around every tool call).
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
