/** Identifiers: sortable, monotonic ULIDs, lower-cased so they read well in branch names and paths. */
import { monotonicFactory } from 'ulid';

const nextUlid = monotonicFactory();

/** A new execution id, e.g. `01jf3k9x7q2m4n6p8r0s2t4v6w`. Sorts by creation time. */
export function newExecutionId(): string {
  return nextUlid().toLowerCase();
}
