/**
 * Moving the selection through the Events timeline, as pure functions on indexes into the events
 * as displayed (after any filter). `-1` means nothing is selected; given a `current` that is `-1` or
 * in `[0, count)`, every function returns one of those too.
 *
 * Decisions:
 * - from nothing selected, a step forward selects the first event and a step back the last (the
 *   newest, usually what one wants on a live execution); the same holds for `nextMatching`;
 * - steps clamp at both ends: no wrap-around;
 * - `nextMatching` that finds nothing in its direction stays where it is (returns `current`), so
 *   `n` past the last switch leaves the selection on it instead of jumping back to the top.
 *
 * The DOM glue owns the selection itself and scrolling to it. No Node, no DOM.
 */

/** The event types that tell the story of a harness switch, what `n`/`N` jump between. */
const SWITCH_TYPES: ReadonlySet<string> = new Set([
  'quota.exhausted',
  'failover',
  'switch.requested',
  'attempt.started',
  'attempt.ended',
  'harness.skipped',
  'quota.waiting',
  'wait.ended',
]);

export function isSwitchRelated(type: string): boolean {
  return SWITCH_TYPES.has(type);
}

/** The index `delta` events away from `current`, clamped to the list; see the file comment for `-1`. */
export function step(count: number, current: number, delta: number): number {
  if (count <= 0) return -1;
  if (current < 0) return delta > 0 ? 0 : delta < 0 ? count - 1 : -1;
  return Math.min(Math.max(current + delta, 0), count - 1);
}

export function first(count: number): number {
  return count > 0 ? 0 : -1;
}

export function last(count: number): number {
  return count > 0 ? count - 1 : -1;
}

/**
 * The nearest index after (`direction` 1) or before (-1) `current` whose type satisfies `predicate`;
 * `current` itself when there is none. From `-1`, forward searches from the first event and
 * backward from the last.
 */
export function nextMatching(
  types: readonly string[],
  current: number,
  direction: 1 | -1,
  predicate: (type: string) => boolean,
): number {
  const start = current < 0 ? (direction === 1 ? 0 : types.length - 1) : current + direction;
  for (let index = start; index >= 0 && index < types.length; index += direction) {
    const type = types[index];
    if (type !== undefined && predicate(type)) return index;
  }
  return current;
}
