/**
 * The `gates:` section of a task file: which gates run around the harness's tool calls and how.
 * `GatesConfig` validates it as written (unknown keys are errors, as in the rest of the task file)
 * into `GatesSettings`, plain JSON; src/gates/resolve.ts turns that into the `ResolvedGates` the gates
 * run with. Every built-in gate is on unless the task turns it off. Example:
 *
 * ```yaml
 * gates:
 *   workspace: { allowPaths: ["~/.cache/my-tool"] }
 *   commands:
 *     allow: [push-base]
 *     deny: [{ pattern: "^npm publish\\b", message: "Publishing is done by the release job." }]
 *   custom: [{ name: lint-staged, command: "./scripts/gate.sh", events: [PreToolUse] }]
 * ```
 */
import { z } from 'zod';
import { COMMAND_RULES } from './command-rules.js';

/**
 * How long a custom gate may take by default. 5 s: a gate runs before every matching tool call and
 * the agent waits for it, so a check that needs longer belongs in a test run, not in a gate.
 */
export const DEFAULT_CUSTOM_TIMEOUT_MS = 5000;

/** 1 h: the longest a custom gate may be given (the agent waits that long; Node's timers clamp past 2^31 − 1 ms). */
const MAX_CUSTOM_TIMEOUT_MS = 3_600_000;

const pattern = z
  .string()
  .min(1)
  .refine(
    (source) => {
      try {
        new RegExp(source);
        return true;
      } catch {
        return false;
      }
    },
    { message: 'not a valid regular expression' },
  );

const allowPath = z
  .string()
  .regex(/^(?:\/|~\/|~$)/, 'give an absolute path or one under ~/')
  .describe('a place outside the worktree where writes are allowed: absolute, or under ~/');

const CustomGate = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'use letters, digits, ".", "_" or "-" (at most 64)')
    .describe('names the gate in the event log and in its deny messages'),
  command: z
    .string()
    .min(1)
    .describe("a shell command the gate runner runs with the hook's JSON on stdin, in the worktree"),
  events: z
    .array(z.enum(['PreToolUse', 'PostToolUse', 'Stop']))
    .min(1)
    .default(['PreToolUse'])
    .describe('the hook events it runs on (only PreToolUse can deny; PostToolUse and Stop record)'),
  failClosed: z
    .boolean()
    .optional()
    .describe(
      'deny the call when the gate crashes, times out or answers nonsense (default: the gates-wide failClosed)',
    ),
  timeoutMs: z
    .int()
    .min(1)
    .max(MAX_CUSTOM_TIMEOUT_MS)
    .default(DEFAULT_CUSTOM_TIMEOUT_MS)
    .describe('how long it may run before it counts as failed, in milliseconds (at most 3600000: one hour)'),
});
export type CustomGate = z.infer<typeof CustomGate>;

/** The `gates:` section as written. */
export const GatesConfig = z.strictObject({
  operations: z
    .boolean()
    .default(true)
    .describe('record commits, pushes, pull requests and test runs from finished tool calls (PostToolUse)'),
  workspace: z
    .union([z.boolean(), z.strictObject({ allowPaths: z.array(allowPath).default([]) })])
    .default(true)
    .describe('deny file changes outside the worktree (the temp directory and allowPaths excepted)'),
  commands: z
    .union([
      z.boolean(),
      z.strictObject({
        deny: z
          .array(
            z.strictObject({
              pattern: pattern.describe('a regular expression tested against each simple command'),
              message: z.string().min(1).describe('what the agent is told when the pattern refuses a command'),
            }),
          )
          .default([])
          .describe('more commands to deny'),
        allow: z
          .array(z.enum(COMMAND_RULES))
          .default([])
          .describe(`default rules to turn off: ${COMMAND_RULES.join(', ')}`),
      }),
    ])
    .default(true)
    .describe('deny dangerous commands: force-push or push to the base branch, rm -r outside, curl | sh'),
  nothingTwice: z
    .boolean()
    .default(true)
    .describe("deny a second pull request for the branch and a push that rewrites an earlier attempt's push"),
  custom: z.array(CustomGate).default([]).describe("the task's own gate programs, run after the built-in gates"),
  failClosed: z
    .boolean()
    .default(false)
    .describe('deny a tool call when a gate cannot decide (bad hook input, a crashed gate); default: allow and record'),
});
export type GatesConfig = z.input<typeof GatesConfig>;
/** The section as validated, defaults filled: plain JSON, kept with the task and in each attempt's gates file. */
export type GatesSettings = z.output<typeof GatesConfig>;
