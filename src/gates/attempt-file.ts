/**
 * The gates file of one attempt, `runs/<execution>/attempts/<n>/gates.json`: everything the gate
 * runner needs besides the hook's own input — who it records for, where the log is, the task's gate
 * settings and the facts about the execution. The engine writes it (atomically, read-only) before the
 * attempt's harness starts and keeps its SHA-256; the hooks it installs carry that digest on their
 * command line. The runner, a new process around every tool call, reads the file and nothing else of
 * the execution, so a call costs one small file read instead of a store query, and trusts nothing in
 * it unless its bytes have that digest: a file that is missing, unreadable or altered is a
 * `GatesFileError`, on which the runner refuses every call (runner.ts).
 *
 * Beside it, `gate-seen.jsonl` holds the pushes and pull requests the gates saw this attempt (one JSON
 * line each, appended by the runner after a call that made one), so "nothing twice" also covers
 * what the attempt itself did since it started. Loaded by the runner: `zod/mini` only.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { COMMAND_RULES } from '../core/command-rules.js';
import { EXIT, HarmflowError } from '../core/errors.js';
import type { GatesSettings } from '../core/gates-config.js';
import { PRIVATE_FILE_MODE } from '../core/home.js';
import { writeJsonAtomic } from '../core/json-file.js';
import { type GateFacts, type SeenWork, withSeen } from './facts.js';

export const GATES_FILE = 'gates.json';
/** What the gates saw this attempt; the runner appends to it (an OS sandbox binds it writable alone). */
export const SEEN_FILE = 'gate-seen.jsonl';

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
  stateDir: z.optional(z.string()),
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

/**
 * 0400: nothing writes the file in place, HarmFlow included (a new one replaces it whole), so a write
 * through it fails instead of changing it. It does not stop its owner (or root) removing or replacing it:
 * the digest is what tells, and the OS sandbox (ARCHITECTURE.md) what keeps the agent from trying.
 */
const GATES_FILE_MODE = 0o400;

/** How the runner found a gates file it cannot trust: `missing` (absent or unreadable) or `altered`. */
export type GatesFileState = 'missing' | 'altered';

/** A gates file the runner cannot trust: `state` says how, the message names the file and the problem. */
export class GatesFileError extends HarmflowError {
  readonly state: GatesFileState;
  constructor(state: GatesFileState, message: string, options?: { cause?: unknown }) {
    super(message, EXIT.internal, options);
    this.state = state;
  }
}

/**
 * Writes `gates` as `dir`'s gates file, read-only (GATES_FILE_MODE) and atomically (`writeJsonAtomic`:
 * readers see the old file or the new one, never a mix), and returns the SHA-256 of the bytes
 * written: the engine's own copy of the digest, kept in its memory where the agent cannot change it,
 * for the hooks it installs to carry (src/harnesses/hooks.ts `gateRunner`).
 */
export function writeAttemptGatesFile(dir: string, gates: AttemptGates): string {
  return sha256Of(Buffer.from(writeJsonAtomic(join(dir, GATES_FILE), gates, GATES_FILE_MODE)));
}

/**
 * Reads `dir`'s gates file, checks that its bytes have the SHA-256 `sha256` (from the hook's command
 * line), and validates it. Throws `GatesFileError`: `missing` when there is no digest to check against
 * or the file cannot be read, `altered` when its bytes are not those or not a gates file.
 */
export function readAttemptGates(dir: string, sha256: string | undefined): AttemptGates {
  const path = join(dir, GATES_FILE);
  if (sha256 === undefined) throw new GatesFileError('missing', `the hook command gives no SHA-256 of ${path}`);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? String(cause);
    throw new GatesFileError('missing', `cannot read ${path} (${code})`, { cause });
  }
  const actual = sha256Of(bytes);
  if (actual !== sha256) {
    throw new GatesFileError(
      'altered',
      `${path} is not the file HarmFlow wrote (SHA-256 ${sha256}): its SHA-256 is ${actual}`,
    );
  }
  let parsed: ReturnType<typeof File.safeParse>;
  try {
    parsed = File.safeParse(JSON.parse(bytes.toString('utf8')));
  } catch (cause) {
    throw new GatesFileError('altered', `${path} is not JSON`, { cause });
  }
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new GatesFileError(
      'altered',
      `${path}: ${problem?.path.join('.') || '(root)'}: ${problem?.message ?? 'invalid'}`,
    );
  }
  return parsed.data as AttemptGates;
}

function sha256Of(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
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

/** Makes the attempt's (empty) seen file, before its harness starts, when there is none yet. */
export function createSeenFile(dir: string): void {
  appendFileSync(join(dir, SEEN_FILE), '', { mode: PRIVATE_FILE_MODE });
}

/** Appends what a call was seen to do outside the worktree, one whole line per write (O_APPEND). */
export function recordSeen(dir: string, seen: readonly SeenWork[]): void {
  if (seen.length === 0) return;
  appendFileSync(join(dir, SEEN_FILE), seen.map((entry) => `${JSON.stringify(entry)}\n`).join(''), {
    mode: PRIVATE_FILE_MODE,
  });
}
