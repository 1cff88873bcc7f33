/**
 * The record commands: `ls`, `show ID`, `events ID`, `context ID`. Each reads HARMFLOW_HOME and
 * prints a readable form, inert for a terminal (core/terminal-text.ts: what a harness wrote shows its
 * control characters as escapes), or JSON with `--json`. `ls` and `show` measure what each execution's
 * worktree and run directory take on disk (a walk of each tree, src/workspace/disk-usage.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { formatBytes } from '../core/bytes.js';
import { NotFoundError } from '../core/errors.js';
import { harmflowHome } from '../core/home.js';
import { LIVE_STATES } from '../core/outcome.js';
import { inertText } from '../core/terminal-text.js';
import { followEvents, readEvents } from '../events/log.js';
import type { EventRecord } from '../events/schema.js';
import { StoredContext } from '../execution/context-schema.js';
import { type ExecutionDisk, executionDisk } from '../execution/execution-disk.js';
import { describeOperation } from '../web/describe-operation.js';
import { lastMessageLabel, PART_LABEL_WIDTH, PART_LABELS, workItemParts } from '../web/describe-work-item.js';
import { executionIdFor, findExecution, openRecordStore } from './record-home.js';
import { formatRecord } from './timeline.js';

interface HomeOption {
  home?: string;
  json?: boolean;
}

const print = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

/** Prints a line for people: inert, as it may hold what a harness wrote (messages, commit subjects). */
const say = (text: string): void => print(inertText(text));

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
        if (options.json) {
          const withDisk = rows.map((row, at) => ({ ...row, ...(disks[at] !== undefined && { disk: disks[at] }) }));
          return print(JSON.stringify(withDisk, null, 2));
        }
        if (rows.length === 0)
          return say(options.all ? 'no executions' : 'no live executions (ls --all shows ended ones)');
        say(
          `${'ID'.padEnd(26)}  ${'STATE'.padEnd(10)}  ${'ATT'.padEnd(3)}  ${'HARNESS'.padEnd(12)}  ${'DISK'.padEnd(DISK_WIDTH)}  ${'CREATED'.padEnd(19)}  TASK`,
        );
        rows.forEach((row, at) => {
          say(
            `${row.id}  ${row.state.padEnd(10)}  ${String(row.attemptCount).padEnd(3)}  ${(row.currentHarness ?? '-').padEnd(12)}  ${diskColumn(disks[at]).padEnd(DISK_WIDTH)}  ${row.createdAt.slice(0, 19).replace('T', ' ')}  ${row.taskName}`,
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
        if (options.json) {
          return print(JSON.stringify({ ...execution, attempts, ...(disk !== undefined && { disk }) }, null, 2));
        }
        say(`execution ${execution.id}  ${execution.state}${execution.message ? ` — ${execution.message}` : ''}`);
        say(`task      ${execution.taskName}`);
        say(`repo      ${execution.repo} @ ${execution.baseRef} (${execution.baseSha.slice(0, 12)})`);
        say(`branch    ${execution.branch}`);
        say(`worktree  ${execution.worktree}${worktreeNote(disk)}`);
        say(`deadline  ${execution.deadline}`);
        say(`run dir   ${execution.runDir}${disk === undefined ? '' : `  (${formatBytes(disk.runBytes)})`}`);
        for (const attempt of attempts) {
          const usage =
            attempt.inputTokens !== undefined || attempt.costUsd !== undefined
              ? `  ${attempt.inputTokens ?? '?'}/${attempt.outputTokens ?? '?'} tokens${attempt.costUsd !== undefined ? ` $${attempt.costUsd.toFixed(4)}` : ''}`
              : '';
          say(
            `attempt ${attempt.number}  ${attempt.harness}${attempt.simulated ? ' (simulated)' : ''}${attempt.model ? ` ${attempt.model}` : ''}  ${attempt.outcome ?? 'running'}${attempt.message ? `: ${attempt.message}` : ''}${usage}`,
          );
        }
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
      const from = Number.parseInt(options.from, 10) || 0;
      const lineOf = (record: EventRecord) => (options.json ? JSON.stringify(record) : formatRecord(record));
      if (!options.follow) {
        // One write for the whole log (a write a line cost more than the formatting).
        const lines = readEvents(file, { from }).flatMap((record) => lineOf(record) ?? []);
        if (lines.length > 0) print(lines.join('\n'));
        return;
      }
      const emit = (record: EventRecord) => {
        const line = lineOf(record);
        if (line !== undefined) print(line);
      };
      const controller = new AbortController();
      process.once('SIGINT', () => controller.abort());
      for await (const record of followEvents(file, { from, signal: controller.signal })) {
        emit(record);
        if (record.type === 'execution.ended') controller.abort();
      }
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
      const file = home.contextFile(executionId);
      if (!existsSync(file)) throw new NotFoundError(`execution ${executionId} has no context.json yet`);
      const text = readFileSync(file, 'utf8');
      if (options.json) return void process.stdout.write(text);
      const context = StoredContext.parse(JSON.parse(text));
      say(`${file}`);
      for (const attempt of context.attempts) {
        say(
          `attempt ${attempt.number}  ${attempt.harness}${attempt.model ? ` (${attempt.model})` : ''}  ${attempt.outcome}`,
        );
        if (attempt.lastOperation) say(`  last operation: ${describeOperation(attempt.lastOperation)}`);
        if (attempt.lastMessage) say(`  ${lastMessageLabel(attempt.harness)}: ${attempt.lastMessage}`);
        for (const item of attempt.workItems) {
          // The parts both Summaries show: what the harness reported, apart from what HarmFlow saw.
          const parts = workItemParts(item);
          say(`  - ${parts.text}`);
          const part = (label: string, entries: readonly string[]) => {
            for (const [index, entry] of entries.entries()) {
              say(`      ${(index === 0 ? label : '').padEnd(PART_LABEL_WIDTH)}${entry}`);
            }
          };
          part(PART_LABELS.reported, parts.reported === undefined ? [] : [parts.reported]);
          part(PART_LABELS.unconfirmed, parts.unconfirmed === undefined ? [] : [parts.unconfirmed]);
          part(PART_LABELS.observed, parts.observed);
          part(PART_LABELS.tried, parts.tried);
        }
      }
    });
}

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
