/**
 * `harmflow workflow review RUN` — the items a run's review steps wait on: for each, why it is up
 * (never approved, or what changed since its last approval, or the chain of outputs this run changed),
 * and what the reviewer sees, as a diff against the last approved version or the version before the
 * change. `--approve KEY…` / `--approve-all` approve them (the approval is
 * bound to exactly what was reviewed), `--reject KEY… --reason TEXT` rejects them; then resume the
 * run. Exit codes: 0, 2 for a bad option or an item not waiting, 6 for an unknown run.
 */
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { approve, type PendingReview, pendingReviews, reject } from '../workflows/review.js';
import { shownReview } from '../workflows/review-shown.js';
import { collect } from './option-values.js';
import { moduleOf, type StoreOptions, storeOptions, storePlace, withStore } from './workflow-store.js';

interface ReviewOptions extends StoreOptions {
  file?: string;
  approve?: string[];
  approveAll?: boolean;
  reject?: string[];
  reason?: string;
  by?: string;
  json?: boolean;
}

export function registerReview(workflow: Command): void {
  storeOptions(
    workflow
      .command('review <run>')
      .description("what the run's review steps wait on, with diffs and reasons; approve or reject"),
  )
    .option('--file <file>', 'the workflow file (default: the one the run was last started or resumed with)')
    .option('--approve <item>', 'approve this item; repeatable', collect)
    .option('--approve-all', 'approve every item waiting')
    .option('--reject <item>', 'reject this item (with --reason); repeatable', collect)
    .option('--reason <text>', 'why the items are rejected')
    .option('--by <name>', 'who decides (recorded with the decision)', process.env.USER ?? 'a reviewer')
    .option('--json', 'print the items waiting (or decided) as JSON')
    .action(async (id: string, options: ReviewOptions) => {
      const place = storePlace(options);
      const by = options.by ?? 'a reviewer';
      if (options.reject && options.reason === undefined) throw new UsageError('--reject needs --reason');
      if (options.approveAll && options.approve) throw new UsageError('give --approve or --approve-all, not both');
      await withStore(place, async (store) => {
        const { workflow: definition } = await moduleOf(store, id, options.file);
        const decided: PendingReview[] = [];
        if (options.approveAll || options.approve) {
          const keys = options.approveAll ? 'all' : (options.approve ?? []);
          decided.push(...(await approve(definition, id, store, { keys, by })));
        }
        if (options.reject) {
          decided.push(
            ...(await reject(definition, id, store, { keys: options.reject, by, reason: options.reason ?? '' })),
          );
        }
        if (decided.length > 0) {
          const line = `${decided.length} decided by ${by}; resume the run: harmflow workflow resume ${id}`;
          process.stdout.write(`${options.json ? JSON.stringify(decided, null, 2) : line}\n`);
          return;
        }
        const pending = await pendingReviews(definition, id, store);
        process.stdout.write(`${options.json ? JSON.stringify(pending, null, 2) : formatPending(id, pending)}\n`);
      });
    });
}

/** The items waiting, each with its reasons and a diff of what the reviewer sees. */
export function formatPending(run: string, pending: readonly PendingReview[]): string {
  if (pending.length === 0) return `run ${run}: nothing waits for review`;
  const lines = [`run ${run}: ${pending.length} item(s) wait for review`];
  for (const item of pending.map(shownReview)) {
    lines.push('', `${item.step} ${item.key} — ${item.why}`);
    if (item.because !== undefined) lines.push(`  because: ${item.because}`);
    lines.push(...item.diff.map((line) => `  ${line}`));
    if (item.against !== undefined) lines.push(`  (against ${item.against})`);
  }
  return lines.join('\n');
}
