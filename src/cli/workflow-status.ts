/**
 * `harmflow workflow status <run>`: a run as it is now, its state told by its owner's liveness
 * (workflows/run-owner.ts) — a `running` run whose process is gone is `interrupted`, names that
 * process and gives the command that resumes it — then why it stopped, and per step its items and
 * what it spent over every drive beside what the plans estimated (workflows/spend.ts).
 * `--json` prints the same: `{run, resume?, items, spend}`, where `run.state` is the state shown,
 * `run.owner`, when the run has one, adds `alive` (true, false, or null when it ran on another
 * machine and was not checked), and `spend` is the run's RunSpendSummary (`null` for a figure that is
 * unknown, `unknown` saying why).
 */
import type { Command } from 'commander';
import { shellWord } from '../core/shell-words.js';
import { runStatus } from '../workflows/run-owner.js';
import { summarizeSpend } from '../workflows/spend.js';
import { formatStatus } from './workflow-format.js';
import { getRun, type StoreOptions, storeOptions, storePlace, withStore } from './workflow-store.js';

/** Registers `status` under the `workflow` command. */
export function registerStatus(workflow: Command): void {
  storeOptions(
    workflow
      .command('status <run>')
      .description('a run: its state, why it stopped, its items and what it spent per step'),
  )
    .option('--json', 'print the run and its items as JSON')
    .action(async (id: string, options: StoreOptions & { json?: boolean }) => {
      await withStore(storePlace(options), async (store) => {
        const run = await getRun(store, id);
        const items = await store.listRunItems(id);
        const spend = summarizeSpend(await store.listSpend([id]));
        const status = runStatus(run);
        const resume = status.state === 'interrupted' ? resumeCommand(id, options) : undefined;
        if (options.json) {
          const shown = { ...run, ...status };
          process.stdout.write(`${JSON.stringify({ run: shown, ...(resume && { resume }), items, spend }, null, 2)}\n`);
        } else {
          process.stdout.write(`${formatStatus(run, status, resume, items, spend)}\n`);
        }
      });
    });
}

/**
 * The command that resumes run `id` where `status` read it: the state directory given, if any; a
 * cluster's run names its store and queue as words to fill in (a URL may carry a password, which
 * the output should not).
 */
export function resumeCommand(id: string, options: StoreOptions): string {
  const words = ['harmflow', 'workflow', 'resume', id];
  if (options.store !== undefined) {
    words.push('--store', 'STORE_URL');
    if (options.schema !== undefined) words.push('--schema', options.schema);
    words.push('--queue', 'REDIS_URL');
  } else if (options.home !== undefined) {
    words.push('--home', options.home);
  }
  return words.map(shellWord).join(' ');
}
