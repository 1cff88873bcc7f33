/**
 * The record commands: `ls`, `show ID` (with its session routing: cli/records-routing.ts), `events ID`,
 * `context ID`. Each reads HARMFLOW_HOME and prints a readable form, inert for a terminal
 * (core/terminal-text.ts: what a harness wrote shows its control characters as escapes), or JSON with
 * `--json`. `ls` and `show` measure what each execution's worktree and run directory take on disk (a
 * walk of each tree, src/workspace/disk-usage.ts).
 */
import type { Command } from 'commander';
import { formatBytes } from '../core/bytes.js';
import { harmflowHome } from '../core/home.js';
import { LIVE_STATES } from '../core/outcome.js';
import { type ExecutionDisk, executionDisk } from '../execution/execution-disk.js';
import { ownersOf } from '../execution/owners.js';
import { ownerCell, pullRequestCell } from '../web/execution-cells.js';
import { printLine, sayLine } from './print-line.js';
import { executionIdFor, findExecution, openRecordStore } from './record-home.js';

interface HomeOption {
  home?: string;
  json?: boolean;
}

export function registerRecords(program: Command): void {
  program
    .command('ls')
    .description('list executions (live ones; --all for every one)')
    .option('-a, --all', 'include ended executions')
    .option('--json', 'print JSON')
    .option('--home <dir>', 'state directory')
    .action(async (options: HomeOption & { all?: boolean }) => {
      const home = harmflowHome(options.home);
      const store = await openRecordStore(home);
      try {
        const rows = await store.listExecutions(options.all ? {} : { states: LIVE_STATES });
        // A tree that cannot be read (EACCES) has an unknown size: `-`, and no `disk` in JSON.
        const disks = await Promise.all(rows.map((row) => executionDisk(home, row).catch(() => undefined)));
        const owners = ownersOf(
          home,
          rows.map((row) => row.id),
        );
        if (options.json) {
          const listed = rows.map((row, at) => ({
            ...row,
            ...(disks[at] !== undefined && { disk: disks[at] }),
            ...(owners[row.id] !== undefined && { owner: owners[row.id] }),
          }));
          return printLine(JSON.stringify(listed, null, 2));
        }
        if (rows.length === 0)
          return sayLine(options.all ? 'no executions' : 'no live executions (ls --all shows ended ones)');
        const ownerCells = rows.map((row) => {
          const owner = owners[row.id];
          return owner === undefined ? '-' : ownerCell(owner);
        });
        const ownerWidth = Math.max('OWNER'.length, ...ownerCells.map((cell) => cell.length));
        sayLine(
          `${'ID'.padEnd(26)}  ${'STATE'.padEnd(10)}  ${'ATT'.padEnd(3)}  ${'TURNS'.padEnd(5)}  ${'PR'.padEnd(PR_WIDTH)}  ${'OWNER'.padEnd(ownerWidth)}  ${'HARNESS'.padEnd(12)}  ${'DISK'.padEnd(DISK_WIDTH)}  ${'CREATED'.padEnd(19)}  TASK`,
        );
        rows.forEach((row, at) => {
          sayLine(
            `${row.id}  ${row.state.padEnd(10)}  ${String(row.attemptCount).padEnd(3)}  ${String(row.turnCount ?? '-').padEnd(5)}  ${(row.pullRequestUrl === undefined ? '-' : pullRequestCell(row.pullRequestUrl)).padEnd(PR_WIDTH)}  ${(ownerCells[at] ?? '-').padEnd(ownerWidth)}  ${(row.currentHarness ?? '-').padEnd(12)}  ${diskColumn(disks[at]).padEnd(DISK_WIDTH)}  ${row.createdAt.slice(0, 19).replace('T', ' ')}  ${row.taskName}`,
          );
        });
      } finally {
        await store.close();
      }
    });

  program
    .command('show')
    .description('show one execution and its attempts')
    .argument('<id>', 'execution id or a unique prefix')
    .option('--json', 'print JSON')
    .option('--home <dir>', 'state directory')
    .action(async (id: string, options: HomeOption) => {
      const home = harmflowHome(options.home);
      const store = await openRecordStore(home);
      try {
        const execution = await findExecution(store, id);
        const attempts = await store.listAttempts(execution.id);
        const disk = await executionDisk(home, execution).catch(() => undefined);
        const { routingOf, routingLines } = await import('./records-routing.js');
        const routing = routingOf(home, execution, attempts);
        if (options.json) {
          return printLine(
            JSON.stringify({ ...execution, attempts, ...(disk !== undefined && { disk }), routing }, null, 2),
          );
        }
        sayLine(`execution ${execution.id}  ${execution.state}${execution.message ? ` — ${execution.message}` : ''}`);
        sayLine(`task      ${execution.taskName}`);
        sayLine(`repo      ${execution.repo} @ ${execution.baseRef} (${execution.baseSha.slice(0, 12)})`);
        sayLine(`branch    ${execution.branch}`);
        sayLine(`worktree  ${execution.worktree}${worktreeNote(disk)}`);
        sayLine(`deadline  ${execution.deadline}`);
        if (execution.turnCount !== undefined) sayLine(`turns     ${execution.turnCount} completed`);
        if (execution.pullRequestUrl !== undefined) sayLine(`pull req  ${execution.pullRequestUrl}`);
        sayLine(`run dir   ${execution.runDir}${disk === undefined ? '' : `  (${formatBytes(disk.runBytes)})`}`);
        for (const attempt of attempts) {
          const usage =
            attempt.inputTokens !== undefined || attempt.costUsd !== undefined
              ? `  ${attempt.inputTokens ?? '?'}/${attempt.outputTokens ?? '?'} tokens${attempt.costUsd !== undefined ? ` $${attempt.costUsd.toFixed(4)}` : ''}`
              : '';
          sayLine(
            `attempt ${attempt.number}  ${attempt.harness}${attempt.simulated ? ' (simulated)' : ''}${attempt.model ? ` ${attempt.model}` : ''}  ${attempt.outcome ?? 'running'}${attempt.message ? `: ${attempt.message}` : ''}${usage}`,
          );
        }
        for (const line of routingLines(routing)) sayLine(line);
      } finally {
        await store.close();
      }
    });

  program
    .command('events')
    .description("print an execution's timeline (one line per event) or its records as JSON lines")
    .argument('<id>', 'execution id or a unique prefix')
    .option('--json', 'print the records as JSON lines')
    .option('-f, --follow', 'keep printing records as they are appended')
    .option('--from <n>', 'skip the first N records', '0')
    .option('--home <dir>', 'state directory')
    .action(async (id: string, options: HomeOption & { follow?: boolean; from: string }) => {
      const home = harmflowHome(options.home);
      const file = home.eventsFile(await executionIdFor(home, id, home.eventsFile));
      const { printEvents } = await import('./records-events.js');
      await printEvents(file, options);
    });

  program
    .command('context')
    .description("print an execution's context.json: what each attempt did")
    .argument('<id>', 'execution id or a unique prefix')
    .option('--json', 'print the file as it is')
    .option('--home <dir>', 'state directory')
    .action(async (id: string, options: HomeOption) => {
      const home = harmflowHome(options.home);
      const executionId = await executionIdFor(home, id, home.contextFile);
      const { printContext } = await import('./records-context.js');
      printContext(home.contextFile(executionId), executionId, options);
    });
}

/** `#12345`: a pull request's number, as wide as the PR column gets below pull request 100 000. */
const PR_WIDTH = 6;

/** `12.3 MiB (wt gone)` is the widest the DISK column gets, bar sizes of 100 TiB and more. */
const DISK_WIDTH = 18;

/** Worktree and run directory together; `(wt gone)` once gc removed the worktree; `-` when unknown. */
function diskColumn(disk: ExecutionDisk | undefined): string {
  if (disk === undefined) return '-';
  const size = formatBytes(disk.worktreeBytes + disk.runBytes);
  return disk.worktreeRemovedAt === undefined ? size : `${size} (wt gone)`;
}

/** After the worktree's path: its size, or when gc removed it. */
function worktreeNote(disk: ExecutionDisk | undefined): string {
  if (disk === undefined) return '';
  if (disk.worktreeRemovedAt === undefined) return `  (${formatBytes(disk.worktreeBytes)})`;
  return ` — removed by gc on ${disk.worktreeRemovedAt.slice(0, 19).replace('T', ' ')} (the branch keeps its commits)`;
}
