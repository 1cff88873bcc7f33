/**
 * Sets up the gates of one attempt: writes the attempt's gates file (src/gates/attempt-file.ts) with
 * the task's gate settings and the facts the gates read — the worktree, the branch and the branch the
 * base names, and the pushes and pull requests earlier attempts made, from the same records
 * context.json is written from. Called before each attempt's harness starts; the file then stays
 * for the attempt's follow-up turns. The file is read-only; its SHA-256, returned beside it, stays in
 * the engine's memory for the hooks HarmFlow installs to put on the runner's command line: the runner
 * refuses every call when the file it finds is not this one (docs/gates.md).
 */
import { mkdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import type { GatesSettings } from '../core/gates-config.js';
import { type AttemptGates, writeAttemptGatesFile } from '../gates/attempt-file.js';
import { earlierWork } from '../gates/facts.js';
import type { AttemptContext } from './context-schema.js';

export interface AttemptGatesInput {
  readonly execution: string;
  readonly attempt: number;
  readonly harness: string;
  readonly attemptDir: string;
  readonly eventsPath: string;
  readonly settings: GatesSettings;
  readonly worktree: string;
  /** HarmFlow's state directory: nothing in it but the worktree is writable through an exemption. */
  readonly stateDir: string;
  readonly branch: string;
  readonly baseBranch: string | undefined;
  /** The attempts that ended before this one, as context.json has them. */
  readonly earlier: readonly AttemptContext[];
}

/** True when the settings leave at least one gate on: otherwise nothing is installed at all. */
export function gatesEnabled(settings: GatesSettings): boolean {
  return (
    settings.operations ||
    settings.workspace !== false ||
    settings.commands !== false ||
    settings.nothingTwice ||
    settings.custom.length > 0
  );
}

/** An attempt's gates as written: the file's content and the SHA-256 of its bytes. */
export interface WrittenGates {
  readonly file: AttemptGates;
  readonly sha256: string;
}

/** Writes the attempt's gates file (atomically, read-only) and returns its content and digest. */
export function writeAttemptGates(input: AttemptGatesInput): WrittenGates {
  const gates: AttemptGates = {
    execution: input.execution,
    attempt: input.attempt,
    harness: input.harness,
    eventsPath: input.eventsPath,
    settings: input.settings,
    facts: {
      worktree: input.worktree,
      tmpdir: tmpdir(),
      home: homedir(),
      stateDir: input.stateDir,
      branch: input.branch,
      ...(input.baseBranch !== undefined && { baseBranch: input.baseBranch }),
      ...earlierWork({ attempts: input.earlier }),
    },
  };
  mkdirSync(input.attemptDir, { recursive: true });
  return { file: gates, sha256: writeAttemptGatesFile(input.attemptDir, gates) };
}
