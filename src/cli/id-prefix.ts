/**
 * An execution named by its id or a unique prefix of it, as every verb that takes an execution id
 * reads it: the record verbs look it up in the state directory's store (cli/record-home.ts), the
 * service verbs in the service's list (cli/service-id.ts). One rule for both, so a prefix means the
 * same wherever it is typed: case does not matter, at least MIN_PREFIX characters, an exact id wins,
 * no match is exit 6 (NotFoundError), more than one is exit 2 (UsageError) naming how many matched.
 * No module here beyond the errors: the record verbs' bundle loads it on every start.
 */
import { NotFoundError, UsageError } from '../core/errors.js';

/**
 * 4 characters, the floor `show` has always had. An id begins with its creation time (a ULID: 10
 * characters of 5 bits of milliseconds), so a prefix picks a time window: 4 characters one of about
 * 12 days, 6 about 17 minutes, 8 about a second; 3 would be over a year, rarely unique.
 */
export const MIN_PREFIX = 4;

/** Where a prefix is looked up. */
export interface ExecutionIndex<T> {
  /** The execution whose id is exactly `id`, if any. */
  exact(id: string): Promise<T | undefined>;
  /** The executions whose id starts with `prefix` (lower case, at least MIN_PREFIX characters). */
  startingWith(prefix: string): Promise<readonly T[]>;
  /** Where it looks, for the not-found message: `in this HARMFLOW_HOME`, `on the service at …`. */
  readonly where: string;
}

/** The one execution `idOrPrefix` names in `index`; NotFoundError or UsageError as the file header says. */
export async function resolveExecution<T>(idOrPrefix: string, index: ExecutionIndex<T>): Promise<T> {
  const wanted = idOrPrefix.trim().toLowerCase();
  if (wanted.length < MIN_PREFIX) {
    throw new UsageError(`execution id "${idOrPrefix}" is too short: give at least ${MIN_PREFIX} characters`);
  }
  const exact = await index.exact(wanted);
  if (exact !== undefined) return exact;
  const matches = await index.startingWith(wanted);
  const [only] = matches;
  if (only === undefined) throw new NotFoundError(`no execution "${idOrPrefix}" ${index.where}`);
  if (matches.length > 1) {
    throw new UsageError(`execution id "${idOrPrefix}" is ambiguous: ${matches.length} executions start with it`);
  }
  return only;
}
