/**
 * The records after which an execution's detail view fetches its summary again (its state, chain,
 * context and wait change with them), in the Workbench (dom/detail.ts) and the terminal UI
 * (src/tui/detail/use-detail.ts) alike. No Node, no DOM.
 */
const CHANGES_SUMMARY: ReadonlySet<string> = new Set([
  'attempt.started',
  'attempt.ended',
  'failover',
  'execution.ended',
  'execution.reopened',
  'context.written',
  'quota.waiting',
  'wait.ended',
]);

export function changesSummary(type: string): boolean {
  return CHANGES_SUMMARY.has(type);
}

/**
 * 250 ms: the replay of a long log brings its attempt starts and ends together; the summary is
 * fetched once after the burst, not once each.
 */
export const SUMMARY_DELAY_MS = 250;
