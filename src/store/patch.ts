/** Patch semantics shared by every Store adapter (the meaning is stated on `ExecutionPatch`). */

/**
 * applyPatch returns a copy of `record` with `patch` applied: an absent (or undefined) key keeps the
 * stored value, a present key sets it, and `null` removes the field, except for the keys in
 * `nullValued`, whose `null` is a value that is set. It checks no types: the patch types do.
 */
export function applyPatch<R extends object>(record: R, patch: object, nullValued: ReadonlySet<string> = new Set()): R {
  const next: Record<string, unknown> = { ...(record as Record<string, unknown>) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null && !nullValued.has(key)) delete next[key];
    else next[key] = value;
  }
  return next as R;
}
