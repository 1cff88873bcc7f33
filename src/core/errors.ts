/**
 * Named errors. Each carries the exit code the CLI maps it to (the table in docs/cli.md) and an
 * optional `cause`. Messages are one line that names the problem (a TaskFileError's, one line a
 * problem); the CLI prints only the message unless `--debug`.
 */

/** Exit codes of `harmflow`. Documented in docs/cli.md; change both together. */
export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  invalidTask: 3,
  repository: 4,
  harnessMissing: 5,
  notFound: 6,
  conflict: 7,
  unavailable: 8,
  executionFailed: 10,
  executionTimedOut: 11,
  executionCanceled: 12,
  workflowWaiting: 13,
  /** `workflow plan`: resuming would compute, send or wait for something. */
  planPending: 14,
  /** `workflow plan`: the plan is over its budget or past its deadline; `run`/`resume` refused it. */
  planOverLimits: 15,
} as const;

/** The base of every error HarmFlow raises on purpose. */
export class HarmflowError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}

/** A command line that cannot be understood: unknown option, missing argument. */
export class UsageError extends HarmflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.usage, options);
  }
}

/**
 * A task file that cannot be read, parsed or validated, or names an unknown harness. `problems` holds
 * each problem found, one line each (a file is reported whole, not one problem a run); the message
 * is those lines joined with newlines.
 */
export class TaskFileError extends HarmflowError {
  readonly problems: readonly string[];
  constructor(problems: string | readonly string[], options?: { cause?: unknown }) {
    const lines = typeof problems === 'string' ? [problems] : problems;
    super(lines.join('\n'), EXIT.invalidTask, options);
    this.problems = lines;
  }
}

/** A repository that is missing, is not a git repository, or lacks the base ref. */
export class RepositoryError extends HarmflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.repository, options);
  }
}

/** A harness CLI that is not installed (its binary is not on PATH). */
export class HarnessNotInstalledError extends HarmflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.harnessMissing, options);
  }
}

/** An execution id (or other record) that does not exist in this HARMFLOW_HOME. */
export class NotFoundError extends HarmflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.notFound, options);
  }
}

/** A request that does not fit the record's state now: e.g. a message to an execution that has ended. */
export class ConflictError extends HarmflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.conflict, options);
  }
}

/**
 * The session service cannot take the request now: no service is listening, it is stopping, or
 * admission is held (the message says why). Worth retrying later.
 */
export class ServiceUnavailableError extends HarmflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.unavailable, options);
  }
}

/**
 * The lines the CLI prints for `error`: one for each problem of a TaskFileError that lists several,
 * else its `describeError` line.
 */
export function describeErrorLines(error: unknown): string[] {
  return error instanceof TaskFileError && error.problems.length > 1 ? [...error.problems] : [describeError(error)];
}

/**
 * Returns the error's message and its causes' messages, joined, on one line. A system error whose
 * code the line already names (`… (ENOENT)`, fileProblem) is not repeated: its message says the same
 * with the code and the path again.
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current instanceof Error && parts.length < 4 && !alreadyNamed(parts, current)) {
    parts.push(current.message);
    current = current.cause;
  }
  if (parts.length === 0) parts.push(String(error));
  return parts.join(': ').replace(/\s*\n\s*/g, ' ');
}

function alreadyNamed(parts: readonly string[], error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' && parts.some((part) => part.endsWith(`(${code})`));
}

/** Words for why a file could not be read, with the system's code: `no such file (ENOENT)`. */
export function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code !== 'string') return String(error);
  return `${FILE_PROBLEMS[code] ?? 'cannot be read'} (${code})`;
}

const FILE_PROBLEMS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'a directory, not a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of its path is not a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'name too long',
};
