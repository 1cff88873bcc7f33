/**
 * The gates file of one attempt, `runs/<execution>/attempts/<n>/gates.json`: everything the gate
 * runner needs besides the hook's own input — who it records for, where the log is, the task's gate
 * settings and the facts about the execution. The engine writes it (atomically) before the attempt's
 * harness starts; the runner, a new process around every tool call, reads it and nothing else of the
 * execution, so a call costs one small file read instead of a store query.
 *
 * Beside it, `gate-seen.jsonl` holds the pushes and pull requests the gates saw this attempt (one JSON
 * line each, appended by the runner after a call that made one), so "nothing twice" also covers
 * what the attempt itself did since it started. Loaded by the runner: `zod/mini` only.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { COMMAND_RULES } from '../core/command-rules.js';
import type { GatesSettings } from '../core/gates-config.js';
import { PRIVATE_FILE_MODE } from '../core/home.js';
import { type GateFacts, type SeenWork, withSeen } from './facts.js';

export const GATES_FILE = 'gates.json';
const SEEN_FILE = 'gate-seen.jsonl';

/** What the runner knows of the attempt it gates. */
export interface AttemptGates {
  readonly execution: string;
  readonly attempt: number;
  readonly harness: string;
  /** The execution's events.jsonl, absolute. */
  readonly eventsPath: string;
  readonly settings: GatesSettings;
  readonly facts: GateFacts;
}

const by = { attempt: z.optional(z.int()), harness: z.optional(z.string()) };
const KnownPushSchema = z.object({ remote: z.string(), branch: z.string(), sha: z.optional(z.string()), ...by });
const KnownPullRequestSchema = z.object({
  url: z.string(),
  number: z.optional(z.int()),
  state: z.optional(z.enum(['open', 'closed', 'merged'])),
  ...by,
});
const Facts = z.object({
  worktree: z.string(),
  tmpdir: z.string(),
  home: z.optional(z.string()),
  branch: z.string(),
  baseBranch: z.optional(z.string()),
  pushes: z.array(KnownPushSchema),
  pullRequests: z.array(KnownPullRequestSchema),
});
const CustomGate = z.object({
  name: z.string(),
  command: z.string(),
  events: z.array(z.enum(['PreToolUse', 'PostToolUse', 'Stop'])),
  failClosed: z.optional(z.boolean()),
  timeoutMs: z.int(),
});
const Settings = z.object({
  operations: z.boolean(),
  workspace: z.union([z.boolean(), z.object({ allowPaths: z.array(z.string()) })]),
  commands: z.union([
    z.boolean(),
    z.object({
      deny: z.array(z.object({ pattern: z.string(), message: z.string() })),
      allow: z.array(z.enum(COMMAND_RULES)),
    }),
  ]),
  nothingTwice: z.boolean(),
  custom: z.array(CustomGate),
  failClosed: z.boolean(),
});
const File = z.object({
  execution: z.string(),
  attempt: z.int(),
  harness: z.string(),
  eventsPath: z.string(),
  settings: Settings,
  facts: Facts,
});
const Seen = z.union([z.object({ push: KnownPushSchema }), z.object({ pullRequest: KnownPullRequestSchema })]);

/** Reads and validates `dir`'s gates file. Throws an Error naming the file and the problem. */
export function readAttemptGates(dir: string): AttemptGates {
  const path = join(dir, GATES_FILE);
  const parsed = File.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new Error(`${path}: ${problem?.path.join('.') || '(root)'}: ${problem?.message ?? 'invalid'}`);
  }
  return parsed.data as AttemptGates;
}

/**
 * The facts of the gates file plus what this attempt's gates saw since (`withSeen`). Unreadable lines
 * are skipped (a partial last line is a write still under way).
 */
export function currentFacts(dir: string, facts: GateFacts): GateFacts {
  let text: string;
  try {
    text = readFileSync(join(dir, SEEN_FILE), 'utf8');
  } catch {
    return facts;
  }
  const seen = text
    .split('\n')
    .map(parseLine)
    .filter((work): work is SeenWork => work !== undefined);
  return withSeen(facts, seen);
}

function parseLine(line: string): SeenWork | undefined {
  if (line.trim() === '') return undefined;
  try {
    const parsed = Seen.safeParse(JSON.parse(line));
    return parsed.success ? (parsed.data as SeenWork) : undefined;
  } catch {
    return undefined;
  }
}

/** Appends what a call was seen to do outside the worktree, one whole line per write (O_APPEND). */
export function recordSeen(dir: string, seen: readonly SeenWork[]): void {
  if (seen.length === 0) return;
  appendFileSync(join(dir, SEEN_FILE), seen.map((entry) => `${JSON.stringify(entry)}\n`).join(''), {
    mode: PRIVATE_FILE_MODE,
  });
}
