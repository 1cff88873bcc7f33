/**
 * `harmflow workflow ls`: the runs of the store, newest first — id, state as it is now (a `running`
 * run whose process is gone is `interrupted`, workflows/run-owner.ts), workflow, when it started and
 * last changed, what it spent in all (dollars; `≥ $X` when some of it is unknown — what was
 * reported, a floor — and `?` when none was: workflows/spend.ts), and why it stopped or what it
 * waits for (the run's message: `185 item(s) await review: …`).
 * `--workflow NAME` keeps one workflow's runs; `--json` prints `{runs: [...]}`, each run as the store
 * has it with the state shown and `spend`, its total (SpendSummary). Reads the runs and their spend
 * rows (one row per step and drive), never their items: a list of many large runs costs two queries.
 */
import type { Command } from 'commander';
import type { RunRecord } from '../store/resume-store.js';
import { type RunStatus, runStatus } from '../workflows/run-owner.js';
import { type RunSpendSummary, type SpendSummary, summarizeRuns } from '../workflows/spend.js';
import { alignColumns } from './columns.js';
import { atLeast, money } from './workflow-format.js';
import { type StoreOptions, storeOptions, storePlace, withStore } from './workflow-store.js';

/** Registers `ls` under the `workflow` command. */
export function registerLs(workflow: Command): void {
  storeOptions(
    workflow.command('ls').description('the runs, newest first: state, workflow, started, spend, what each waits for'),
  )
    .option('--workflow <name>', "only this workflow's runs")
    .option('--json', 'print the runs as JSON')
    .action(async (options: StoreOptions & { workflow?: string; json?: boolean }) => {
      await withStore(storePlace(options), async (store) => {
        const runs = await store.listRuns(options.workflow === undefined ? {} : { workflow: options.workflow });
        const ids = runs.map((run) => run.id);
        const spends = summarizeRuns(ids, await store.listSpend(ids));
        const shown = runs.map((run) => ({
          run,
          status: runStatus(run),
          spend: (spends.get(run.id) as RunSpendSummary).total,
        }));
        if (options.json) {
          const json = shown.map(({ run, status, spend }) => ({ ...run, ...status, spend }));
          process.stdout.write(`${JSON.stringify({ runs: json }, null, 2)}\n`);
        } else {
          process.stdout.write(`${formatRuns(shown)}\n`);
        }
      });
    });
}

/** The runs as a table, or one line saying there are none. */
export function formatRuns(
  runs: readonly { readonly run: RunRecord; readonly status: RunStatus; readonly spend: SpendSummary }[],
): string {
  if (runs.length === 0) return 'no workflow runs yet: `harmflow workflow run FILE` starts one';
  const rows = runs.map(({ run, status, spend }) => [
    run.id,
    status.state,
    run.workflow,
    minute(run.createdAt),
    minute(run.updatedAt),
    atLeast(spend, 'usd', money),
    run.message ?? '',
  ]);
  const header = ['RUN', 'STATE', 'WORKFLOW', 'STARTED', 'UPDATED', 'SPENT', 'WHY / WAITING FOR'];
  return alignColumns([header, ...rows]).join('\n');
}

/** `2026-12-02T17:39:10.311Z` as `2026-12-02 17:39Z`: the table's time, to the minute, in UTC. */
function minute(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z`;
}
